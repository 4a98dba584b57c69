"""Dashboard queries through GraphQL against a real Neo4j: filters, sort, pages, counts, tenants."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import strawberry
from strawberry.tools import merge_types

from service.api.dashboard import DashboardQuery
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.graphql_calls import graphql_caller

SCHEMA = strawberry.Schema(query=DashboardQuery)
ALICE = {"userId": "alice"}
MALLORY = {"userId": "mallory"}
# Two speakers over four months; one message holds two facts said at the same instant. The
# write path supersedes "Bob lives in Boston." and "Bob joined Microsoft in Seattle.".
CONVERSATION = [
    {
        "speaker": "Alice",
        "timestamp": "2024-01-05T09:00:00Z",
        "content": "I work at Google as an engineer.",
    },
    {"speaker": "Bob", "timestamp": "2024-01-05T09:05:00Z", "content": "I live in Boston."},
    {
        "speaker": "Alice",
        "timestamp": "2024-01-20T18:00:00Z",
        "content": "I started learning Rust yesterday.",
    },
    {
        "speaker": "Bob",
        "timestamp": "2024-02-03T10:00:00Z",
        "content": "I visited Paris with my sister.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-02-14T12:00:00Z",
        "content": "I adopted a puppy named Max. I went hiking in Denver last weekend.",
    },
    {
        "speaker": "Bob",
        "timestamp": "2024-03-02T08:30:00Z",
        "content": "I joined Microsoft in Seattle.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-03-03T21:00:00Z",
        "content": "I bought a red bicycle last week.",
    },
    {"speaker": "Bob", "timestamp": "2024-04-10T07:00:00Z", "content": "I moved to Seattle."},
    {"speaker": "Bob", "timestamp": "2024-04-12T07:00:00Z", "content": "我在阿里巴巴集团工作。"},
]
# Another tenant, with the same speaker name and overlapping entities.
OTHER_TENANT = [
    {
        "speaker": "Alice",
        "timestamp": "2024-02-14T12:00:00Z",
        "content": "I live in Boston and work at Google.",
    }
]
# Each memory of the conversation by a word of its text (the first that matches, in order).
LABELS = [
    "Google",
    "Boston",
    "Rust",
    "Paris",
    "Max",
    "Denver",
    "Microsoft",
    "bicycle",
    "Seattle",
    "阿里巴巴",
]

MEMORIES = """
query Memories($scope: ScopeInput!, $where: MemoryWhereInput, $sort: [MemorySortInput!],
               $first: Int = 20, $after: String, $asOf: DateTime) {
  memories(scope: $scope, where: $where, sort: $sort, first: $first, after: $after,
           asOf: $asOf) {
    __typename
    ... on MemoryConnection {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id text speaker saidAt validFrom invalidatedAt confidence } }
    }
    ... on InvalidInput { message }
  }
}"""
ENTITIES = """
query Entities($scope: ScopeInput!, $where: EntityWhereInput, $sort: [EntitySortInput!],
               $first: Int = 20, $after: String) {
  entities(scope: $scope, where: $where, sort: $sort, first: $first, after: $after) {
    __typename
    ... on EntityConnection {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { name type aliases firstSeen lastSeen mentionCount } }
    }
    ... on InvalidInput { message }
  }
}"""
TIMELINE = """
query Timeline($scope: ScopeInput!, $bucket: Bucket!, $clock: Clock = SAID, $from: DateTime,
               $to: DateTime) {
  timeline(scope: $scope, bucket: $bucket, clock: $clock, from: $from, to: $to) {
    bucketStart count
  }
}"""
COUNTS = """
query Counts($scope: ScopeInput!) {
  entityTypeCounts(scope: $scope) { type count }
  stats(scope: $scope) {
    memories currentMemories superseded messages entities mentions events firstSaidAt lastSaidAt
  }
}"""


gql = graphql_caller(SCHEMA)


async def memories(mem: MemoryService, **variables: Any) -> dict[str, Any]:
    variables.setdefault("scope", ALICE)
    data: dict[str, Any] = (await gql(mem, MEMORIES, **variables))["memories"]
    return data


def label(text: str) -> str:
    return next(word for word in LABELS if word in text)


def labels(page: dict[str, Any]) -> list[str]:
    assert page["__typename"] == "MemoryConnection", page
    return [label(e["node"]["text"]) for e in page["edges"]]


@pytest.fixture
async def seeded(mem: MemoryService) -> dict[str, list[str]]:
    """The conversation in alice's scope and one message of another tenant; ids by tenant."""
    alice = await mem.add(CONVERSATION, Scope(user_id="alice"))
    mallory = await mem.add(OTHER_TENANT, Scope(user_id="mallory"))
    assert len(alice.added) == 10 and len(alice.superseded) == 2
    return {"alice": alice.added, "mallory": mallory.added}


