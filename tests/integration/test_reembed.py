"""Embedding versions against a real Neo4j: stale memories are found at start-up, `engram
reembed` migrates them in resumable batches, and a new vector size rebuilds the index."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections.abc import AsyncIterator

import httpx
import pytest
from typer.testing import CliRunner

from service.api.app import create_app
from service.cli import app as cli
from service.core.config import get_settings
from service.core.domain import Scope
from service.embedding.embedder import Embedder
from service.lifecycle.reembed import check_embeddings, reembed
from service.memory import MemoryService
from service.store.schema import apply_schema
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
FACTS = [
    "Alice adopted a golden retriever puppy named Biscuit.",
    "Alice works as a nurse at the city hospital.",
    "Alice is learning to play the cello on weekends.",
    "Alice moved to Lisbon in the spring.",
    "Alice is allergic to peanuts and shellfish.",
]
PET_QUERY = "new pet dog"  # shares no word with the Biscuit fact: only vectors can find it


class FakeEmbedder(Embedder):
    """Another "model": deterministic random unit vectors per text, unrelated to meaning."""

    def __init__(self, model_name: str, dimensions: int) -> None:  # no model files to load
        self.model_name = model_name
        self.dimensions = dimensions
        self.context_weight = 0.5

    def embed(self, texts: list[str], batch_size: int = 64) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _vector(self, text: str) -> list[float]:
        rng = random.Random(hashlib.sha256(text.encode()).digest())
        raw = [rng.gauss(0.0, 1.0) for _ in range(self.dimensions)]
        norm = sum(x * x for x in raw) ** 0.5
        return [x / norm for x in raw]


async def add_under(mem: MemoryService, embedder: Embedder, texts: list[str]) -> list[str]:
    """Memories written exactly as Memory.add writes them, by a service on ``embedder``."""
    other = MemoryService(mem.settings, mem.db, mem.store, embedder, mem.extractor)
    result = await other.add([{"content": t, "speaker": "Alice"} for t in texts], ALICE, False)
    assert len(result.added) == len(texts)
    return result.added


async def stored(target: Neo4jTarget) -> dict[str, dict[str, object]]:
    rows = await run_cypher(
        target,
        "MATCH (m:Memory) RETURN m.id AS id, m.text AS text, "
        "m.embedding AS embedding, m.embedding_model AS model, m.context_texts AS context, "
        "m.content_embedding AS own",
    )
    return {str(r["id"]): r for r in rows}


async def index_dimensions(target: Neo4jTarget) -> int | None:
    rows = await run_cypher(
        target,
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'memory_embedding' "
        "RETURN options.indexConfig['vector.dimensions'] AS d",
    )
    return int(rows[0]["d"]) if rows else None  # type: ignore[call-overload]


async def partition_dimensions(target: Neo4jTarget) -> set[int]:
    """The sizes of the per-user partitions' vector indexes (service/store/index_shards.py)."""
    rows = await run_cypher(
        target,
        "SHOW VECTOR INDEXES YIELD name, options "
        "WHERE name STARTS WITH 'memory_embedding_shard_' "
        "RETURN options.indexConfig['vector.dimensions'] AS d",
    )
    return {int(r["d"]) for r in rows}  # type: ignore[call-overload]


@pytest.fixture
async def fresh_start(mem: MemoryService) -> AsyncIterator[list[MemoryService]]:
    """Memory services started (Memory.start) by the test; closed after it."""
    started: list[MemoryService] = []
    yield started
    for service in started:
        await service.close()


async def start(
    mem: MemoryService, embedder: Embedder, started: list[MemoryService]
) -> MemoryService:
    service = await MemoryService.start(mem.settings, embedder=embedder, extractor=mem.extractor)
    started.append(service)
    return service


