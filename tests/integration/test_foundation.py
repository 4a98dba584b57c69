"""The thin slice end to end against a real Neo4j: schema, add, search, restart, health."""

from __future__ import annotations

import gc
import socket

import httpx
import pytest

from service.api.app import create_app
from service.core.domain import Scope
from service.core.errors import ValidationError
from service.memory import MemoryService
from service.store.schema import apply_schema
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
CONVERSATION = [
    {"content": "I adopted a golden retriever puppy last weekend.", "speaker": "Alice"},
    {"content": "The quarterly tax filing is due on Friday.", "speaker": "Alice"},
    {"content": "Our team migrated the billing service to Kubernetes.", "speaker": "Alice"},
]

SCHEMA_SNAPSHOT = (
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties "
    "RETURN name, type, state, labelsOrTypes, properties ORDER BY name"
)


async def test_schema_applied_twice_is_a_no_op(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    before = await run_cypher(neo4j_target, SCHEMA_SNAPSHOT)
    await apply_schema(mem.db, 384)
    after = await run_cypher(neo4j_target, SCHEMA_SNAPSHOT)
    assert before == after
    kinds = {(r["name"], r["type"]) for r in after}
    assert ("memory_embedding", "VECTOR") in kinds
    assert ("memory_text", "FULLTEXT") in kinds
    assert all(r["state"] == "ONLINE" for r in after)


async def test_paraphrase_finds_message_sharing_no_words(mem: MemoryService) -> None:
    await mem.add(CONVERSATION, ALICE)
    hits = await mem.search("new pet dog", ALICE, limit=3)
    assert hits[0].memory.source_text == CONVERSATION[0]["content"]
    assert hits[0].memory.text == "Alice adopted a golden retriever puppy last weekend."
    query_words = {"new", "pet", "dog"}
    assert not query_words & set(str(hits[0].memory.source_text).lower().rstrip(".").split())


async def test_every_message_is_stored_with_provenance(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    result = await mem.add(CONVERSATION, ALICE)
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory)-[:DERIVED_FROM]->(msg:Message) "
        "RETURN m.user_id AS user, msg.text AS text, size(m.embedding) AS dims",
    )
    assert sorted(r["text"] for r in rows) == sorted(c["content"] for c in CONVERSATION)
    # one fact per message here: each message is one statement
    assert {r["user"] for r in rows} == {"alice"} and {r["dims"] for r in rows} == {384}
    assert len(result.added) == 3


async def test_adding_twice_writes_nothing_new(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    first = await mem.add(CONVERSATION, ALICE)
    [before] = await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n")
    second = await mem.add(CONVERSATION, ALICE)
    assert second.added == [] and sorted(second.unchanged) == sorted(first.added)
    [after] = await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n")
    assert after == before


async def test_search_never_crosses_scopes(mem: MemoryService) -> None:
    await mem.add(CONVERSATION, ALICE)
    assert await mem.search("new pet dog", Scope(user_id="bob")) == []


async def test_bad_message_rejects_the_whole_batch(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    with pytest.raises(ValidationError, match="message 1"):
        await mem.add([CONVERSATION[0], {"content": "   "}], ALICE)
    [count] = await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n")
    assert count["n"] == 0


async def test_data_survives_a_neo4j_restart(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    if neo4j_target.local is None:
        pytest.skip("only the local server can be restarted by the tests")
    await mem.add(CONVERSATION, ALICE)
    app = create_app(neo4j_target.settings(), memory=mem)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        neo4j_target.local.stop()
        down = await client.get("/healthz")
        assert down.status_code == 503
        assert down.json()["neo4j"] == "down"
        neo4j_target.local.start()
        up = await client.get("/healthz")
        assert up.status_code == 200 and up.json()["neo4j"] == "up"
    hits = await mem.search("new pet dog", ALICE, limit=1)
    assert hits[0].memory.source_text == CONVERSATION[0]["content"]


async def test_healthz_reports_an_unreachable_neo4j(
    neo4j_target: Neo4jTarget, memory: MemoryService
) -> None:
    with socket.socket() as probe:  # a port on which nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = neo4j_target.settings(neo4j_uri=f"bolt://127.0.0.1:{port}")
    from service.store.database import Database
    from service.store.repository import GraphStore

    db = Database(settings)
    service = MemoryService(settings, db, GraphStore(db), memory.embedder, memory.extractor)
    transport = httpx.ASGITransport(app=create_app(settings, memory=service))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/healthz")
    await db.close()
    assert response.status_code == 503
    body = response.json()
    assert body["neo4j"] == "down" and str(port) in body["detail"]


async def test_the_served_app_freezes_what_start_loaded_and_thaws_it_on_close(
    neo4j_target: Neo4jTarget,
) -> None:
    app = create_app(neo4j_target.settings())  # starts a Memory of its own, as `engram serve`
    # 0 on 3.11 and 3.13; CPython 3.12 starts with a few hundred objects frozen (375 on 3.12.1).
    before = gc.get_freeze_count()
    assert before < 1_000
    async with app.router.lifespan_context(app):
        # The models are left out of full collections while the app serves.
        assert gc.get_freeze_count() > before + 100_000
        assert await app.state.memory.db.ping()
    assert gc.get_freeze_count() <= before