JAN, FEB, MAR = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"
FILTERS: list[tuple[dict[str, Any], set[str]]] = [
    ({}, set(LABELS)),
    ({"current": True}, set(LABELS) - {"Boston", "Microsoft"}),
    ({"current": False}, {"Boston", "Microsoft"}),
    ({"speaker": {"eq": "Bob"}}, {"Boston", "Paris", "Microsoft", "Seattle", "阿里巴巴"}),
    ({"speaker": {"contains": "ALI"}, "saidAt": {"lt": FEB}}, {"Google", "Rust"}),
    ({"text": {"contains": "SEATTLE"}}, {"Microsoft", "Seattle"}),
    ({"text": {"startsWith": "Bob v"}}, {"Paris"}),
    ({"text": {"in": ["Bob moved to Seattle.", "nothing like it"]}}, {"Seattle"}),
    ({"saidAt": {"eq": "2024-02-14T13:00:00+01:00"}}, {"Max", "Denver"}),  # the same instant
    ({"AND": [{"saidAt": {"gte": FEB}}, {"saidAt": {"lt": MAR}}]}, {"Paris", "Max", "Denver"}),
    # Bought "last week" on March 3rd: happened in February, said in March.
    ({"happenedStart": {"gte": FEB, "lt": MAR}}, {"Paris", "Max", "Denver", "bicycle"}),
    (
        {"OR": [{"entityType": {"eq": "ORG"}}, {"entityName": {"contains": "pari"}}]},
        {"Google", "Microsoft", "阿里巴巴", "Paris"},
    ),
    ({"entityType": {"in": ["PLACE"]}, "NOT": {"speaker": {"eq": "Bob"}}}, {"Denver"}),
    (
        {"NOT": {"OR": [{"speaker": {"eq": "Bob"}}, {"text": {"contains": "puppy"}}]}},
        {"Google", "Rust", "Denver", "bicycle"},
    ),
    # Cypher nulls, as in @neo4j/graphql: an undated memory matches neither this nor its NOT.
    ({"NOT": {"OR": [{"speaker": {"eq": "Bob"}}, {"validFrom": {"gte": JAN}}]}}, set()),
    ({"validFrom": {"gte": FEB}}, {"Denver", "bicycle"}),
    ({"lang": {"eq": "zh"}}, {"阿里巴巴"}),
    ({"confidence": {"gt": 0.5, "lte": 1.0}}, set(LABELS)),
    ({"entityName": {"eq": "Boston"}, "current": True}, set()),
]


@pytest.mark.parametrize("where, expected", FILTERS)
async def test_where_filters_select_the_right_memories(
    mem: MemoryService, seeded: dict[str, list[str]], where: dict[str, Any], expected: set[str]
) -> None:
    page = await memories(mem, where=where, first=100)
    assert set(labels(page)) == expected
    assert page["totalCount"] == len(expected) == len(page["edges"])


async def test_as_of_shows_the_graph_as_it_stood(
    mem: MemoryService, seeded: dict[str, list[str]]
) -> None:
    then = await memories(mem, asOf=MAR, where={"current": True}, first=100)
    # Said by March and still current then: Boston was superseded only later.
    assert set(labels(then)) == {"Google", "Boston", "Rust", "Paris", "Max", "Denver"}


