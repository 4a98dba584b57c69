"""`engram import` end to end against a real Neo4j: a summary, and a re-run writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.core.config import get_settings
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher


def await_rows(target: Neo4jTarget) -> list[int]:
    import asyncio

    rows = asyncio.run(
        run_cypher(target, "MATCH (m:Message {user_id: 'ana'}) RETURN count(m) AS n")
    )
    return [int(r["n"]) for r in rows]  # type: ignore[call-overload]


def test_import_twice_writes_once(
    tmp_path: Path, neo4j_target: Neo4jTarget, mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        {
            "conversation_id": "c1",
            "speaker": "Ana",
            "content": "I moved to Lisbon last year.",
            "timestamp": "2024-02-01T10:00:00Z",
            "id": "1",
        },
        {
            "conversation_id": "c1",
            "speaker": "Ben",
            "content": "I started learning the cello.",
            "timestamp": "2024-02-01T10:01:00Z",
            "id": "2",
        },
    ]
    source = tmp_path / "chat.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    monkeypatch.setenv("ENGRAM_NEO4J_URI", neo4j_target.uri)
    monkeypatch.setenv("ENGRAM_NEO4J_PASSWORD", neo4j_target.password)
    get_settings.cache_clear()
    try:
        first = CliRunner().invoke(app, ["import", str(source), "--user-id", "ana"])
        second = CliRunner().invoke(app, ["import", str(source), "--user-id", "ana"])
    finally:
        get_settings.cache_clear()
    assert first.exit_code == 0, first.output
    assert "imported 2 messages" in first.output and "2 added" in first.output
    assert second.exit_code == 0 and "0 added" in second.output and "2 unchanged" in second.output
    [count] = await_rows(neo4j_target)
    assert count == 2
