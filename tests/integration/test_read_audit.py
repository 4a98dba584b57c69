"""The read audit (ENGRAM_AUDIT_READS): one ReadEvent per read, scoped, hashed, erased by forget."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from service.api.audit import AUDITED_READS, NOT_AUDITED
from service.api.schema import schema
from service.core.domain import Scope
from service.core.errors import NotFoundError
from service.memory import MemoryService
from service.store.lifecycle_queries import ForgottenContent, LifecycleStore
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
BOB = Scope(user_id="bob")
KEY_ALICE = "alice-key-0123456789"
KEY_BOB = "bob-key-0123456789ab"
SECRET_QUERY = "where is the Bluebird prototype hidden"
ALL_EVENTS = (
    "MATCH (n:ReadEvent) RETURN n.operation AS operation, n.actor AS actor, n.user_id AS user_id,"
    " n.agent_id AS agent_id, n.run_id AS run_id, n.query_hash AS query_hash,"
    " n.result_count AS result_count, n.at AS at, properties(n) AS props ORDER BY n.at"
)


@pytest.fixture
async def audited(mem: MemoryService) -> MemoryService:
    """The shared service with the read audit on, over Alice's and Bob's memories."""
    await mem.add(
        [{"content": "Alice hid the Bluebird prototype in the Lisbon office.", "speaker": "Alice"}],
        ALICE,
    )
    await mem.add(
        [{"content": "Bob keeps the Redwood budget in a Berlin locker.", "speaker": "Bob"}], BOB
    )
    settings = mem.settings.model_copy(update={"audit_reads": True})
    return dataclasses.replace(mem, settings=settings)


@pytest.fixture
async def client(
    audited: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    settings = neo4j_target.settings(
        audit_reads=True,
        api_keys={
            KEY_ALICE: {"principal": "alice-app", "user_ids": ["alice"]},
            KEY_BOB: {"principal": "bob-app", "user_ids": ["bob"]},
        },
    )
    transport = httpx.ASGITransport(app=create_app(settings, memory=audited))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def gql(client: httpx.AsyncClient, key: str, query: str, **variables: Any) -> Any:
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"X-API-Key": key}
    )
    body = response.json()
    assert "errors" not in body, body
    return body["data"]


async def events(target: Neo4jTarget) -> list[dict[str, Any]]:
    return await run_cypher(target, ALL_EVENTS)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def test_off_by_default_no_read_leaves_a_trace(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    assert mem.settings.audit_reads is False
    await mem.add([{"content": "Alice hid the Bluebird prototype in Lisbon."}], ALICE)
    hits = await mem.search(SECRET_QUERY, ALICE)
    await mem.context(SECRET_QUERY, ALICE)
    await mem.get(hits[0].memory.id, ALICE)
    await mem.history(hits[0].memory.id, ALICE)
    await mem.get_all(ALICE)
    settings = neo4j_target.settings(api_keys={KEY_ALICE: {"principal": "alice-app"}})
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        await gql(
            http,
            KEY_ALICE,
            "query($s: ScopeInput!) { stats(scope: $s) { memories } }",
            s={"userId": "alice"},
        )
    assert await events(neo4j_target) == []


async def test_each_python_read_records_one_event(
    audited: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    hits = await audited.search(SECRET_QUERY, ALICE, actor="support-desk")
    memory_id = hits[0].memory.id
    block = await audited.context(SECRET_QUERY, ALICE, actor="support-desk")
    await audited.get(memory_id, ALICE, actor="support-desk")
    page = await audited.get_all(ALICE, actor="support-desk")
    history = await audited.history(memory_id, ALICE, actor="support-desk")
    with pytest.raises(NotFoundError):
        await audited.get(memory_id, BOB, actor="bob-desk")  # Alice's id from Bob's scope

    found = await events(neo4j_target)
    # context searches inside, yet is one read: the nested search records nothing of its own
    assert [(e["operation"], e["result_count"]) for e in found] == [
        ("search", len(hits)),
        ("context", len(block.memory_ids)),
        ("get", 1),
        ("get_all", len(page.edges)),
        ("history", len(history)),
        ("get", 0),
    ]
    assert {e["actor"] for e in found[:5]} == {"support-desk"}
    assert all(e["user_id"] == "alice" and e["agent_id"] is None for e in found[:5])
    assert (found[5]["actor"], found[5]["user_id"]) == ("bob-desk", "bob")
    assert found[0]["query_hash"] == found[1]["query_hash"] == sha256(SECRET_QUERY)
    assert found[2]["query_hash"] == sha256(memory_id)
    stored = repr([e["props"] for e in found]).lower()
    assert "bluebird" not in stored and "prototype" not in stored


async def test_each_graphql_read_records_one_event_with_the_principal(
    client: httpx.AsyncClient, neo4j_target: Neo4jTarget
) -> None:
    s = {"userId": "alice"}
    await gql(
        client,
        KEY_ALICE,
        """query($q: String!, $s: ScopeInput!) {
      search(query: $q, scope: $s) { __typename }
      context(query: $q, scope: $s) { __typename } }""",
        q=SECRET_QUERY,
        s=s,
    )
    await gql(
        client,
        KEY_ALICE,
        """query($s: ScopeInput!) {
      memories(scope: $s, where: {text: {contains: "bluebird"}}) {
        ... on MemoryConnection { totalCount } }
      entities(scope: $s) { ... on EntityConnection { links { kind } } }
      timeline(scope: $s, bucket: DAY) { count }
      entityTypeCounts(scope: $s) { count }
      stats(scope: $s) { memories }
      memory(id: "no-such-id", scope: $s) { __typename }
      history(memoryId: "no-such-id", scope: $s) { __typename }
      entity(name: "Lisbon", scope: $s) { ... on Entity { memories { id }
                                                          neighbors(hops: 2) { distance } } }
      path(from: "Lisbon", to: "Bluebird", scope: $s) { __typename }
      profile(scope: $s, entity: "Alice") { __typename }
      changes(scope: $s, phrase: "this year") { __typename } }""",
        s=s,
    )
    found = await events(neo4j_target)
    assert sorted(e["operation"] for e in found) == sorted(
        [
            "search",
            "context",
            "get_all",
            "entities",
            "entity_links",
            "timeline",
            "entity_type_counts",
            "stats",
            "get",
            "history",
            "entity",
            "entity_memories",
            "neighbors",
            "path",
            "profile",
            "changes",
        ]
    )
    assert {(e["actor"], e["user_id"]) for e in found} == {("alice-app", "alice")}
    by_op = {e["operation"]: e for e in found}
    assert by_op["get"]["result_count"] == by_op["history"]["result_count"] == 0
    assert by_op["get_all"]["result_count"] == 1
    assert by_op["entity"]["result_count"] == 1
    assert by_op["search"]["query_hash"] == sha256(SECRET_QUERY)
    assert by_op["entity"]["query_hash"] == by_op["entity_memories"]["query_hash"]
    assert by_op["entity"]["query_hash"] == sha256("Lisbon")
    assert by_op["profile"]["query_hash"] == sha256("Alice")
    assert by_op["changes"]["query_hash"] == sha256("this year")
    assert "bluebird" not in repr([e["props"] for e in found]).lower()


async def test_refused_and_invalid_reads_record_nothing(
    client: httpx.AsyncClient, neo4j_target: Neo4jTarget
) -> None:
    data = await gql(
        client,
        KEY_BOB,
        """query($s: ScopeInput!) {
      a: search(query: "x", scope: $s) { __typename } }""",
        s={"userId": "alice"},
    )
    assert data["a"]["__typename"] == "Forbidden"
    data = await gql(
        client,
        KEY_BOB,
        """query($s: ScopeInput!) {
      a: search(query: "x", scope: $s, limit: 0) { __typename } }""",
        s={"userId": "bob"},
    )
    assert data["a"]["__typename"] == "InvalidInput"
    assert await events(neo4j_target) == []


async def test_read_audit_is_scoped_and_paged(
    audited: MemoryService, client: httpx.AsyncClient, neo4j_target: Neo4jTarget
) -> None:
    for query in ("one", "two", "three"):
        await audited.search(query, ALICE, actor="alice-app")
    await audited.search("bob's own", BOB, actor="bob-app")
    listing = """query($s: ScopeInput!, $after: String) { readAudit(scope: $s, first: 2,
      after: $after) { __typename ... on ReadEventConnection { totalCount
        pageInfo { hasNextPage endCursor } edges { node { operation actor userId queryHash } } }
      ... on Forbidden { message } } }"""
    bob = (await gql(client, KEY_BOB, listing, s={"userId": "bob"}))["readAudit"]
    assert bob["totalCount"] == 1
    assert [e["node"]["actor"] for e in bob["edges"]] == ["bob-app"]
    refused = (await gql(client, KEY_BOB, listing, s={"userId": "alice"}))["readAudit"]
    assert refused["__typename"] == "Forbidden"
    first = (await gql(client, KEY_ALICE, listing, s={"userId": "alice"}))["readAudit"]
    assert first["totalCount"] == 3 and first["pageInfo"]["hasNextPage"]
    rest = (
        await gql(
            client, KEY_ALICE, listing, s={"userId": "alice"}, after=first["pageInfo"]["endCursor"]
        )
    )["readAudit"]
    hashes = [e["node"]["queryHash"] for e in first["edges"] + rest["edges"]]
    assert hashes == [sha256("three"), sha256("two"), sha256("one")]  # newest first
    assert not rest["pageInfo"]["hasNextPage"]
    forged = await gql(client, KEY_ALICE, listing, s={"userId": "alice"}, after="bm90IGEgY3Vyc29y")
    assert forged["readAudit"]["__typename"] == "InvalidInput"
    python_page = await audited.read_audit(BOB)
    assert [e.node.user_id for e in python_page.edges] == ["bob"]
    # listing the audit is not itself recorded
    assert len(await events(neo4j_target)) == 4


async def test_forget_erases_the_scopes_read_events(
    audited: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await audited.search(SECRET_QUERY, ALICE)
    await audited.get_all(ALICE)
    await audited.search("Redwood budget", BOB)
    dry = await audited.forget(ALICE, dry_run=True)
    assert dry.read_events == 2
    done = await audited.forget(ALICE, dry_run=False)
    assert done.read_events == 2
    assert done.verified is True
    left = await events(neo4j_target)
    assert [(e["user_id"], e["operation"]) for e in left] == [("bob", "search")]


async def test_forget_proof_counts_read_events_left_behind(
    audited: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    """A read event of the scope that survives forget would make the proof fail."""
    await audited.search(SECRET_QUERY, ALICE)
    await audited.forget(ALICE, dry_run=False)
    store = LifecycleStore(audited.db)
    assert (await store.leftovers(ALICE, ForgottenContent(), 1)).nodes_left == 0
    await audited.search(SECRET_QUERY, ALICE)  # a read after the forget is recorded again
    assert (await store.leftovers(ALICE, ForgottenContent(), 1)).nodes_left == 1


def test_every_query_field_and_nested_resolver_is_audited_or_exempt() -> None:
    """A new read field cannot ship unaudited: it must be in AUDITED_READS or NOT_AUDITED."""
    result = schema.execute_sync(
        "{ __schema { types { name kind fields { name args { name } } } } }"
    )
    assert result.data is not None
    readers = set()
    for t in result.data["__schema"]["types"]:
        if t["kind"] != "OBJECT" or t["name"].startswith("__") or t["name"] == "Mutation":
            continue
        for field in t["fields"]:
            # every Query field reads; below it, fields that take arguments run resolvers
            if t["name"] == "Query" or field["args"]:
                readers.add((t["name"], field["name"]))
    exempt = {("Query", name) for name in NOT_AUDITED}
    assert ("Query", "search") in readers and ("Entity", "neighbors") in readers
    missing = readers - set(AUDITED_READS) - exempt
    assert not missing, f"read fields without a read-audit entry: {sorted(missing)}"