async def test_sort_orders(mem: MemoryService, seeded: dict[str, list[str]]) -> None:
    newest = await memories(mem, first=100)
    said = [e["node"]["saidAt"] for e in newest["edges"]]
    assert said == sorted(said, reverse=True) and labels(newest)[0] == "阿里巴巴"
    oldest = await memories(mem, sort=[{"saidAt": "ASC"}], first=100)
    assert labels(oldest)[:2] == ["Google", "Boston"]
    happened = await memories(mem, sort=[{"validFrom": "ASC"}], first=100)
    assert labels(happened)[:3] == ["Rust", "Denver", "bicycle"]  # then the undated ones
    assert all(e["node"]["validFrom"] is None for e in happened["edges"][3:])
    happened_desc = await memories(mem, sort=[{"validFrom": "DESC"}], first=100)
    assert labels(happened_desc)[:3] == ["bicycle", "Denver", "Rust"]  # nulls last here too


def in_order(edges: list[dict[str, Any]], key: str, descending: bool) -> bool:
    """Sorted by `key`, ties broken by ascending id."""
    rows = [(e["node"][key], e["node"]["id"]) for e in edges]
    return rows == sorted(rows, key=lambda r: (-_rank(r[0]) if descending else _rank(r[0]), r[1]))


def _rank(value: Any) -> float:
    return datetime.fromisoformat(value).timestamp() if isinstance(value, str) else float(value)


@pytest.mark.parametrize(
    "sort, where, check",
    [
        (None, None, ("saidAt", True)),
        ([{"confidence": "DESC"}], None, ("confidence", True)),  # all tie: id order decides
        ([{"saidAt": "ASC"}], {"speaker": {"eq": "Alice"}}, ("saidAt", False)),
        ([{"validFrom": "ASC"}, {"saidAt": "DESC"}], None, None),
    ],
)
async def test_pages_walk_every_memory_once_in_order(
    mem: MemoryService,
    seeded: dict[str, list[str]],
    sort: list[dict[str, str]] | None,
    where: dict[str, Any] | None,
    check: tuple[str, bool] | None,
) -> None:
    whole = await memories(mem, sort=sort, where=where, first=100)
    walked: list[dict[str, Any]] = []
    after = None
    while True:
        page = await memories(mem, sort=sort, where=where, first=2, after=after)
        assert page["totalCount"] == whole["totalCount"]
        assert page["pageInfo"]["hasPreviousPage"] is (after is not None)
        assert 1 <= len(page["edges"]) <= 2
        walked.extend(page["edges"])
        assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    ids = [e["node"]["id"] for e in walked]
    assert len(ids) == len(set(ids)) == whole["totalCount"]
    assert ids == [e["node"]["id"] for e in whole["edges"]]
    if check:
        assert in_order(walked, *check)


@pytest.mark.parametrize(
    "variables, message",
    [
        ({"first": 0}, "first"),
        ({"first": 101}, "first"),
        ({"after": "bm90IGEgY3Vyc29y"}, "not a cursor"),
        ({"sort": [{"saidAt": "ASC", "confidence": "DESC"}]}, "exactly one"),
        ({"where": {"NOT": {"NOT": {"NOT": {"NOT": {"NOT": {"current": True}}}}}}}, "deeper"),
        ({"scope": {}}, "at least one"),
    ],
)
async def test_bad_input_comes_back_typed(
    mem: MemoryService, seeded: dict[str, list[str]], variables: dict[str, Any], message: str
) -> None:
    page = await memories(mem, **variables)
    assert page["__typename"] == "InvalidInput" and message in page["message"]


async def test_a_cursor_of_another_sort_is_refused(
    mem: MemoryService, seeded: dict[str, list[str]]
) -> None:
    page = await memories(mem, first=2)
    other = await memories(mem, sort=[{"saidAt": "ASC"}], after=page["pageInfo"]["endCursor"])
    assert other["__typename"] == "InvalidInput" and "different sort" in other["message"]