async def test_start_up_counts_by_model_and_reembed_also_by_vector_size(
    mem: MemoryService, embedder: Embedder, neo4j_target: Neo4jTarget
) -> None:
    [old] = await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS[:1])
    [short] = await add_under(mem, embedder, FACTS[1:2])
    await run_cypher(
        neo4j_target, "MATCH (m:Memory {id: $id}) SET m.embedding = [1.0, 0.0]", id=short
    )  # the current model's name on a vector of another size
    quick = await check_embeddings(mem.db, embedder)
    exact = await check_embeddings(mem.db, embedder, exact=True)
    assert (quick.stale, exact.stale) == (1, 2)
    report = await reembed(mem.db, embedder)
    assert report.migrated == 2 and report.remaining == 0
    assert {r["id"]: len(r["embedding"]) for r in (await stored(neo4j_target)).values()} == {
        old: embedder.dimensions,
        short: embedder.dimensions,
    }


async def test_start_up_counts_memories_of_another_model(
    mem: MemoryService,
    embedder: Embedder,
    fresh_start: list[MemoryService],
    caplog: pytest.LogCaptureFixture,
) -> None:
    await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS)
    await add_under(mem, embedder, ["Alice drinks green tea every morning before work."])
    with caplog.at_level(logging.WARNING, logger="service.lifecycle.reembed"):
        service = await start(mem, embedder, fresh_start)
    status = service.embedding_status
    assert status is not None
    assert (status.model, status.stale) == (embedder.model_name, len(FACTS))
    assert status.index_dimensions == status.dimensions == embedder.dimensions
    assert f"{len(FACTS)} memories" in caplog.text and "engram reembed" in caplog.text
    transport = httpx.ASGITransport(app=create_app(mem.settings, memory=service))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        body = (await client.get("/healthz")).json()
    assert body["status"] == "ok"
    assert body["embeddings"]["model"] == embedder.model_name
    assert body["embeddings"]["stale"] == len(FACTS)


async def test_reembed_migrates_in_batches_and_search_finds_by_meaning(
    mem: MemoryService, embedder: Embedder, neo4j_target: Neo4jTarget
) -> None:
    ids = await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS)
    seen: list[tuple[int, int]] = []
    report = await reembed(
        mem.db, embedder, batch_size=2, progress=lambda d, t: seen.append((d, t))
    )
    assert (report.stale, report.migrated, report.remaining) == (5, 5, 0)
    assert not report.rebuilt_index
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]  # three batches of at most two
    after = await stored(neo4j_target)
    # One add() call: each fact's vector is mixed with the one before it, under the new model
    # exactly as add() would mix it.
    assert [after[i]["context"] for i in ids] == [[], *([f] for f in FACTS[:-1])]
    expected = await embedder.aembed_memories(FACTS, [[], *([f] for f in FACTS[:-1])])
    for memory_id, vectors in zip(ids, expected, strict=True):
        assert after[memory_id]["model"] == embedder.model_name
        assert after[memory_id]["embedding"] == pytest.approx(vectors.search, abs=1e-6)
        own = after[memory_id]["own"]
        assert own == (None if vectors.content is None else pytest.approx(vectors.own, abs=1e-6))
    [top, *_] = await mem.search(PET_QUERY, ALICE)
    assert top.memory.text == FACTS[0]
    assert any(r.retriever == "vector" and r.rank == 1 for r in top.retrievers)


async def test_a_second_run_migrates_nothing(mem: MemoryService, embedder: Embedder) -> None:
    await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS)
    first = await reembed(mem.db, embedder, batch_size=2)
    second = await reembed(mem.db, embedder, batch_size=2)
    assert (first.migrated, second.stale, second.migrated) == (5, 0, 0)


async def test_an_interrupted_run_keeps_its_batches_and_the_next_one_finishes(
    mem: MemoryService, embedder: Embedder, neo4j_target: Neo4jTarget
) -> None:
    await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS)

    def stop_after_first_batch(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await reembed(mem.db, embedder, batch_size=2, progress=stop_after_first_batch)
    models = [r["model"] for r in (await stored(neo4j_target)).values()]
    assert models.count(embedder.model_name) == 2 and models.count("old-model") == 3
    rest = await reembed(mem.db, embedder, batch_size=2)
    assert (rest.stale, rest.migrated, rest.remaining) == (3, 3, 0)


async def test_dry_run_counts_and_changes_nothing(
    mem: MemoryService, embedder: Embedder, neo4j_target: Neo4jTarget
) -> None:
    await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS)
    before = await stored(neo4j_target)
    report = await reembed(mem.db, embedder, dry_run=True)
    assert (report.dry_run, report.stale, report.migrated) == (True, 5, 0)
    assert await stored(neo4j_target) == before


