"""Tenant isolation as one suite: with Bob's key, no GraphQL field and no Python method reaches
anything of Alice's, though both tenants talk about Paris, Google and Max the dog through a
speaker of the same name, with the same message ids and dates.

Every field of Query and Mutation (and every field with arguments below them, such as
`Entity.neighbors`) has a check in CHECKS; `test_every_field_has_an_isolation_check` walks the
schema and fails on a field without one, so a new resolver cannot ship unchecked. Around each
check: every string Bob got back is searched for Alice's markers and ids, Alice's nodes and
edges (all properties, access counts included) must be exactly as before, and no edge may join
the two tenants. The read audit is on, so Alice has read events for `readAudit` to withhold.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from service.api.schema import schema
from service.core.domain import Scope
from service.core.errors import NotFoundError
from service.memory import MemoryService
from service.retrieval.traversal import GraphTraversal
from service.store.filters import MemoryWhere
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice-tenant")
BOB = Scope(user_id="bob-tenant")
KEY_ALICE = "alice-tenant-key-0123"
KEY_BOB = "bob-tenant-key-456789"
MARKER = "alice"  # in Alice's texts, her user id and her principal; never in Bob's
SPEAKER = "Jordan"  # both tenants' speaker


def _messages(texts: list[str]) -> list[dict[str, Any]]:
    days = ["2024-05-06", "2024-05-13", "2024-06-03", "2024-06-10"]
    return [
        {"id": f"m{i}", "content": text, "speaker": SPEAKER, "timestamp": f"{days[i]}T10:00:00Z"}
        for i, text in enumerate(texts)
    ]


ALICE_MESSAGES = _messages(
    [
        "I moved to Paris last March and hid the alice-secret ledger in Zanzibar.",
        "I work at Google in Paris on the alice-secret Orchid project with Priya. "
        "I went climbing after work.",
        "Max the dog is my golden retriever and he guards the alice-secret key. "
        "I went climbing at dawn.",
        "Google sent me to Paris for the alice-secret merger talks, and Max the dog came along. "
        "I went climbing in the evening.",
    ]
)
BOB_MESSAGES = _messages(
    [
        "I visited Paris in May for the Reykjavik climate summit with Lena.",
        "I interviewed at Google for a data engineering role in Dublin. I went climbing after.",
        "Max the dog belongs to my neighbour and barks at the mail carrier. I went climbing.",
        "Lena and I walked Max the dog through Paris after the summit. I went climbing later.",
    ]
)
# Both tenants climb on three days: each has an inferred LIKES with its own evidence.
# What Bob asks for: shared names, Alice-only names, Alice's very words.
PROBES = [
    "Paris",
    "Google",
    "Max the dog",
    f"what did {SPEAKER} say",
    "Zanzibar ledger",
    "Priya",
    "alice-secret",
    *[m["content"] for m in ALICE_MESSAGES],
]
WHEN = [
    None,
    {"phrase": "last month", "referenceTime": "2024-06-15T00:00:00Z"},
    {"clock": "HAPPENED", "from": "2024-01-01T00:00:00Z", "to": "2025-01-01T00:00:00Z"},
    {"clock": "SAID", "from": "2024-05-01T00:00:00Z", "to": "2024-07-01T00:00:00Z"},
]
ADD_MESSAGES = """mutation($m: [MessageInput!]!, $s: ScopeInput!, $mode: AddMode! = SYNC) {
  addMessages(messages: $m, scope: $s, mode: $mode) { __typename
    ... on AddMessagesSuccess { messageIds added updated unchanged pending } } }"""


@dataclasses.dataclass
class Tenants:
    """Two seeded tenants, Bob's GraphQL client, and every response Bob received."""

    http: httpx.AsyncClient
    mem: MemoryService
    target: Neo4jTarget
    responses: list[Any] = dataclasses.field(default_factory=list)

    async def as_key(self, key: str, query: str, **variables: Any) -> Any:
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers={"X-API-Key": key}
        )
        body = response.json()
        assert "errors" not in body, body
        return body["data"]

    async def bob(self, query: str, **variables: Any) -> Any:
        """A request with Bob's key; the response is kept for the leak scan."""
        data = await self.as_key(KEY_BOB, query, **variables)
        self.responses.append(data)
        return data

    async def ids(self, label: str, scope: Scope) -> set[str]:
        rows = await run_cypher(
            self.target, f"MATCH (n:{label} {{user_id: $u}}) RETURN n.id AS id", u=scope.user_id
        )
        return {str(r["id"]) for r in rows}

    async def count(self, cypher: str) -> int:
        rows = await run_cypher(self.target, cypher, u=BOB.user_id)
        return int(rows[0]["n"])