@pytest.mark.parametrize(
    "bucket, clock, bounds, expected",
    [
        (
            "DAY",
            "SAID",
            {},
            {
                "2024-01-05": 2,
                "2024-01-20": 1,
                "2024-02-03": 1,
                "2024-02-14": 2,
                "2024-03-02": 1,
                "2024-03-03": 1,
                "2024-04-10": 1,
                "2024-04-12": 1,
            },
        ),
        (
            "WEEK",
            "SAID",
            {},
            {
                "2024-01-01": 2,
                "2024-01-15": 1,
                "2024-01-29": 1,
                "2024-02-12": 2,
                "2024-02-26": 2,
                "2024-04-08": 2,
            },
        ),
        ("MONTH", "SAID", {}, {"2024-01-01": 3, "2024-02-01": 3, "2024-03-01": 2, "2024-04-01": 2}),
        (
            "MONTH",
            "HAPPENED",
            {},
            {"2024-01-01": 3, "2024-02-01": 4, "2024-03-01": 1, "2024-04-01": 2},
        ),
        (
            "MONTH",
            "SAID",
            {"from": FEB, "to": "2024-04-01T00:00:00Z"},
            {"2024-02-01": 3, "2024-03-01": 2},
        ),
    ],
)
async def test_timeline_buckets(
    mem: MemoryService,
    seeded: dict[str, list[str]],
    bucket: str,
    clock: str,
    bounds: dict[str, str],
    expected: dict[str, int],
) -> None:
    data = await gql(mem, TIMELINE, scope=ALICE, bucket=bucket, clock=clock, **bounds)
    got = {row["bucketStart"]: row["count"] for row in data["timeline"]}
    assert got == expected
    assert [row["bucketStart"] for row in data["timeline"]] == sorted(got)


async def test_entity_type_counts_and_stats(
    mem: MemoryService, seeded: dict[str, list[str]], neo4j_target: Neo4jTarget
) -> None:
    data = await gql(mem, COUNTS, scope=ALICE)
    assert data["entityTypeCounts"] == [
        # The speakers Alice and Bob are people too.
        {"type": "PLACE", "count": 4},
        {"type": "ORG", "count": 3},
        {"type": "PERSON", "count": 3},
        {"type": "CONCEPT", "count": 1},
        {"type": "PRODUCT", "count": 1},  # Rust, a named tool
    ]
    assert data["stats"] == {
        # Ten first-person facts mention their speaker too.
        "memories": 10,
        "currentMemories": 8,
        "superseded": 2,
        "messages": 9,
        "entities": 12,
        "mentions": 21,
        "events": 12,
        "firstSaidAt": "2024-01-05T09:00:00+00:00",
        "lastSaidAt": "2024-04-12T07:00:00+00:00",
    }
    events = await run_cypher(
        neo4j_target, "MATCH (e:MemoryEvent {user_id: 'alice'}) RETURN count(e) AS n"
    )
    assert events[0]["n"] == data["stats"]["events"]