@pytest.fixture
async def restore_vector_index(
    mem: MemoryService, neo4j_target: Neo4jTarget, embedder: Embedder
) -> AsyncIterator[None]:
    """The other tests need the real model's index back, whatever this test left behind."""
    yield
    sizes = {await index_dimensions(neo4j_target)} | await partition_dimensions(neo4j_target)
    if sizes != {embedder.dimensions}:
        await drop_vector_indexes(neo4j_target)
        await apply_schema(mem.db, embedder.dimensions)


async def drop_vector_indexes(target: Neo4jTarget) -> None:
    """The global vector index and the partitions' (names from SHOW, not from the code)."""
    rows = await run_cypher(
        target,
        "SHOW VECTOR INDEXES YIELD name WHERE name STARTS WITH 'memory_embedding' RETURN name",
    )
    for row in rows:
        await run_cypher(target, f"DROP INDEX `{row['name']}` IF EXISTS")


async def test_a_new_vector_size_rebuilds_the_index(
    mem: MemoryService,
    embedder: Embedder,
    neo4j_target: Neo4jTarget,
    fresh_start: list[MemoryService],
    restore_vector_index: None,
) -> None:
    await drop_vector_indexes(neo4j_target)
    tiny = await start(mem, FakeEmbedder("tiny-8d", 8), fresh_start)  # schema with 8 dimensions
    await add_under(tiny, tiny.embedder, FACTS)
    assert await index_dimensions(neo4j_target) == 8
    assert await partition_dimensions(neo4j_target) == {8}
    service = await start(mem, embedder, fresh_start)  # the model changed: 384 dimensions
    status = service.embedding_status
    assert status is not None and (status.index_dimensions, status.stale) == (8, 5)
    assert "has 8 dimensions" in (status.problem() or "")
    report = await reembed(service.db, embedder, batch_size=2)
    assert report.rebuilt_index and (report.migrated, report.remaining) == (5, 0)
    assert await index_dimensions(neo4j_target) == embedder.dimensions
    assert await partition_dimensions(neo4j_target) == {embedder.dimensions}
    assert all(
        len(r["embedding"]) == embedder.dimensions  # type: ignore[arg-type]
        for r in (await stored(neo4j_target)).values()
    )
    [top, *_] = await service.search(PET_QUERY, ALICE)
    assert top.memory.text == FACTS[0]
    assert any(r.retriever == "vector" and r.rank == 1 for r in top.retrievers)


async def test_cli_dry_run_then_reembed(
    mem: MemoryService,
    embedder: Embedder,
    neo4j_target: Neo4jTarget,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await add_under(mem, FakeEmbedder("old-model", embedder.dimensions), FACTS[:3])
    monkeypatch.setenv("ENGRAM_NEO4J_URI", neo4j_target.uri)
    monkeypatch.setenv("ENGRAM_NEO4J_USER", neo4j_target.user)
    monkeypatch.setenv("ENGRAM_NEO4J_PASSWORD", neo4j_target.password)
    get_settings.cache_clear()
    try:  # in a thread: the command runs its own event loop
        dry = await asyncio.to_thread(CliRunner().invoke, cli, ["reembed", "--dry-run"])
        real = await asyncio.to_thread(CliRunner().invoke, cli, ["reembed", "--batch-size", "2"])
    finally:
        get_settings.cache_clear()
    assert dry.exit_code == 0, dry.output
    assert "3 memories would be re-embedded" in dry.output
    assert real.exit_code == 0, real.output
    assert "re-embedded 3 memories" in real.output
    models = {r["model"] for r in (await stored(neo4j_target)).values()}
    assert models == {embedder.model_name}