@pytest.fixture
async def tenants(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[Tenants]:
    audited = dataclasses.replace(
        mem, settings=mem.settings.model_copy(update={"audit_reads": True})
    )
    settings = neo4j_target.settings(
        audit_reads=True,
        api_keys={
            KEY_ALICE: {"principal": "alice-app", "user_ids": [ALICE.user_id]},
            KEY_BOB: {"principal": "bob-app", "user_ids": [BOB.user_id]},
        },
    )
    transport = httpx.ASGITransport(app=create_app(settings, memory=audited))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        t = Tenants(http, audited, neo4j_target)
        for key, scope, messages in (
            (KEY_ALICE, ALICE, ALICE_MESSAGES),
            (KEY_BOB, BOB, BOB_MESSAGES),
        ):
            added = await t.as_key(key, ADD_MESSAGES, m=messages, s={"userId": scope.user_id})
            assert added["addMessages"]["added"], added
        # Alice's deferred add waits (no worker runs here) while Bob asks everything.
        waiting = [{**m, "id": f"later-{m['id']}"} for m in ALICE_MESSAGES]
        deferred = await t.as_key(
            KEY_ALICE, ADD_MESSAGES, m=waiting, s={"userId": ALICE.user_id}, mode="DEFERRED"
        )
        assert deferred["addMessages"]["pending"], deferred
        search = """query { search(query: "alice-secret ledger", scope: {userId: "alice-tenant"})
          { __typename } }"""
        await t.as_key(KEY_ALICE, search)  # a read event of Alice's for readAudit to withhold
        yield t


# --- what "nothing of Alice's" means ------------------------------------------------------------

ALICE_NODES = "MATCH (n {user_id: $u}) RETURN labels(n) AS labels, properties(n) AS props"
ALICE_EDGES = """MATCH (a)-[r]->(b) WHERE a.user_id = $u OR b.user_id = $u
RETURN type(r) AS type, properties(r) AS props, elementId(a) AS a, elementId(b) AS b"""
CROSS_EDGES = """MATCH (a)-[r]-(b) WHERE a.user_id IS NOT NULL AND b.user_id IS NOT NULL
AND a.user_id <> b.user_id RETURN count(r) AS n"""


async def alice_state(t: Tenants) -> tuple[list[str], list[str]]:
    """Every node and edge of Alice's with all their properties, in a stable order."""
    nodes = await run_cypher(t.target, ALICE_NODES, u=ALICE.user_id)
    edges = await run_cypher(t.target, ALICE_EDGES, u=ALICE.user_id)
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


async def assert_nothing_of_alice(t: Tenants, responses: list[Any]) -> None:
    alice_ids = await t.ids("Memory", ALICE) | await t.ids("Message", ALICE)
    for text in (s for r in responses for s in strings(r)):
        assert MARKER not in text.lower(), text
        assert not any(i in text for i in alice_ids), text


# --- Query checks ------------------------------------------------------------------------------

SEARCH = """query($q: String!, $s: ScopeInput!, $when: TimeFilterInput, $asOf: DateTime) {
  search(query: $q, scope: $s, limit: 50, when: $when, asOf: $asOf) { __typename
    ... on SearchHits { hits { memory { id text sourceText speaker sourceIds } matchedEntities
      path sources { id externalId text speaker } entities { name type } } } } }"""
BOB_SCOPE = {"userId": BOB.user_id}


async def check_search(t: Tenants) -> None:
    bob_ids = await t.ids("Memory", BOB)
    bob_messages = await t.ids("Message", BOB)
    for q in PROBES:
        for when in WHEN:
            for as_of in (None, "2024-06-20T00:00:00Z"):
                data = await t.bob(SEARCH, q=q, s=BOB_SCOPE, when=when, asOf=as_of)
                hits = data["search"]["hits"]
                assert {h["memory"]["id"] for h in hits} <= bob_ids
                assert {s["id"] for h in hits for s in h["sources"]} <= bob_messages
    paris = await t.bob(SEARCH, q="Paris", s=BOB_SCOPE)
    assert paris["search"]["hits"], "Bob's own Paris memories are found"


async def check_context(t: Tenants) -> None:
    bob_ids = await t.ids("Memory", BOB)
    query = """query($q: String!, $s: ScopeInput!, $when: TimeFilterInput) {
      context(query: $q, scope: $s, tokenBudget: 4000, when: $when) { __typename
        ... on Context { text tokens memoryIds } } }"""
    for q in PROBES:
        for when in WHEN:
            block = (await t.bob(query, q=q, s=BOB_SCOPE, when=when))["context"]
            assert set(block["memoryIds"]) <= bob_ids
    assert (await t.bob(query, q="Paris", s=BOB_SCOPE))["context"]["memoryIds"]


def memory_wheres() -> list[dict[str, Any]]:
    """A filter on every field and operator of MemoryWhereInput (checked by introspection)."""
    alice_texts = [m["content"] for m in ALICE_MESSAGES]
    t0, t1 = "2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"
    return [
        {},
        {"text": {"contains": "alice"}},
        {"text": {"eq": alice_texts[0]}},
        {"text": {"startsWith": SPEAKER}},
        {"text": {"in": alice_texts}},
        {"speaker": {"eq": SPEAKER}},
        {"speaker": {"in": [SPEAKER]}},
        {"speaker": {"contains": "jord"}},
        {"entityType": {"eq": "PLACE"}},
        {"entityType": {"in": ["ORG", "PERSON", "PLACE"]}},
        {"entityName": {"eq": "Zanzibar"}},
        {"entityName": {"contains": "pari"}},
        *[
            {f: {op: when}}
            for f in ("saidAt", "validFrom", "validTo", "happenedStart", "createdAt")
            for op, when in (("gte", t0), ("gt", t0), ("lte", t1), ("lt", t1))
        ],
        {"saidAt": {"eq": "2024-05-06T10:00:00Z"}},
        {"validFrom": {"eq": "2024-03-01T00:00:00Z"}},
        {"validTo": {"eq": "2024-04-01T00:00:00Z"}},
        {"createdAt": {"eq": t0}},
        {"happenedStart": {"eq": "2024-05-06T10:00:00Z"}},
        *[
            {"confidence": {op: v}}
            for op, v in (("gte", 0.0), ("gt", 0.0), ("lte", 1.0), ("lt", 1.1))
        ],
        {"lang": {"eq": "en"}},
        {"lang": {"in": ["en", "zh"]}},
        {"current": True},
        {"current": False},
        {"OR": [{"text": {"contains": "alice"}}, {"speaker": {"eq": SPEAKER}}]},
        {"AND": [{"entityName": {"eq": "Paris"}}, {"speaker": {"eq": SPEAKER}}]},
        {"NOT": {"text": {"contains": "no such words"}}},
    ]


def entity_wheres() -> list[dict[str, Any]]:
    """A filter on every field and operator of EntityWhereInput (checked by introspection)."""
    return [
        {},
        {"name": {"eq": "Zanzibar"}},
        {"name": {"contains": "a"}},
        {"name": {"startsWith": "P"}},
        {"name": {"in": ["Paris", "Google", "Priya", "Max"]}},
        {"type": {"eq": "PLACE"}},
        {"type": {"in": ["ORG", "PERSON"]}},
        {"lastSeen": {"lt": "2100-01-01T00:00:00Z"}},
        {"lastSeen": {"gt": "2000-01-01T00:00:00Z"}},
        {"OR": [{"name": {"eq": "Paris"}}, {"type": {"eq": "ORG"}}]},
        {"AND": [{"name": {"contains": "i"}}, {"type": {"in": ["PLACE", "PERSON"]}}]},
        {"NOT": {"name": {"eq": "Dublin"}}},
    ]


MEMORY_SORTS = ["saidAt", "createdAt", "validFrom", "confidence"]
ENTITY_SORTS = ["name", "lastSeen", "mentionCount"]
MEMORIES = """query($s: ScopeInput!, $w: MemoryWhereInput, $sort: [MemorySortInput!],
  $first: Int!, $after: String, $asOf: DateTime) { memories(scope: $s, where: $w, sort: $sort,
  first: $first, after: $after, asOf: $asOf) { __typename ... on MemoryConnection { totalCount
  pageInfo { hasNextPage endCursor }
  edges { node { id text sourceText speaker sourceIds } } } } }"""
ENTITIES = """query($s: ScopeInput!, $w: EntityWhereInput, $sort: [EntitySortInput!],
  $first: Int!, $after: String) { entities(scope: $s, where: $w, sort: $sort, first: $first,
  after: $after) { __typename ... on EntityConnection { totalCount
  pageInfo { hasNextPage endCursor } edges { node { name type aliases mentionCount } } } } }"""


async def all_pages(t: Tenants, query: str, field: str, **variables: Any) -> list[Any]:
    """Every node of a connection, two at a time, following the cursors."""
    nodes: list[Any] = []
    after = None
    while True:
        page = (await t.bob(query, s=BOB_SCOPE, first=2, after=after, **variables))[field]
        assert page["__typename"].endswith("Connection"), page
        nodes += [e["node"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return nodes
        after = page["pageInfo"]["endCursor"]


async def check_memories(t: Tenants) -> None:
    bob_ids = await t.ids("Memory", BOB)
    for where in memory_wheres():
        page = (await t.bob(MEMORIES, s=BOB_SCOPE, w=where, first=100))["memories"]
        assert {e["node"]["id"] for e in page["edges"]} <= bob_ids, where
        assert page["totalCount"] <= len(bob_ids), where
    for as_of in (None, "2024-06-04T00:00:00Z"):
        for field in MEMORY_SORTS:
            for direction in ("ASC", "DESC"):
                nodes = await all_pages(
                    t, MEMORIES, "memories", sort=[{field: direction}], asOf=as_of
                )
                assert {n["id"] for n in nodes} <= bob_ids
                if as_of is None:
                    assert {n["id"] for n in nodes} == bob_ids  # all of Bob's, one page at a time


async def check_entities(t: Tenants) -> None:
    mentions = await mention_counts(t)
    for where in entity_wheres():
        page = (await t.bob(ENTITIES, s=BOB_SCOPE, w=where, first=100))["entities"]
        assert page["totalCount"] <= len(mentions), where
        for edge in page["edges"]:
            node = edge["node"]
            assert node["mentionCount"] == mentions[node["name"], node["type"]]
    for field in ENTITY_SORTS:
        for direction in ("ASC", "DESC"):
            nodes = await all_pages(t, ENTITIES, "entities", sort=[{field: direction}])
            assert sorted((n["name"], n["type"]) for n in nodes) == sorted(mentions)


ENTITY_LINKS = """query($s: ScopeInput!, $first: Int!, $asOf: DateTime) {
  entities(scope: $s, sort: [{mentionCount: DESC}], first: $first) {
  __typename ... on EntityConnection { edges { node { name } }
  links(asOf: $asOf) { source { name mentionCount } target { name mentionCount } kind support }
  } } }"""


async def check_entity_links(t: Tenants) -> None:
    """The links among Bob's busiest entities: his entities, his memories' counts."""
    mentions = await mention_counts(t)
    names = {name for name, _ in mentions}
    bob_ids = await t.ids("Memory", BOB)
    for as_of in (None, "2024-05-14T00:00:00Z"):
        for first in (3, 100):
            page = (await t.bob(ENTITY_LINKS, s=BOB_SCOPE, first=first, asOf=as_of))["entities"]
            assert page["__typename"] == "EntityConnection", page
            drawn = {e["node"]["name"] for e in page["edges"]}
            for link in page["links"]:
                assert {link["source"]["name"], link["target"]["name"]} <= drawn <= names
                assert 1 <= link["support"] <= len(bob_ids), link
            if first == 100 and as_of is None:
                assert page["links"], "Bob's entities are linked"


async def mention_counts(t: Tenants) -> dict[tuple[str, str], int]:
    """Bob's entities, (name, type) -> how many memories mention them."""
    rows = await run_cypher(
        t.target,
        """MATCH (e:Entity {user_id: $u})
        RETURN e.name AS name, e.type AS type, COUNT { (e)<-[:MENTIONS]-() } AS n""",
        u=BOB.user_id,
    )
    return {(r["name"], r["type"]): r["n"] for r in rows}


async def bob_entity_names(t: Tenants) -> set[str]:
    return {name for name, _ in await mention_counts(t)}


async def check_timeline(t: Tenants) -> None:
    bob_count = len(await t.ids("Memory", BOB))
    query = """query($s: ScopeInput!, $b: Bucket!, $c: Clock!, $from: DateTime, $to: DateTime) {
      timeline(scope: $s, bucket: $b, clock: $c, from: $from, to: $to) { bucketStart count } }"""
    for bucket in ("DAY", "WEEK", "MONTH"):
        for clock in ("SAID", "HAPPENED"):
            for window in ({}, {"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"}):
                rows = (await t.bob(query, s=BOB_SCOPE, b=bucket, c=clock, **window))["timeline"]
                assert sum(r["count"] for r in rows) == bob_count, (bucket, clock)


async def check_entity_type_counts(t: Tenants) -> None:
    query = "query($s: ScopeInput!) { entityTypeCounts(scope: $s) { type count } }"
    rows = (await t.bob(query, s=BOB_SCOPE))["entityTypeCounts"]
    assert sum(r["count"] for r in rows) == await t.count(
        "MATCH (e:Entity {user_id: $u}) RETURN count(e) AS n"
    )


async def check_stats(t: Tenants) -> None:
    query = """query($s: ScopeInput!) { stats(scope: $s) { memories currentMemories superseded
      messages entities mentions events firstSaidAt lastSaidAt } }"""
    stats = (await t.bob(query, s=BOB_SCOPE))["stats"]
    expected = {
        "memories": "MATCH (n:Memory {user_id: $u}) RETURN count(n) AS n",
        "messages": "MATCH (n:Message {user_id: $u}) RETURN count(n) AS n",
        "entities": "MATCH (n:Entity {user_id: $u}) RETURN count(n) AS n",
        "mentions": "MATCH (:Memory {user_id: $u})-[r:MENTIONS]->() RETURN count(r) AS n",
        "events": "MATCH (n:MemoryEvent {user_id: $u}) RETURN count(n) AS n",
    }
    for field, cypher in expected.items():
        assert stats[field] == await t.count(cypher), field


ENTITY = """query($name: String!, $s: ScopeInput!, $type: String, $hops: Int!, $asOf: DateTime) {
  entity(name: $name, scope: $s, type: $type) { __typename ... on Entity { name type aliases
    mentionCount memories(limit: 200, asOf: $asOf) { id text sourceIds }
    neighbors(hops: $hops, limit: 100) { distance via support
      entity { name type mentionCount memories { id text } } } } } }"""


async def check_entity(t: Tenants) -> None:
    """entity(name) with its memories and neighbours at every depth: only Bob's graph."""
    bob_ids = await t.ids("Memory", BOB)
    mentions = await mention_counts(t)
    for name in ("Paris", "Google", "Max", SPEAKER, "Zanzibar", "Priya"):
        for entity_type in (None, "PLACE", "ORG", "PERSON"):
            for hops in (1, 2, 3):
                data = await t.bob(
                    ENTITY, name=name, s=BOB_SCOPE, type=entity_type, hops=hops, asOf=None
                )
                entity = data["entity"]
                if entity["__typename"] == "NotFound":
                    continue
                assert entity["mentionCount"] == mentions[entity["name"], entity["type"]]
                assert {m["id"] for m in entity["memories"]} <= bob_ids
                for neighbor in entity["neighbors"]:
                    found = neighbor["entity"]
                    assert found["mentionCount"] == mentions[found["name"], found["type"]]
                    assert set(neighbor["via"]) <= {name for name, _ in mentions}
                    assert {m["id"] for m in found["memories"]} <= bob_ids
    for alice_only in ("Zanzibar", "Priya"):
        data = await t.bob(ENTITY, name=alice_only, s=BOB_SCOPE, hops=1)
        assert data["entity"]["__typename"] == "NotFound"
    paris = (await t.bob(ENTITY, name="Paris", s=BOB_SCOPE, hops=3))["entity"]
    assert paris["__typename"] == "Entity" and paris["memories"]


async def check_entity_memories(t: Tenants) -> None:
    bob_ids = await t.ids("Memory", BOB)
    for as_of in (None, "2024-05-07T00:00:00Z", "2030-01-01T00:00:00Z"):
        for name in ("Paris", "Google", "Max"):
            entity = (await t.bob(ENTITY, name=name, s=BOB_SCOPE, hops=1, asOf=as_of))["entity"]
            assert entity["__typename"] == "Entity", (name, as_of)
            assert {m["id"] for m in entity["memories"]} <= bob_ids


async def check_entity_neighbors(t: Tenants) -> None:
    names = await bob_entity_names(t)
    for hops in (1, 2, 3):
        entity = (await t.bob(ENTITY, name="Paris", s=BOB_SCOPE, hops=hops))["entity"]
        found = {n["entity"]["name"] for n in entity["neighbors"]}
        assert found <= names
        assert "Zanzibar" not in found and "Priya" not in found


PATH = """query($from: String!, $to: String!, $s: ScopeInput!, $hops: Int!) {
  path(from: $from, to: $to, scope: $s, maxHops: $hops) { __typename
    ... on EntityPath { entities { name mentionCount } steps { from { name } to { name }
      memories { id text } } } ... on NotFound { message } } }"""


async def check_path(t: Tenants) -> None:
    bob_ids = await t.ids("Memory", BOB)
    names = await bob_entity_names(t)
    # Alice's graph joins Paris and Google (read past the API: her audit must not change)
    await GraphTraversal(t.mem.db).path("Paris", "Google", ALICE, max_hops=1)
    pairs = [
        ("Paris", "Google"),
        ("Google", "Max"),
        ("Paris", "Zanzibar"),
        ("Paris", "Reykjavik"),
        ("Max", "Lena"),
        ("Priya", "Dublin"),
    ]
    for source, target in pairs:
        for hops in (1, 2, 3, 4):
            data = await t.bob(PATH, **{"from": source}, to=target, s=BOB_SCOPE, hops=hops)
            path = data["path"]
            if path["__typename"] == "NotFound":
                continue
            assert {e["name"] for e in path["entities"]} <= names
            assert {m["id"] for s in path["steps"] for m in s["memories"]} <= bob_ids
    # Only Alice's graph has Zanzibar: Bob's path to it is NotFound, like an unknown name
    bob = await t.bob(PATH, **{"from": "Paris"}, to="Zanzibar", s=BOB_SCOPE, hops=4)
    assert bob["path"]["__typename"] == "NotFound"


RELATIONS = """query($s: ScopeInput!, $w: RelationWhereInput, $asOf: DateTime, $after: String) {
  relations(scope: $s, where: $w, first: 100, asOf: $asOf, after: $after) { __typename
    ... on RelationConnection { totalCount edges { cursor node { type source { name } target {
      name } memories { id text } inferred confidence evidence { id text } } } } } }"""
ENTITY_RELATIONS = """query($name: String!, $s: ScopeInput!, $asOf: DateTime) {
  entity(name: $name, scope: $s) { __typename ... on Entity { relations(asOf: $asOf) { type
    source { name } target { name } memories { id text } inferred evidence { id text } } } } }"""


async def check_relations(t: Tenants) -> None:
    """relations over every filter and instant: only Bob's entities and memories."""
    bob_ids, names = await t.ids("Memory", BOB), await bob_entity_names(t)
    wheres = [
        None,
        {"types": ["LIVES_IN", "WORKS_AT", "VISITED"]},
        {"types": ["LIKES", "DOES"]},
        {"entity": "Paris"},
        {"entity": "Google", "direction": "IN"},
        {"entity": "Zanzibar"},
    ]
    for where in wheres:
        for as_of in (None, "2024-05-07T00:00:00Z", "2030-01-01T00:00:00Z"):
            data = (await t.bob(RELATIONS, s=BOB_SCOPE, w=where, asOf=as_of))["relations"]
            if data["__typename"] != "RelationConnection":
                assert data["__typename"] == "NotFound" and where == {"entity": "Zanzibar"}
                continue
            for edge in data["edges"]:
                relation = edge["node"]
                assert {relation["source"]["name"], relation["target"]["name"]} <= names
                assert {m["id"] for m in relation["memories"]} <= bob_ids
                assert {m["id"] for m in relation["evidence"]} <= bob_ids
            if where == {"types": ["LIKES", "DOES"]} and as_of is None:
                inferred = [e["node"] for e in data["edges"] if e["node"]["inferred"]]
                assert inferred and all(r["evidence"] for r in inferred), "Bob's climbing"


async def check_entity_relations(t: Tenants) -> None:
    bob_ids, names = await t.ids("Memory", BOB), await bob_entity_names(t)
    for name in ("Paris", "Google", SPEAKER):
        for as_of in (None, "2024-05-07T00:00:00Z"):
            entity = (await t.bob(ENTITY_RELATIONS, name=name, s=BOB_SCOPE, asOf=as_of))["entity"]
            assert entity["__typename"] == "Entity", name
            for relation in entity["relations"]:
                assert {relation["source"]["name"], relation["target"]["name"]} <= names
                assert {m["id"] for m in relation["memories"]} <= bob_ids
                assert {m["id"] for m in relation["evidence"]} <= bob_ids


PROFILE = """query($e: String!, $s: ScopeInput!, $asOf: DateTime) {
  profile(scope: $s, entity: $e, asOf: $asOf) { __typename
    ... on Profile { entity { name } groups { kind facts { value entity { name }
      evidence { id text sourceIds } } } } } }"""
CHANGES = """query($s: ScopeInput!, $from: DateTime, $to: DateTime, $phrase: String,
    $ref: DateTime, $e: String) {
  changes(scope: $s, from: $from, to: $to, phrase: $phrase, referenceTime: $ref, entity: $e) {
    __typename ... on ChangeList { changes { subject summary
      before { value entity { name } memories { id text } }
      after { value entity { name } memories { id text } } } } } }"""


async def check_profile(t: Tenants) -> None:
    """Profiles of the shared speaker and places, now and as of: Bob's facts and memories."""
    bob_ids, names = await t.ids("Memory", BOB), await bob_entity_names(t)
    seen = 0
    for name in (SPEAKER, "Paris", "Google", "Max", "Zanzibar", "Priya"):
        for as_of in (None, "2024-05-07T00:00:00Z", "2030-01-01T00:00:00Z"):
            data = (await t.bob(PROFILE, e=name, s=BOB_SCOPE, asOf=as_of))["profile"]
            if name in ("Zanzibar", "Priya"):  # Alice's only
                assert data["__typename"] == "NotFound", data
                continue
            assert data["__typename"] == "Profile" and data["entity"]["name"] in names
            for fact in (f for g in data["groups"] for f in g["facts"]):
                assert fact["entity"] is None or fact["entity"]["name"] in names
                assert {m["id"] for m in fact["evidence"]} <= bob_ids
                seen += 1
    assert seen, "Bob's own facts are found"


async def check_changes(t: Tenants) -> None:
    """Changes over every kind of window, whole scope or around one entity: Bob's only."""
    bob_ids, names = await t.ids("Memory", BOB), await bob_entity_names(t)
    windows: list[dict[str, Any]] = [
        {},
        {"from": "2024-05-01T00:00:00Z", "to": "2024-07-01T00:00:00Z"},
        {"phrase": "between May and June", "ref": "2024-06-20T00:00:00Z"},
        {"phrase": "上个月以来", "ref": "2024-06-20T00:00:00Z"},
    ]
    seen = 0
    for window in windows:
        for name in (None, SPEAKER, "Paris", "Zanzibar"):
            data = (await t.bob(CHANGES, s=BOB_SCOPE, e=name, **window))["changes"]
            if name == "Zanzibar":
                assert data["__typename"] == "NotFound", data
                continue
            assert data["__typename"] == "ChangeList", data
            for change in data["changes"]:
                sides = [s for s in (change["before"], change["after"]) if s]
                assert {m["id"] for s in sides for m in s["memories"]} <= bob_ids
                assert all(s["entity"] is None or s["entity"]["name"] in names for s in sides)
                seen += 1
    assert seen, "Bob's own changes are found"


async def not_found_like_unknown(t: Tenants, query: str, field: str, **variables: Any) -> None:
    """Each of Alice's memory ids is NotFound for Bob, in the very words of an unknown id."""
    for alice_id in await t.ids("Memory", ALICE):
        data = await t.bob(query.replace("MESSAGE", ""), id=alice_id, s=BOB_SCOPE, **variables)
        assert data[field]["__typename"] == "NotFound", data
        # the message echoes the id Bob sent; fetched outside the leak scan
        mine = await t.as_key(
            KEY_BOB,
            query.replace("MESSAGE", "... on NotFound { message }"),
            id=alice_id,
            s=BOB_SCOPE,
            **variables,
        )
        unknown = await t.as_key(
            KEY_BOB,
            query.replace("MESSAGE", "... on NotFound { message }"),
            id="0" * len(alice_id),
            s=BOB_SCOPE,
            **variables,
        )
        assert mine[field]["message"].replace(alice_id, "?") == unknown[field]["message"].replace(
            "0" * len(alice_id), "?"
        )


async def check_memory(t: Tenants) -> None:
    await not_found_like_unknown(
        t,
        """query($id: ID!, $s: ScopeInput!) { memory(id: $id,
      scope: $s) { __typename ... on Memory { id text } MESSAGE } }""",
        "memory",
    )


async def check_history(t: Tenants) -> None:
    await not_found_like_unknown(
        t,
        """query($id: ID!, $s: ScopeInput!) { history(memoryId: $id,
      scope: $s) { __typename ... on MemoryHistory { events { oldText newText } } MESSAGE } }""",
        "history",
    )


async def check_read_audit(t: Tenants) -> None:
    query = """query($s: ScopeInput!, $first: Int!, $after: String) { readAudit(scope: $s,
      first: $first, after: $after) { __typename ... on ReadEventConnection { totalCount
        pageInfo { hasNextPage endCursor } edges { node { id operation actor userId agentId
        runId queryHash } } } } }"""
    await t.bob(SEARCH, q="Paris", s=BOB_SCOPE)  # Bob's own read event
    events = await all_pages(t, query, "readAudit")
    assert events and {(e["actor"], e["userId"]) for e in events} == {("bob-app", BOB.user_id)}
    alice_events = await run_cypher(
        t.target, "MATCH (n:ReadEvent {user_id: $u}) RETURN n.query_hash AS h", u=ALICE.user_id
    )
    assert alice_events, "Alice has read events to withhold"
    assert not {r["h"] for r in alice_events} & {e["queryHash"] for e in events}


# --- Mutation checks ---------------------------------------------------------------------------


async def check_add_messages(t: Tenants) -> None:
    """Alice's very messages, ids and times included, become Bob's own nodes."""
    alice_messages = await t.ids("Message", ALICE)
    alice_memories = await t.ids("Memory", ALICE)
    copies = [{**m, "id": f"copy-{m['id']}"} for m in ALICE_MESSAGES]
    extra = [
        {
            "content": "Priya met me at Google in Zanzibar with Max the dog.",
            "speaker": SPEAKER,
            "id": "m9",
        }
    ]
    data = (await t.bob(ADD_MESSAGES, m=copies + extra, s=BOB_SCOPE))["addMessages"]
    assert data["__typename"] == "AddMessagesSuccess"
    assert not set(data["messageIds"]) & alice_messages
    assert data["added"] and not set(data["added"] + data["updated"]) & alice_memories
    owners = await run_cypher(
        t.target,
        """MATCH (m:Memory {user_id: $u})-[:MENTIONS]->(e:Entity)
        RETURN DISTINCT e.user_id AS owner""",
        u=BOB.user_id,
    )
    assert {r["owner"] for r in owners} == {BOB.user_id}


async def check_add_memory(t: Tenants) -> None:
    """Alice's exact text, stored by Bob, is a new memory of Bob's, not a duplicate of hers."""
    alice_memories = await t.ids("Memory", ALICE)
    query = """mutation($text: String!, $s: ScopeInput!) { addMemory(text: $text, scope: $s,
      speaker: "Jordan") { __typename ... on AddMessagesSuccess { added updated unchanged } } }"""
    rows = await run_cypher(
        t.target, "MATCH (m:Memory {user_id: $u}) RETURN m.text AS text", u=ALICE.user_id
    )
    texts = [r["text"] for r in rows]
    for text in texts:
        data = (await t.bob(query, text=text, s=BOB_SCOPE))["addMemory"]
        assert len(data["added"]) == 1 and not data["updated"] and not data["unchanged"]
        assert not set(data["added"]) & alice_memories


async def check_update_memory(t: Tenants) -> None:
    await not_found_like_unknown(
        t,
        """mutation($id: ID!, $s: ScopeInput!, $text: String!) {
      updateMemory(id: $id, text: $text, scope: $s) { __typename ... on Memory { id } MESSAGE }
    }""",
        "updateMemory",
        text="Bob rewrote this memory.",
    )


async def check_delete_memory(t: Tenants) -> None:
    await not_found_like_unknown(
        t,
        """mutation($id: ID!, $s: ScopeInput!) { deleteMemory(id: $id,
      scope: $s) { __typename ... on DeletedMemory { memoryId entityKeys } MESSAGE } }""",
        "deleteMemory",
    )


async def check_forget(t: Tenants) -> None:
    bob_memories, bob_messages = await t.ids("Memory", BOB), await t.ids("Message", BOB)
    query = """mutation($s: ScopeInput!, $dry: Boolean!) { forget(scope: $s, dryRun: $dry) {
      __typename ... on ForgetReport { verified messageIds memoryIds entityKeys eventsRedacted
        readEvents mentions { source target } derivedFrom { source target } } } }"""
    for dry in (True, False):
        report = (await t.bob(query, s=BOB_SCOPE, dry=dry))["forget"]
        assert set(report["memoryIds"]) == bob_memories
        assert set(report["messageIds"]) == bob_messages
        assert all(key.startswith(BOB.user_id) for key in report["entityKeys"])
    assert report["verified"] is True
    assert await t.ids("Memory", BOB) == set()


async def check_evict(t: Tenants) -> None:
    bob_memories = await t.ids("Memory", BOB)
    query = """mutation($s: ScopeInput!, $dry: Boolean!, $older: DateTime, $reads: Int,
      $conf: Float) { evict(scope: $s, dryRun: $dry, olderThan: $older, maxAccessCount: $reads,
      minConfidence: $conf) { __typename ... on EvictReport { memoryIds entityKeys } } }"""
    for criterion in ({"older": "2100-01-01T00:00:00Z"}, {"reads": 1000}, {"conf": 1.0}):
        report = (await t.bob(query, s=BOB_SCOPE, dry=True, **criterion))["evict"]
        assert set(report["memoryIds"]) <= bob_memories
    report = (await t.bob(query, s=BOB_SCOPE, dry=False, reads=1000))["evict"]
    assert set(report["memoryIds"]) == bob_memories


async def check_decay(t: Tenants) -> None:
    query = """mutation($s: ScopeInput!, $dry: Boolean!) { decay(scope: $s, halfLifeDays: 0.001,
      dryRun: $dry) { __typename ... on DecayReport { changed } } }"""
    bob_count = len(await t.ids("Memory", BOB))
    for dry in (True, False):
        report = (await t.bob(query, s=BOB_SCOPE, dry=dry))["decay"]
        assert 0 < report["changed"] <= bob_count


async def check_pending_work(t: Tenants) -> None:
    """Alice's deferred add waits; Bob hears of his own pending work only (none)."""
    query = """query($s: ScopeInput!) {
      pendingWork(scope: $s) { __typename ... on PendingWork { batches messages failed } }
      search(query: "ledger", scope: $s) { ... on SearchHits { pendingMessages } } }"""
    data = await t.bob(query, s=BOB_SCOPE)
    assert data["pendingWork"] == {
        "__typename": "PendingWork",
        "batches": 0,
        "messages": 0,
        "failed": 0,
    }
    assert data["search"]["pendingMessages"] == 0
    assert await t.count("MATCH (p:PendingAdd) RETURN count(p) AS n") == 1, "Alice's waits"


async def check_scopes(t: Tenants) -> None:
    query = "query { scopes(first: 200) { userId agentId runId memories } }"
    scopes = (await t.bob(query))["scopes"]
    assert [s["userId"] for s in scopes] == [BOB.user_id]
    assert scopes[0]["memories"] == len(await t.ids("Memory", BOB))


async def check_export(t: Tenants) -> None:
    """export(scope) links Bob's own file; the file holds Bob's graph and nothing of Alice's
    (every line joins the leak scan), and Alice's file is refused to Bob's key."""
    query = """query($s: ScopeInput!) { export(scope: $s) { __typename
      ... on ScopeExport { url filename counts { messages memories entities memoryEvents } } } }"""
    link = (await t.bob(query, s=BOB_SCOPE))["export"]
    assert link["counts"]["memories"] == len(await t.ids("Memory", BOB))
    assert link["counts"]["messages"] == len(await t.ids("Message", BOB))
    download = await t.http.get(link["url"], headers={"X-API-Key": KEY_BOB})
    assert download.status_code == 200, download.text
    lines = [json.loads(line) for line in download.text.splitlines()]
    t.responses.extend(lines)
    memories = {r["id"] for r in lines if r["record"] == "memory"}
    assert memories == await t.ids("Memory", BOB)
    assert {r.get("user_id", BOB.user_id) for r in lines[1:-1]} == {BOB.user_id}
    theirs = await t.http.get(f"/export?userId={ALICE.user_id}", headers={"X-API-Key": KEY_BOB})
    assert theirs.status_code == 403


async def check_viewer(t: Tenants) -> None:
    viewer = (await t.bob("query { viewer { principal userIds agentIds runIds } }"))["viewer"]
    assert viewer == {
        "principal": "bob-app",
        "userIds": [BOB.user_id],
        "agentIds": ["*"],
        "runIds": ["*"],
    }


CHECKS: dict[str, Callable[[Tenants], Awaitable[None]]] = {
    "Query.search": check_search,
    "Query.context": check_context,
    "Query.memories": check_memories,
    "Query.entities": check_entities,
    "EntityConnection.links": check_entity_links,
    "Query.timeline": check_timeline,
    "Query.entityTypeCounts": check_entity_type_counts,
    "Query.stats": check_stats,
    "Query.scopes": check_scopes,
    "Query.pendingWork": check_pending_work,
    "Query.viewer": check_viewer,
    "Query.export": check_export,
    "Query.entity": check_entity,
    "Query.path": check_path,
    "Query.relations": check_relations,
    "Entity.relations": check_entity_relations,
    "Query.profile": check_profile,
    "Query.changes": check_changes,
    "Query.memory": check_memory,
    "Query.history": check_history,
    "Query.readAudit": check_read_audit,
    "Entity.memories": check_entity_memories,
    "Entity.neighbors": check_entity_neighbors,
    "Mutation.addMessages": check_add_messages,
    "Mutation.addMemory": check_add_memory,
    "Mutation.updateMemory": check_update_memory,
    "Mutation.deleteMemory": check_delete_memory,
    "Mutation.forget": check_forget,
    "Mutation.evict": check_evict,
    "Mutation.decay": check_decay,
}


def schema_fields() -> dict[str, list[str]]:
    """Query and Mutation fields, and every other object field that takes arguments (a
    resolver of its own), as "Type.field" -> argument names."""
    result = schema.execute_sync(
        "{ __schema { types { name kind fields { name args { name } } } } }"
    )
    assert result.data is not None
    found = {}
    for t in result.data["__schema"]["types"]:
        if t["kind"] != "OBJECT" or t["name"].startswith("__"):
            continue
        for field in t["fields"]:
            if t["name"] in ("Query", "Mutation") or field["args"]:
                found[f"{t['name']}.{field['name']}"] = [a["name"] for a in field["args"]]
    return found


def test_every_field_has_an_isolation_check() -> None:
    fields = schema_fields()
    assert "Query.search" in fields and "Mutation.forget" in fields
    missing = sorted(set(fields) - set(CHECKS))
    assert not missing, f"fields without a tenant-isolation check in CHECKS: {missing}"


@pytest.mark.parametrize("field", sorted(CHECKS))
async def test_bob_reaches_nothing_of_alice_through(field: str, tenants: Tenants) -> None:
    if field not in schema_fields():
        pytest.skip(f"{field} is not in this schema")
    before = await alice_state(tenants)
    assert before[0] and before[1], "Alice's tenant is seeded"
    await CHECKS[field](tenants)
    assert tenants.responses, "the check sent Bob's requests"
    await assert_nothing_of_alice(tenants, tenants.responses)
    assert await alice_state(tenants) == before, "Alice's nodes or edges changed"
    assert (await run_cypher(tenants.target, CROSS_EDGES))[0]["n"] == 0


# --- filters: every field and operator is exercised --------------------------------------------


def _input_fields(name: str) -> dict[str, str | None]:
    """An input type's fields -> the name of their input-object type (None for scalars)."""
    result = schema.execute_sync(
        """query($n: String!) { __type(name: $n) { inputFields { name type { kind name
           ofType { kind name ofType { kind name ofType { kind name } } } } } } }""",
        variable_values={"n": name},
    )
    assert result.data is not None

    def innermost(t: dict[str, Any]) -> dict[str, Any]:
        return innermost(t["ofType"]) if t.get("ofType") else t

    fields = {}
    for f in result.data["__type"]["inputFields"]:
        inner = innermost(f["type"])
        fields[f["name"]] = inner["name"] if inner["kind"] == "INPUT_OBJECT" else None
    return fields


def _used(where: Any) -> set[tuple[str, str | None]]:
    used: set[tuple[str, str | None]] = set()
    for field, value in where.items():
        if field in ("AND", "OR", "NOT"):
            used.add((field, None))
            for inner in value if isinstance(value, list) else [value]:
                used |= _used(inner)
        elif isinstance(value, dict):
            used |= {(field, op) for op in value}
        else:
            used.add((field, None))
    return used


@pytest.mark.parametrize(
    ("input_type", "wheres"),
    [("MemoryWhereInput", memory_wheres), ("EntityWhereInput", entity_wheres)],
)
def test_the_checks_use_every_filter_and_operator(
    input_type: str, wheres: Callable[[], list[dict[str, Any]]]
) -> None:
    expected: set[tuple[str, str | None]] = set()
    for field, ops_type in _input_fields(input_type).items():
        if ops_type is None or field in ("AND", "OR", "NOT"):
            expected.add((field, None))
        else:
            expected |= {(field, op) for op in _input_fields(ops_type)}
    used = set().union(*(_used(w) for w in wheres()))
    assert expected <= used, f"not exercised: {sorted(expected - used, key=str)}"


@pytest.mark.parametrize(
    ("input_type", "sorts"),
    [("MemorySortInput", MEMORY_SORTS), ("EntitySortInput", ENTITY_SORTS)],
)
def test_the_checks_use_every_sort(input_type: str, sorts: list[str]) -> None:
    assert set(_input_fields(input_type)) == set(sorts)


# --- Bob naming Alice's scope, and the Python API ---------------------------------------------

_SAMPLE = {
    "String": '"Paris"',
    "ID": '"x"',
    "Boolean": "true",
    "Float": "1.0",
    "Int": "1",
    "DateTime": '"2024-01-01T00:00:00Z"',
    "Bucket": "DAY",
}


async def test_naming_alices_scope_is_refused_by_every_field(tenants: Tenants) -> None:
    required = _required_args()
    for field, args in required.items():
        parent, name = field.split(".")
        if parent not in ("Query", "Mutation") or "scope" not in args:
            continue
        values = {a: _SAMPLE.get(t, "") for a, t in args.items() if a != "scope"}
        if field == "Mutation.addMessages":
            values["messages"] = '[{content: "Bob writes into Alice."}]'
        rendered = ", ".join(
            [f'scope: {{userId: "{ALICE.user_id}"}}', *(f"{a}: {v}" for a, v in values.items())]
        )
        op = "mutation" if parent == "Mutation" else "query"
        response = await tenants.http.post(
            "/graphql",
            json={"query": f"{op} {{ {name}({rendered}) {{ __typename }} }}"},
            headers={"X-API-Key": KEY_BOB},
        )
        body = response.json()
        result = (body.get("data") or {}).get(name) or {}
        refused = result.get("__typename") == "Forbidden"
        raised = any("may not touch" in e["message"] for e in body.get("errors", []))
        assert refused or raised, (field, body)


def _required_args() -> dict[str, dict[str, str]]:
    """Every Query / Mutation field -> its required arguments and their type names."""
    result = schema.execute_sync("""{ __schema { queryType { name } mutationType { name } types {
      name fields { name args { name defaultValue type { kind name ofType { kind name
      ofType { kind name ofType { kind name } } } } } } } } }""")
    assert result.data is not None
    roots = {"Query", "Mutation"}
    found: dict[str, dict[str, str]] = {}
    for t in result.data["__schema"]["types"]:
        if t["name"] not in roots:
            continue
        for f in t["fields"]:
            args = {}
            for a in f["args"]:
                if a["type"]["kind"] == "NON_NULL" and a["defaultValue"] is None:
                    inner = a["type"]
                    while inner.get("ofType"):
                        inner = inner["ofType"]
                    args[a["name"]] = inner["name"]
            found[f"{t['name']}.{f['name']}"] = args
    return found


async def test_python_api_with_bobs_scope_reaches_nothing_of_alice(tenants: Tenants) -> None:
    mem = tenants.mem
    before = await alice_state(tenants)
    alice_ids = await tenants.ids("Memory", ALICE)
    bob_ids = await tenants.ids("Memory", BOB)
    seen: list[Any] = []
    for q in PROBES:
        hits = await mem.search(q, BOB, limit=50)
        assert {h.memory.id for h in hits} <= bob_ids
        seen += [h.model_dump(mode="json") for h in hits]
        block = await mem.context(q, BOB, token_budget=4000)
        assert set(block.memory_ids) <= bob_ids
        seen.append(block.text)
    for where in ({}, {"text": {"contains": "alice"}}, {"speaker": {"eq": SPEAKER}}):
        page = await mem.get_all(BOB, MemoryWhere.model_validate(where), first=100)
        assert {e.node.id for e in page.edges} <= bob_ids
        seen += [e.node.model_dump(mode="json") for e in page.edges]
    for alice_id in alice_ids:
        for call in (
            mem.get(alice_id, BOB),
            mem.history(alice_id, BOB),
            mem.update(alice_id, "Bob rewrote this memory.", BOB),
            mem.delete(alice_id, BOB),
        ):
            with pytest.raises(NotFoundError):
                await call
    for name in (SPEAKER, "Paris"):
        profile = await mem.profile(name, BOB)
        seen.append(profile.model_dump(mode="json"))
        evidence = {m.id for g in profile.groups for f in g.facts for m in f.evidence}
        assert evidence <= bob_ids
    changes = await mem.changes(BOB)
    assert {
        m.id for c in changes.changes for s in (c.before, c.after) if s for m in s.memories
    } <= bob_ids
    seen.append(changes.model_dump(mode="json"))
    with pytest.raises(NotFoundError):
        await mem.profile("Zanzibar", BOB)
    audit = await mem.read_audit(BOB, first=100)
    assert {e.node.user_id for e in audit.edges} == {BOB.user_id}
    evicted = await mem.lifecycle.evict(BOB, max_access_count=1000, dry_run=False)
    assert set(evicted.memory_ids) <= bob_ids
    await mem.add(BOB_MESSAGES, BOB)
    deleted = await mem.delete_all(BOB)
    assert deleted.memory_ids and not set(deleted.memory_ids) & alice_ids
    forgotten = await mem.forget(BOB, dry_run=False)
    assert forgotten.verified is True and not set(forgotten.memories) & alice_ids
    await assert_nothing_of_alice(tenants, seen)
    assert await alice_state(tenants) == before