async def test_entities_filter_sort_and_page(
    mem: MemoryService, seeded: dict[str, list[str]]
) -> None:
    async def entities(**variables: Any) -> dict[str, Any]:
        data: dict[str, Any] = (await gql(mem, ENTITIES, scope=ALICE, **variables))["entities"]
        assert data["__typename"] == "EntityConnection", data
        return data

    def names(page: dict[str, Any]) -> list[str]:
        return [e["node"]["name"] for e in page["edges"]]

    everything = await entities(first=100)
    assert everything["totalCount"] == 12 and names(everything) == sorted(names(everything))
    assert {"Alice", "Bob"} <= set(names(everything))  # the speakers
    things = {"NOT": {"type": {"eq": "PERSON"}}}
    busiest = await entities(where=things, sort=[{"mentionCount": "DESC"}], first=1)
    assert busiest["edges"][0]["node"]["name"] == "Seattle"
    assert busiest["edges"][0]["node"]["mentionCount"] == 2
    orgs = await entities(where={"type": {"in": ["ORG"]}, "NOT": {"name": {"startsWith": "M"}}})
    assert set(names(orgs)) == {"Google", "阿里巴巴集团"} and orgs["totalCount"] == 2
    either = await entities(
        where={"OR": [{"name": {"contains": "SEA"}}, {"type": {"eq": "PERSON"}}]}
    )
    assert set(names(either)) == {"Seattle", "Max", "Alice", "Bob"}
    recent = await entities(where={"lastSeen": {"gt": MAR}, **things}, sort=[{"lastSeen": "DESC"}])
    assert names(recent) == ["阿里巴巴集团", "Seattle", "Microsoft"]
    walked, after = [], None
    while True:
        page = await entities(first=3, after=after)
        walked += names(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert walked == names(everything)


async def test_another_tenant_never_shows_up(
    mem: MemoryService, seeded: dict[str, list[str]]
) -> None:
    theirs = set(seeded["mallory"])
    for where in [
        {},
        {"speaker": {"eq": "Alice"}},
        {"entityName": {"eq": "Boston"}},
        {"text": {"contains": "work at Google"}},
    ]:
        page = await memories(mem, where=where, first=100)
        assert not theirs & {e["node"]["id"] for e in page["edges"]}
    alone = await memories(mem, scope=MALLORY, first=100)
    assert {e["node"]["id"] for e in alone["edges"]} == theirs and alone["totalCount"] == 1
    data = await gql(mem, COUNTS, scope=MALLORY)
    assert data["stats"]["memories"] == 1 and data["stats"]["messages"] == 1
    assert sum(row["count"] for row in data["entityTypeCounts"]) == data["stats"]["entities"] == 3
    timeline = await gql(mem, TIMELINE, scope=MALLORY, bucket="MONTH")
    assert timeline["timeline"] == [{"bucketStart": "2024-02-01", "count": 1}]
    mine = await gql(mem, ENTITIES, scope=ALICE, where={"name": {"eq": "Boston"}})
    assert mine["entities"]["totalCount"] == 1  # alice's own Boston, not mallory's
    assert mine["entities"]["edges"][0]["node"]["lastSeen"].startswith("2024-01-05")


INJECTIONS = ["') OR 1=1 //", "` MATCH (n) DETACH DELETE n", 'x"}) MATCH (n) DETACH DELETE n //']


async def graph_size(target: Neo4jTarget) -> tuple[int, int]:
    nodes = await run_cypher(target, "MATCH (n) RETURN count(n) AS n")
    edges = await run_cypher(target, "MATCH ()-[r]->() RETURN count(r) AS n")
    return int(nodes[0]["n"]), int(edges[0]["n"])  # type: ignore[call-overload]


@pytest.mark.parametrize("attack", INJECTIONS)
async def test_injection_attempts_in_values_are_harmless(
    mem: MemoryService, seeded: dict[str, list[str]], neo4j_target: Neo4jTarget, attack: str
) -> None:
    before = await graph_size(neo4j_target)
    wheres = [
        {"text": {"contains": attack}},
        {"text": {"eq": attack}},
        {"text": {"in": [attack]}},
        {"speaker": {"eq": attack}},
        {"entityName": {"contains": attack}},
        {"entityType": {"in": [attack]}},
        {"lang": {"eq": attack}},
        {"OR": [{"text": {"startsWith": attack}}, {"NOT": {"speaker": {"contains": attack}}}]},
    ]
    for where in wheres[:-1]:
        page = await memories(mem, where=where)
        assert page["totalCount"] == 0, where
    assert (await memories(mem, where=wheres[-1], first=100))["totalCount"] == 10
    assert (await memories(mem, scope={"userId": attack}))["totalCount"] == 0
    forged = await memories(mem, after=attack)
    assert forged["__typename"] == "InvalidInput"
    found = await gql(
        mem, ENTITIES, scope=ALICE, where={"name": {"contains": attack}, "type": {"eq": attack}}
    )
    assert found["entities"]["totalCount"] == 0
    assert await graph_size(neo4j_target) == before
    assert (await memories(mem))["totalCount"] == 10


def test_merges_into_the_root_schema() -> None:
    from service.api.schema import Mutation, Query

    merged = strawberry.Schema(
        query=merge_types("Query", (Query, DashboardQuery)), mutation=Mutation
    )
    sdl = str(merged)
    for field in ["search(", "memories(", "entities(", "timeline(", "entityTypeCounts(", "stats("]:
        assert field in sdl
