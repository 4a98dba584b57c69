"""The bulk loader against a real Neo4j (service/ingest/bulk.py, `engram import --bulk`): one
memory per message with its provenance and vectors, searchable; a second run writes nothing; a
run stopped part way is finished by running it again, embedding only what had not landed; a
bad line writes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.core.config import get_settings
from service.core.domain import MessageIn, Scope
from service.core.errors import ValidationError
from service.embedding.embedder import Vector
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher

ANA, BEN = Scope(user_id="bulk-ana"), Scope(user_id="bulk-ben")
START = datetime(2025, 3, 1, 9, tzinfo=UTC)
TOPICS = ("sourdough bread", "the cello", "rock climbing", "Portuguese", "tide pools", "chess")
MEMORIES = """MATCH (m:Memory {user_id: $u})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg:Message)
RETURN m.id AS id, m.text AS text, size(m.embedding) AS dims, m.embedding_model AS model,
       [l IN labels(m) WHERE l STARTS WITH 'MemoryShard_'] AS shards,
       collect(msg.id) AS sources"""
ADD_EVENTS = "MATCH (e:MemoryEvent {op: 'ADD', user_id: $u}) RETURN count(e) AS n"


def said(scope: Scope, count: int, first: int = 0) -> list[tuple[Scope, MessageIn]]:
    """``count`` distinct one-line messages of ``scope``, a minute apart."""
    return [
        (
            scope,
            MessageIn(
                content=f"On day {i} I practised {TOPICS[i % len(TOPICS)]} for {i + 5} minutes.",
                timestamp=START + timedelta(minutes=i),
            ),
        )
        for i in range(first, first + count)
    ]


async def stored(target: Neo4jTarget, scope: Scope) -> list[dict[str, object]]:
    return await run_cypher(target, MEMORIES, u=scope.user_id)


async def add_events(target: Neo4jTarget, scope: Scope) -> int:
    [row] = await run_cypher(target, ADD_EVENTS, u=scope.user_id)
    return int(str(row["n"]))


async def test_one_memory_per_message_with_provenance(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    messages = said(ANA, 23) + said(BEN, 7)
    report = await mem.import_bulk(messages, batch_size=10)
    assert (report.messages, report.added, report.repeated) == (30, 30, 0)
    assert report.batches == 4  # 10 + 10 + 3 of Ana's, then Ben's 7: a batch holds one scope
    rows = await stored(neo4j_target, ANA)
    assert sorted(str(r["text"]) for r in rows) == sorted(m.content for _, m in messages[:23])
    dims = mem.settings.embedding_dimensions
    assert all(r["dims"] == dims and r["model"] == mem.embedder.model_name for r in rows)
    assert all(len(r["sources"]) == 1 for r in rows)  # type: ignore[arg-type]
    assert {len(r["shards"]) for r in rows} == {1}  # type: ignore[arg-type]
    assert len(await stored(neo4j_target, BEN)) == 7
    hits = await mem.search("how long did I practise the cello?", ANA, limit=5)
    assert hits and "cello" in hits[0].memory.text
    assert all(h.memory.user_id == ANA.user_id for h in hits)


async def test_second_run_writes_nothing(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    messages = said(ANA, 12)
    await mem.import_bulk(messages, batch_size=5)
    events = await add_events(neo4j_target, ANA)
    again = await mem.import_bulk(messages, batch_size=5)
    assert (again.added, again.repeated) == (0, 12)
    assert len(await stored(neo4j_target, ANA)) == 12
    assert await add_events(neo4j_target, ANA) == events == 12


async def test_the_same_text_twice_is_one_memory_with_two_sources(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    [(_, first)] = said(ANA, 1)
    later = first.model_copy(update={"timestamp": START + timedelta(days=3)})
    report = await mem.import_bulk([(ANA, first), (ANA, later)])
    assert (report.added, report.repeated) == (1, 0)  # one candidate with both sources
    [row] = await stored(neo4j_target, ANA)
    assert len(row["sources"]) == 2  # type: ignore[arg-type]
    third = first.model_copy(update={"timestamp": START + timedelta(days=9)})
    again = await mem.import_bulk([(ANA, third)])
    assert (again.added, again.repeated) == (0, 1)
    [row] = await stored(neo4j_target, ANA)
    assert len(row["sources"]) == 3  # type: ignore[arg-type]


class Stop(Exception):
    """Stands for a kill part way through a load."""


async def test_a_stopped_load_is_finished_by_running_it_again(
    mem: MemoryService, neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = said(ANA, 40)
    finished: list[int] = []

    def stop_after_two(done: int) -> None:
        finished.append(done)
        if len(finished) == 2:
            raise Stop

    with pytest.raises(Stop):
        await mem.import_bulk(messages, batch_size=8, progress=stop_after_two)
    landed = len(await stored(neo4j_target, ANA))
    assert landed == 16  # the two whole batches before the stop, not the one prepared next
    embedded: list[str] = []
    embed = mem.embedder.aembed

    async def counting(texts: list[str]) -> list[Vector]:
        embedded.extend(texts)
        return await embed(texts)

    monkeypatch.setattr(mem.embedder, "aembed", counting)
    rest = await mem.import_bulk(messages, batch_size=8)
    assert (rest.added, rest.repeated) == (24, 16)
    assert len(await stored(neo4j_target, ANA)) == 40
    assert await add_events(neo4j_target, ANA) == 40
    landed_texts = {m.content for _, m in messages[:16]}
    assert not landed_texts & set(embedded)  # what had landed is found, not embedded again


async def test_batch_size_out_of_range_is_refused(mem: MemoryService) -> None:
    with pytest.raises(ValidationError, match="batch_size"):
        await mem.import_bulk(said(ANA, 2), batch_size=0)


def test_cli_bulk_import(
    tmp_path: Path, neo4j_target: Neo4jTarget, mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        {"user_id": "bulk-ana", "content": "I keep bees on the roof.", "timestamp": "2025-01-02"},
        {"user_id": "bulk-ana", "content": "My hives made 9 kg of honey.", "id": "h2"},
        {"agent_id": "bulk-bot", "content": "The user prefers short answers."},
        {"conversation_id": "bulk-c1", "content": "We met at the pottery class."},
    ]
    good = tmp_path / "memories.jsonl"
    good.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"user_id": "bulk-ben", "content": "fine"}) + "\n{not json\n", encoding="utf-8"
    )
    monkeypatch.setenv("ENGRAM_NEO4J_URI", neo4j_target.uri)
    monkeypatch.setenv("ENGRAM_NEO4J_PASSWORD", neo4j_target.password)
    get_settings.cache_clear()
    try:
        first = CliRunner().invoke(app, ["import", "--bulk", str(good)])
        second = CliRunner().invoke(app, ["import", "--bulk", str(good)])
        refused = CliRunner().invoke(app, ["import", "--bulk", str(bad)])
    finally:
        get_settings.cache_clear()
    assert first.exit_code == 0, first.output
    assert "loaded 4 messages" in first.output and "4 memories added" in first.output
    assert second.exit_code == 0 and "0 memories added" in second.output
    assert "4 already stored" in second.output
    assert refused.exit_code == 1 and "line 2: not valid JSON" in refused.output
    owners = """MATCH (m:Memory) RETURN m.user_id AS user, m.agent_id AS agent ORDER BY m.text"""
    import asyncio

    rows = asyncio.run(run_cypher(neo4j_target, owners))
    assert [(r["user"], r["agent"]) for r in rows] == [
        ("bulk-ana", None),
        ("bulk-ana", None),
        (None, "bulk-bot"),
        ("bulk-c1", None),
    ]
