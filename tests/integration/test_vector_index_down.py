"""Without a usable vector index (dropped, or sized for another model during `engram reembed`)
search and add keep working: exact cosine over the scope replaces the index, and adding skips
only the near-duplicate check."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from service.core.domain import Scope
from service.memory import MemoryService
from service.store.schema import apply_schema
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
BOB = Scope(user_id="bob")
CONVERSATION = [
    {"content": "I adopted a golden retriever puppy last weekend.", "speaker": "Alice"},
    {"content": "The quarterly tax filing is due on Friday.", "speaker": "Alice"},
    {"content": "Our team migrated the billing service to Kubernetes.", "speaker": "Alice"},
]
EIGHT_DIMENSIONS = (
    "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (m:{label}) ON m.embedding "
    "OPTIONS {{indexConfig: {{`vector.dimensions`: 8, `vector.similarity_function`: 'cosine'}}}}"
)


@pytest.fixture(params=["dropped", "eight-dimensional"])
async def index_down(
    request: pytest.FixtureRequest, mem: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[MemoryService]:
    await mem.add(CONVERSATION, ALICE)
    kitten = {"content": "I adopted a tabby kitten from the shelter.", "speaker": "Bob"}
    await mem.add([kitten], BOB)
    # The global index and the partitions that serve alice and bob (store/index_shards.py).
    shards = mem.store.shards
    indexes = {
        shards.vector_index(s.user_id): shards.label(s.user_id) or "Memory" for s in (ALICE, BOB)
    } | {"memory_embedding": "Memory"}
    for name in indexes:
        await run_cypher(neo4j_target, f"DROP INDEX {name} IF EXISTS")
    if request.param == "eight-dimensional":
        for name, label in indexes.items():
            await run_cypher(neo4j_target, EIGHT_DIMENSIONS.format(name=name, label=label))
        await run_cypher(neo4j_target, "CALL db.awaitIndexes(60)")
    try:
        yield mem
    finally:
        for name in indexes:
            await run_cypher(neo4j_target, f"DROP INDEX {name} IF EXISTS")
        await apply_schema(mem.db, mem.embedder.dimensions)


async def test_search_ranks_the_scope_exactly_without_the_index(index_down: MemoryService) -> None:
    hits = await index_down.search("new pet dog", ALICE, limit=3)
    assert hits[0].memory.source_text == CONVERSATION[0]["content"]
    assert all(h.memory.user_id == "alice" for h in hits)


async def test_add_still_writes_and_still_skips_exact_repeats(index_down: MemoryService) -> None:
    message = {"content": "I started learning the cello in March.", "speaker": "Alice"}
    first = await index_down.add([message], ALICE)
    assert len(first.added) == 1
    again = await index_down.add([message], ALICE)
    assert again.added == [] and again.unchanged
    hits = await index_down.search("musical instrument lessons", ALICE, limit=1)
    assert "cello" in hits[0].memory.text
