"""The entity view's opening graph: a scope's most mentioned entities and the links among them
(`entities(sort: [{mentionCount: DESC}])` and `EntityConnection.links`), against a real Neo4j."""

from __future__ import annotations

from typing import Any

import pytest
import strawberry

from service.api.context import RequestContext
from service.api.dashboard import DashboardQuery
from service.core.auth import Principal
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher

ALICE_CHAT = [
    {
        "speaker": "Alice",
        "timestamp": "2024-01-05T09:00:00Z",
        "content": "I work at Google in Paris as an engineer.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-01-12T09:00:00Z",
        "content": "Google moved my whole team to the new Paris office near the river.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-01-19T09:00:00Z",
        "content": "My manager at Google is Priya, and she grew up in Lyon.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-02-02T09:00:00Z",
        "content": "Priya and I flew to Berlin for a Google conference.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-02-09T09:00:00Z",
        "content": "I live in Paris with my dog Max.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-03-01T09:00:00Z",
        "content": "I moved to Lyon last week.",
    },
]
OTHER_CHAT = [
    {
        "speaker": "Alice",
        "timestamp": "2024-01-05T09:00:00Z",
        "content": f"I visited Zanzibar with Priya for the {n} time.",
    }
    for n in ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
]
SCHEMA = strawberry.Schema(query=DashboardQuery)
ALICE = Scope(user_id="overview-alice")
OTHER = Scope(user_id="overview-other")
# What the dashboard's entity view opens on (service/api/dashboard_ui/queries.js, BUSIEST).
BUSIEST = """query($scope: ScopeInput!, $first: Int!, $asOf: DateTime) {
  entities(scope: $scope, sort: [{mentionCount: DESC}], first: $first) { __typename
    ... on EntityConnection { edges { node { name mentionCount } }
      links(asOf: $asOf) { source { name } target { name } kind support } } } }"""
# Current memories naming both entities of a pair, counted apart from the code under test.
CO_MENTIONS = """MATCH (a:Entity {user_id: $u})<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(b:Entity)
WHERE a.name IN $names AND b.name IN $names AND a.key < b.key AND m.invalidated_at IS NULL
RETURN a.name AS source, b.name AS target, count(DISTINCT m) AS support"""


async def busiest(
    mem: MemoryService, scope: Scope, first: int, as_of: str | None = None
) -> dict[str, Any]:
    result = await SCHEMA.execute(
        BUSIEST,
        variable_values={"scope": {"userId": scope.user_id}, "first": first, "asOf": as_of},
        context_value=RequestContext(mem, Principal.unrestricted("test")),
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    page: dict[str, Any] = result.data["entities"]
    assert page["__typename"] == "EntityConnection", page
    return page


def typed(page: dict[str, Any]) -> set[tuple[str, str, str, int]]:
    return {
        (link["source"]["name"], link["kind"], link["target"]["name"], link["support"])
        for link in page["links"]
        if link["kind"] != "MENTIONED_WITH"
    }


def co_mentioned(page: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {
        (link["source"]["name"], link["target"]["name"]): link["support"]
        for link in page["links"]
        if link["kind"] == "MENTIONED_WITH"
    }


@pytest.fixture
async def seeded(mem: MemoryService) -> None:
    """Alice's conversation; another tenant who says "Priya" far more often than she does."""
    alice = await mem.add(ALICE_CHAT, ALICE)
    assert len(alice.superseded) == 1  # "I live in Paris" gave way to Lyon
    await mem.add(OTHER_CHAT, OTHER)


async def test_the_busiest_entities_open_the_view_with_the_links_among_them(
    mem: MemoryService, neo4j_target: Neo4jTarget, seeded: None
) -> None:
    page = await busiest(mem, ALICE, first=4)
    nodes = [(e["node"]["name"], e["node"]["mentionCount"]) for e in page["edges"]]
    # Most mentioned first; Lyon and Priya tie at 2, broken by key.
    assert nodes == [("Alice", 6), ("Google", 4), ("Paris", 3), ("Lyon", 2)]
    # Typed relations among the four only (not Priya's or Berlin's), current ones only.
    assert typed(page) == {
        # "I work at Google", "Google moved my whole team", "My manager at Google"
        ("Alice", "WORKS_AT", "Google", 3),
        ("Google", "LOCATED_IN", "Paris", 1),
        ("Alice", "LIVES_IN", "Lyon", 1),
    }
    names = [name for name, _ in nodes]
    rows = await run_cypher(neo4j_target, CO_MENTIONS, u=ALICE.user_id, names=names)
    expected = {(r["source"], r["target"]): r["support"] for r in rows}
    assert expected and co_mentioned(page) == expected
    supports = [link["support"] for link in page["links"]]
    assert supports == sorted(supports, reverse=True)


async def test_as_of_shows_the_links_as_they_stood(mem: MemoryService, seeded: None) -> None:
    now = await busiest(mem, ALICE, first=3)
    before = await busiest(mem, ALICE, first=3, as_of="2024-02-15T00:00:00Z")
    assert ("Alice", "LIVES_IN", "Paris", 1) in typed(before) - typed(now)
    # "I live in Paris with my dog Max." was current then.
    assert co_mentioned(before)["Alice", "Paris"] == co_mentioned(now)["Alice", "Paris"] + 1


async def test_another_scope_neither_ranks_nor_links(mem: MemoryService, seeded: None) -> None:
    page = await busiest(mem, ALICE, first=10)
    counts = {e["node"]["name"]: e["node"]["mentionCount"] for e in page["edges"]}
    assert counts["Priya"] == 2 and "Zanzibar" not in counts  # not the other tenant's 8
    assert all(link["support"] <= 6 for link in page["links"])
    others = await busiest(mem, OTHER, first=10)
    assert {e["node"]["name"] for e in others["edges"]} == {"Alice", "Priya", "Zanzibar"}
    assert not {link["target"]["name"] for link in others["links"]} & {"Google", "Paris", "Lyon"}
    # The Cypher keeps to the scope even when handed another scope's keys.
    alice_keys = [e.node.key for e in (await mem.dashboard.entities(ALICE, first=10)).edges]
    assert await mem.dashboard.entity_links(ALICE, alice_keys)
    assert await mem.dashboard.entity_links(OTHER, alice_keys) == []
