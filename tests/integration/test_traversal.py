"""Multi-hop traversals against a real Neo4j: entity lookup, memories, neighbours, paths, hubs,
tenants, and the GraphQL fields over them. The graph is built through the real write path."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
import strawberry
from strawberry.extensions import MaskErrors

from service.api.context import RequestContext
from service.api.graph import GraphQuery
from service.api.schema import is_unexpected
from service.core.auth import Principal
from service.core.domain import Scope
from service.core.errors import NotFoundError, ValidationError
from service.memory import MemoryService
from service.retrieval.traversal import EntityNode, GraphTraversal, Neighbor
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
BOB = Scope(user_id="bob")
# Google - Priya Sharma - Lisbon - pottery is a chain; Bob - Rome is an island. "I work at
# Google" supersedes "I work at Microsoft", so Microsoft hangs off Priya Sharma only through a
# superseded memory, which no walk may use.
CHAIN = [
    {
        "speaker": "Alice",
        "timestamp": "2023-05-01T09:00:00Z",
        "content": "I work at Microsoft with Priya Sharma.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-01-10T09:00:00Z",
        "content": "I work at Google with Priya Sharma.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-01-11T09:00:00Z",
        "content": "Google hired Priya Sharma.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-03-10T09:00:00Z",
        "content": "Priya Sharma moved to Lisbon last year.",
    },
    {
        "speaker": "Alice",
        "timestamp": "2024-03-11T09:00:00Z",
        "content": "Lisbon has great pottery classes.",
    },
    {"speaker": "Alice", "timestamp": "2024-03-12T09:00:00Z", "content": "Bob visited Rome."},
]
# The other tenant: the same names, plus a link Alice's graph does not have.
BOB_ONLY = [
    {
        "speaker": "Bob",
        "timestamp": "2024-04-01T09:00:00Z",
        "content": "Google opened an office in Dublin.",
    }
]
# What the extractor makes of CHAIN (checked, so that a change there fails loudly here).
EXPECTED_MENTIONS = {
    # Said in the first person: the speaker is mentioned too (role "subject").
    "Alice works at Microsoft with Priya Sharma.": {"Alice", "Microsoft", "Priya Sharma"},
    "Alice works at Google with Priya Sharma.": {"Alice", "Google", "Priya Sharma"},
    "Google hired Priya Sharma.": {"Google", "Priya Sharma"},
    "Priya Sharma moved to Lisbon last year.": {"Priya Sharma", "Lisbon"},
    "Lisbon has great pottery classes.": {"Lisbon", "pottery"},
    "Bob visited Rome.": {"Bob", "Rome"},
}


@pytest.fixture
async def graph(mem: MemoryService, neo4j_target: Neo4jTarget) -> GraphTraversal:
    alice = await mem.add(CHAIN, ALICE)
    assert len(alice.added) == 6 and len(alice.superseded) == 1
    await mem.add(CHAIN + BOB_ONLY, BOB)
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {user_id: 'alice'})-[:MENTIONS]->(e:Entity) "
        "RETURN m.text AS text, collect(e.name) AS names",
    )
    assert {r["text"]: set(r["names"]) for r in rows} == EXPECTED_MENTIONS  # type: ignore[call-overload]
    return GraphTraversal(mem.db)


def names(neighbors: list[Neighbor]) -> list[tuple[str, int]]:
    return [(n.entity.name, n.distance) for n in neighbors]


async def entity(graph: GraphTraversal, name: str, scope: Scope = ALICE) -> EntityNode:
    return await graph.entity(name, scope)


async def test_entity_lookup_ignores_case_possessive_and_plural(graph: GraphTraversal) -> None:
    google = await graph.entity("GOOGLE's", ALICE)
    assert (google.name, google.type, google.mention_count) == ("Google", "ORG", 2)
    assert google.first_seen == datetime(2024, 1, 10, 9, tzinfo=UTC)
    assert google.last_seen == datetime(2024, 1, 11, 9, tzinfo=UTC)
    assert (await graph.entity(" potteries ", ALICE)).name == "pottery"
    assert (await graph.entity("priya sharma", ALICE, entity_type="person")).type == "PERSON"
    with pytest.raises(NotFoundError, match="no PERSON entity named 'Google' in this scope"):
        await graph.entity("Google", ALICE, entity_type="PERSON")
    with pytest.raises(NotFoundError, match="no entity named 'Atlantis' in this scope"):
        await graph.entity("Atlantis", ALICE)


@pytest.mark.parametrize(
    ("name", "entity_type", "message"),
    [
        ("   ", None, "name must not be empty"),
        ("x" * 201, None, "name is longer than 200 characters"),
        ("Google", "COMPANY", "type must be one of PERSON, ORG, PLACE, PRODUCT, EVENT, CONCEPT"),
        ("Goo\u0000gle", None, "control character U\\+0000"),
    ],
)
async def test_bad_lookups_are_rejected(
    graph: GraphTraversal, name: str, entity_type: str | None, message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        await graph.entity(name, ALICE, entity_type)


async def test_memories_are_current_unless_as_of(graph: GraphTraversal) -> None:
    priya = await entity(graph, "Priya Sharma")
    current = await graph.memories(priya, ALICE)
    assert [m.text for m in current] == [
        "Priya Sharma moved to Lisbon last year.",
        "Google hired Priya Sharma.",
        "Alice works at Google with Priya Sharma.",
    ]  # newest first; the superseded Microsoft memory is not among them
    assert [m.text for m in await graph.memories(priya, ALICE, limit=1)] == [current[0].text]
    then = await graph.memories(priya, ALICE, as_of=datetime(2023, 6, 1))  # naive = UTC
    assert [m.text for m in then] == ["Alice works at Microsoft with Priya Sharma."]
    with pytest.raises(ValidationError, match="limit must be between 1 and 200; got 0"):
        await graph.memories(priya, ALICE, limit=0)


async def test_one_hop_neighbors_with_support(graph: GraphTraversal) -> None:
    google = await entity(graph, "Google")
    # Alice, the speaker, said "I work at Google": she is mentioned as its subject.
    priya, alice = await graph.neighbors(google, ALICE)
    assert (priya.entity.name, priya.distance, priya.via, priya.support) == (
        "Priya Sharma",
        1,
        [],
        2,
    )
    assert (alice.entity.name, alice.entity.type, alice.support) == ("Alice", "PERSON", 1)
    around_priya = await graph.neighbors(priya.entity, ALICE)
    # Google in two memories, Alice and Lisbon in one; Microsoft only in a superseded memory.
    assert [(n.entity.name, n.support) for n in around_priya] == [
        ("Google", 2),
        ("Alice", 1),
        ("Lisbon", 1),
    ]


async def test_two_and_three_hops_with_distances_and_via(graph: GraphTraversal) -> None:
    google = await entity(graph, "Google")
    two = await graph.neighbors(google, ALICE, hops=2)
    assert names(two) == [("Priya Sharma", 1), ("Alice", 1), ("Lisbon", 2)]
    assert two[2].via == ["Priya Sharma"] and two[2].support == 1
    three = await graph.neighbors(google, ALICE, hops=3)
    assert names(three) == [("Priya Sharma", 1), ("Alice", 1), ("Lisbon", 2), ("pottery", 3)]
    assert three[3].via == ["Priya Sharma", "Lisbon"]
    assert names(await graph.neighbors(google, ALICE, hops=3, limit=2)) == names(three)[:2]
    for hops, limit, message in [
        (0, 25, "hops must be between 1 and 3; got 0"),
        (4, 25, "hops must be between 1 and 3; got 4"),
        (1, 101, "limit must be between 1 and 100; got 101"),
    ]:
        with pytest.raises(ValidationError, match=message):
            await graph.neighbors(google, ALICE, hops=hops, limit=limit)


async def test_path_returns_the_chain_with_its_evidence(graph: GraphTraversal) -> None:
    path = await graph.path("google", "Pottery", ALICE)
    assert [e.name for e in path.entities] == ["Google", "Priya Sharma", "Lisbon", "pottery"]
    assert [(s.from_entity.name, s.to_entity.name) for s in path.steps] == [
        ("Google", "Priya Sharma"),
        ("Priya Sharma", "Lisbon"),
        ("Lisbon", "pottery"),
    ]
    assert [[m.text for m in s.memories] for s in path.steps] == [
        ["Google hired Priya Sharma."],  # the WORKS_AT relation's memory
        ["Priya Sharma moved to Lisbon last year."],
        ["Lisbon has great pottery classes."],
    ]
    assert path.steps[0].kind == "WORKS_AT"
    assert all(m.user_id == "alice" for s in path.steps for m in s.memories)
    capped = await GraphTraversal(graph.store.db, memories_per_step=1).path(
        "Google", "pottery", ALICE
    )
    assert [len(s.memories) for s in capped.steps] == [1, 1, 1]
    same = await graph.path("Lisbon", "lisbon", ALICE)
    assert [e.name for e in same.entities] == ["Lisbon"] and same.steps == []


async def test_no_path_is_not_found(graph: GraphTraversal) -> None:
    # Beyond maxHops, between islands, and through a superseded memory only: NotFoundError.
    with pytest.raises(NotFoundError, match="no path from 'Google' to 'pottery' within 2 hops"):
        await graph.path("Google", "pottery", ALICE, max_hops=2)
    assert len((await graph.path("Google", "pottery", ALICE, max_hops=3)).steps) == 3
    with pytest.raises(NotFoundError, match="no path from 'Google' to 'Rome'"):
        await graph.path("Google", "Rome", ALICE, max_hops=4)
    with pytest.raises(NotFoundError, match="no path from 'Google' to 'Microsoft'"):
        await graph.path("Google", "Microsoft", ALICE, max_hops=4)
    with pytest.raises(NotFoundError, match="no entity named 'Atlantis'"):
        await graph.path("Google", "Atlantis", ALICE)
    with pytest.raises(ValidationError, match="maxHops must be between 1 and 4; got 5"):
        await graph.path("Google", "pottery", ALICE, max_hops=5)
    with pytest.raises(ValidationError, match="to must not be empty"):
        await graph.path("Google", " ", ALICE)


async def test_hubs_are_reached_but_not_walked_through(graph: GraphTraversal) -> None:
    # Mentions: Priya Sharma 4 (one by the superseded memory), Google 2, Lisbon 2, pottery 1.
    strict = GraphTraversal(graph.store.db, hub_limit=3)
    pottery = await entity(strict, "pottery")
    assert names(await graph.neighbors(pottery, ALICE, hops=3)) == [
        ("Lisbon", 1),
        ("Priya Sharma", 2),
        ("Google", 3),
        ("Alice", 3),
    ]
    # Priya Sharma is now a hub: still a neighbour, but nothing beyond her.
    assert names(await strict.neighbors(pottery, ALICE, hops=3)) == [
        ("Lisbon", 1),
        ("Priya Sharma", 2),
    ]
    # A path may leave the hub only through a typed relation, never through a co-mention.
    try:
        through = await strict.path("pottery", "Google", ALICE, max_hops=4)
    except NotFoundError:
        through = None
    leaving = [s for s in through.steps if s.from_entity.name == "Priya Sharma"] if through else []
    assert all(s.kind != "MENTIONED_WITH" for s in leaving)
    # A hub is walked from when it is where the walk starts.
    priya = await entity(strict, "Priya Sharma")
    assert names(await strict.neighbors(priya, ALICE, hops=2)) == [
        ("Google", 1),
        ("Alice", 1),
        ("Lisbon", 1),
        ("pottery", 2),
    ]


async def test_another_tenant_with_the_same_names_never_shows(graph: GraphTraversal) -> None:
    alice_google, bob_google = await entity(graph, "Google"), await entity(graph, "Google", BOB)
    assert alice_google.key != bob_google.key
    assert names(await graph.neighbors(bob_google, BOB)) == [
        ("Priya Sharma", 1),
        ("Alice", 1),
        ("Dublin", 1),
    ]
    seen = await graph.neighbors(alice_google, ALICE, hops=3)
    assert "Dublin" not in {n.entity.name for n in seen}
    assert all(n.entity.key.startswith("alice\x1f") for n in seen)
    with pytest.raises(NotFoundError):
        await graph.entity("Dublin", ALICE)
    # Bob's Google node reached with Alice's scope: the scope check holds even for a known key.
    assert await graph.neighbors(bob_google, ALICE) == []
    assert await graph.memories(bob_google, ALICE) == []
    path = await graph.path("Google", "pottery", ALICE)
    assert all(m.user_id == "alice" for s in path.steps for m in s.memories)


SCHEMA = strawberry.Schema(
    query=GraphQuery, extensions=[partial(MaskErrors, should_mask_error=is_unexpected)]
)
ENTITY = """
query Entity($name: String!, $scope: ScopeInput!, $type: String, $hops: Int = 1,
             $asOf: DateTime) {
  entity(name: $name, scope: $scope, type: $type) {
    __typename
    ... on Entity {
      name type aliases mentionCount firstSeen
      memories(limit: 5, asOf: $asOf) { text saidAt }
      neighbors(hops: $hops) { distance via support entity { name type } }
    }
    ... on NotFound { message }
    ... on InvalidInput { message }
    ... on Forbidden { message }
  }
}"""
PATH = """
query Path($from: String!, $to: String!, $scope: ScopeInput!, $maxHops: Int = 3) {
  path(from: $from, to: $to, scope: $scope, maxHops: $maxHops) {
    __typename
    ... on EntityPath {
      entities { name }
      steps { from { name } to { name } memories { id text } }
    }
    ... on NotFound { message }
    ... on InvalidInput { message }
  }
}"""


async def execute(
    mem: MemoryService, query: str, principal: Principal | None = None, **variables: Any
) -> tuple[dict[str, Any] | None, list[str]]:
    result = await SCHEMA.execute(
        query,
        variable_values=variables,
        context_value=RequestContext(mem, principal or Principal.unrestricted("test")),
    )
    return result.data, [e.message for e in result.errors or []]


async def gql(
    mem: MemoryService, query: str, principal: Principal | None = None, **variables: Any
) -> tuple[dict[str, Any], list[str]]:
    data, errors = await execute(mem, query, principal, **variables)
    assert data is not None, errors
    return data, errors


async def test_graphql_entity_with_memories_and_neighbors(
    mem: MemoryService, graph: GraphTraversal
) -> None:
    data, errors = await gql(mem, ENTITY, name="google", scope={"userId": "alice"}, hops=2)
    google = data["entity"]
    assert errors == [] and google["__typename"] == "Entity"
    assert (google["name"], google["type"], google["aliases"], google["mentionCount"]) == (
        "Google",
        "ORG",
        ["Google"],
        2,
    )
    assert google["firstSeen"].startswith("2024-01-10T09:00:00")
    assert [m["text"] for m in google["memories"]] == [
        "Google hired Priya Sharma.",
        "Alice works at Google with Priya Sharma.",
    ]
    assert google["neighbors"] == [
        {
            "distance": 1,
            "via": [],
            "support": 2,
            "entity": {"name": "Priya Sharma", "type": "PERSON"},
        },
        {"distance": 1, "via": [], "support": 1, "entity": {"name": "Alice", "type": "PERSON"}},
        {
            "distance": 2,
            "via": ["Priya Sharma"],
            "support": 1,
            "entity": {"name": "Lisbon", "type": "PLACE"},
        },
    ]
    data, _ = await gql(
        mem, ENTITY, name="Microsoft", scope={"userId": "alice"}, asOf="2023-06-01T00:00:00Z"
    )
    assert [m["text"] for m in data["entity"]["memories"]] == [
        "Alice works at Microsoft with Priya Sharma."
    ]
    assert data["entity"]["neighbors"] == []  # its only link is superseded


NESTED = """
query Nested($scope: ScopeInput!) {
  entity(name: "Google", scope: $scope) {
    ... on Entity {
      neighbors(hops: 3) { entity { name memories(limit: 5) { text } } }
    }
  }
}"""


async def test_nested_memories_load_in_one_query_per_request(
    mem: MemoryService, graph: GraphTraversal, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real_read = mem.db.read

    async def counting_read(name: str, *args: Any, **kwargs: Any) -> Any:
        reads.append(name)
        return await real_read(name, *args, **kwargs)

    monkeypatch.setattr(mem.db, "read", counting_read)
    data, errors = await gql(mem, NESTED, scope={"userId": "alice"})
    neighbors = data["entity"]["neighbors"]
    assert errors == [] and len(neighbors) == 4  # Priya Sharma, Alice, Lisbon, pottery
    assert reads.count("fetch_entity_memories") == 1
    for neighbor in neighbors:  # the same answer as asking for each entity alone
        alone = await graph.memories(await entity(graph, neighbor["entity"]["name"]), ALICE, 5)
        assert [m["text"] for m in neighbor["entity"]["memories"]] == [m.text for m in alone]
        assert alone


async def test_graphql_expected_failures(mem: MemoryService, graph: GraphTraversal) -> None:
    data, _ = await gql(mem, ENTITY, name="Dublin", scope={"userId": "alice"})
    assert data["entity"] == {
        "__typename": "NotFound",
        "message": "no entity named 'Dublin' in this scope",
    }
    data, _ = await gql(mem, ENTITY, name="Google", scope={}, type="ORG")
    assert data["entity"]["__typename"] == "InvalidInput"
    alice_app = Principal("alice-app", frozenset({"alice"}), frozenset({"*"}), frozenset({"*"}))
    data, _ = await gql(mem, ENTITY, alice_app, name="Google", scope={"userId": "bob"})
    assert data["entity"]["__typename"] == "Forbidden"
    # A nested list cannot be a union: its expected failure is an error with a readable message
    # (and, `entity` being non-null, no data).
    failed, errors = await execute(mem, ENTITY, name="Google", scope={"userId": "alice"}, hops=4)
    assert failed is None and errors == ["hops must be between 1 and 3; got 4"]


async def path_of(
    mem: MemoryService, source: str, target: str, user: str = "alice", **variables: Any
) -> tuple[dict[str, Any], list[str]]:
    variables.update({"from": source, "to": target, "scope": {"userId": user}})
    data, errors = await gql(mem, PATH, **variables)
    return data["path"], errors


async def test_graphql_path(mem: MemoryService, graph: GraphTraversal) -> None:
    path, errors = await path_of(mem, "Google", "pottery")
    assert errors == [] and path["__typename"] == "EntityPath"
    assert [e["name"] for e in path["entities"]] == ["Google", "Priya Sharma", "Lisbon", "pottery"]
    steps = [(s["from"]["name"], s["to"]["name"], len(s["memories"])) for s in path["steps"]]
    assert steps == [
        # A typed step: "Google hired Priya Sharma" is WORKS_AT, its one memory the evidence.
        ("Google", "Priya Sharma", 1),
        ("Priya Sharma", "Lisbon", 1),
        ("Lisbon", "pottery", 1),
    ]
    assert (await path_of(mem, "Google", "pottery", maxHops=2))[0] == {
        "__typename": "NotFound",
        "message": "no path from 'Google' to 'pottery' within 2 hops in this scope",
    }
    assert (await path_of(mem, "Google", "pottery", maxHops=9))[0] == {
        "__typename": "InvalidInput",
        "message": "maxHops must be between 1 and 4; got 9",
    }
    bob_path, _ = await path_of(mem, "Google", "Dublin", user="bob")
    assert [e["name"] for e in bob_path["entities"]] == ["Google", "Dublin"]
