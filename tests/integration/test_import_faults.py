"""Neo4j stops in the middle of `engram import`: the command says what was written, every
committed batch is whole, and running it again completes the import with nothing twice.

The test runs its own local Neo4j (ports 7705 / 7495, a throw-away data folder) so that it can
stop and restart it; the session's shared server is never touched.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from service.cli import app
from service.core.config import Settings, get_settings
from service.core.domain import Scope
from service.embedding.embedder import Embedder
from service.memory import MemoryService
from service.store.local_server import LocalNeo4j
from tests.conftest import Neo4jTarget, run_cypher

BOLT_PORT, HTTP_PORT = 7705, 7495
BATCH = 3  # messages per transaction: 15 transactions for the file below
PER_CONVERSATION = 15
TOTAL = PER_CONVERSATION * 3
SPEAKERS = {"c1": "Ana", "c2": "Ben", "c3": "Chloe"}
DEEDS = [
    "adopted a grey kitten named Pixel",
    "started learning the cello",
    "ran a half marathon in Porto",
    "repainted the kitchen a pale yellow",
    "booked a ferry trip to the Faroe Islands",
    "finished reading Moby Dick",
    "joined a chess club at the library",
    "planted tomatoes on the balcony",
    "sold an old motorbike to a neighbour",
    "baked sourdough bread for the first time",
    "fixed the leaking bathroom tap",
    "visited the Prado museum in Madrid",
    "signed up for a welding course",
    "lost a wallet on the night bus",
    "bought noise cancelling headphones",
    "taught a nephew to ride a bicycle",
    "volunteered at the food bank on Saturday",
    "switched from coffee to green tea",
    "hiked up Ben Nevis in the fog",
    "built a birdhouse out of pine",
    "learned to juggle three oranges",
    "moved the piano into the spare room",
    "watched a solar eclipse from the roof",
    "started a podcast about trains",
    "knitted a scarf for a grandmother",
    "sprained an ankle playing volleyball",
    "won a pub quiz about geography",
    "repaired an antique clock",
    "took a pottery class in Kyoto",
    "wrote a short story about a lighthouse",
]
INTERRUPTED = re.compile(
    r"Neo4j stopped answering in conversation (\S+) at message (\d+): "
    r"(\d+) messages were written before that \(\d+ memories added\); "
    r"the (\d+) being written then may have landed too"
)


def conversation_file(path: Path) -> dict[str, list[str]]:
    """Three conversations of 15 messages as JSON Lines; the message ids of each, in order."""
    ids: dict[str, list[str]] = {}
    lines = []
    for n, (conv, speaker) in enumerate(SPEAKERS.items()):
        for i in range(PER_CONVERSATION):
            ids.setdefault(conv, []).append(f"{conv}-{i}")
            deed = DEEDS[(i + 3 * n) % len(DEEDS)]
            lines.append(
                json.dumps(
                    {
                        "conversation_id": conv,
                        "id": f"{conv}-{i}",
                        "speaker": speaker,
                        "timestamp": f"2024-03-{1 + i:02d}T10:00:00Z",
                        "content": f"Yesterday I {deed}.",
                    }
                )
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ids


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4j]:
    """A Neo4j this module may stop and restart: its own ports and data folder."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", BOLT_PORT)) == 0:
            pytest.fail(f"port {BOLT_PORT} is taken: the fault test needs its own Neo4j there")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path_factory.mktemp("engram-fault-data"),
        neo4j_bolt_port=BOLT_PORT,
        neo4j_http_port=HTTP_PORT,
        neo4j_heap="512m",
        neo4j_pagecache="256m",
    )
    server = LocalNeo4j(settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def engram_import(path: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    """`engram import` exactly as a user runs it, against the test's own server."""
    monkeypatch.setenv("ENGRAM_NEO4J_URI", f"bolt://127.0.0.1:{BOLT_PORT}")
    monkeypatch.setenv("ENGRAM_NEO4J_PASSWORD", "")
    get_settings.cache_clear()
    try:
        return CliRunner().invoke(app, ["import", str(path), "--batch-size", str(BATCH)])
    finally:
        get_settings.cache_clear()


async def stop_once_written(target: Neo4jTarget, server: LocalNeo4j, messages: int) -> None:
    """Stop the server (SIGTERM, as an operator or a crash-restarting supervisor would) as soon
    as the import has committed ``messages`` messages, while it is still writing."""
    while await count(target, "MATCH (m:Message) RETURN count(m) AS n") < messages:
        await asyncio.sleep(0.05)
    await asyncio.to_thread(server.stop)


async def count(target: Neo4jTarget, cypher: str) -> int:
    return int((await run_cypher(target, cypher))[0]["n"])  # type: ignore[call-overload]


async def snapshot(target: Neo4jTarget) -> dict[str, Any]:
    """What an import left: ids per label, edge counts, ADD events, and the memories derived
    from each message."""
    rows = await run_cypher(
        target,
        "MATCH (n) WHERE n:Message OR n:Memory OR n:Entity "
        "RETURN labels(n)[0] AS label, collect(coalesce(n.external_id, n.id, n.key)) AS ids",
    )
    derived = await run_cypher(
        target,
        "MATCH (msg:Message) OPTIONAL MATCH (m:Memory)-[:DERIVED_FROM]->(msg) "
        "RETURN msg.external_id AS message, collect(m.id) AS memories",
    )
    return {
        "ids": {str(r["label"]): sorted(r["ids"]) for r in rows},  # type: ignore[call-overload]
        "derived": {str(r["message"]): sorted(r["memories"]) for r in derived},  # type: ignore[call-overload]
        "mentions": await count(target, "MATCH ()-[r:MENTIONS]->() RETURN count(r) AS n"),
        "derived_from": await count(target, "MATCH ()-[r:DERIVED_FROM]->() RETURN count(r) AS n"),
        "adds": await count(target, "MATCH (e:MemoryEvent {op: 'ADD'}) RETURN count(e) AS n"),
    }


async def duplicates(target: Neo4jTarget) -> int:
    """Memories that repeat another's text hash in the same scope, and repeated message ids."""
    memories = await count(
        target,
        "MATCH (m:Memory) WITH m.user_id AS scope, m.hash AS hash, count(*) AS copies "
        "WHERE copies > 1 RETURN count(*) AS n",
    )
    messages = await count(
        target, "MATCH (m:Message) RETURN count(m) - count(DISTINCT m.external_id) AS n"
    )
    return memories + messages


def interruption(output: str) -> tuple[str, int, int, int]:
    """Conversation, offset, messages written and messages in flight, from the command's
    interruption message."""
    found = INTERRUPTED.search(" ".join(output.split()))  # rich wraps long lines
    assert found, output
    conversation, *numbers = found.groups()
    offset, written, in_flight = map(int, numbers)
    return conversation, offset, written, in_flight


async def test_an_import_interrupted_by_neo4j_reports_what_it_wrote_and_a_rerun_completes_it(
    own_server: LocalNeo4j,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = Neo4jTarget(f"bolt://127.0.0.1:{BOLT_PORT}", "neo4j", "", own_server)
    source = tmp_path / "chats.jsonl"
    ids = conversation_file(source)
    # The reference: one clean import of the same file into an empty database.
    clean = await asyncio.to_thread(engram_import, source, monkeypatch)
    assert clean.exit_code == 0 and f"imported {TOTAL} messages" in clean.output, clean.output
    reference = await snapshot(target)
    assert len(reference["ids"]["Message"]) == TOTAL and reference["ids"]["Memory"]
    await run_cypher(target, "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS")
    reader = await MemoryService.start(target.settings(), embedder=embedder)
    try:
        assert not await reader.search("Who learned the cello?", Scope(user_id="c1"))
        # Neo4j goes away after the second batch has committed, while the import goes on.
        stopper = asyncio.create_task(stop_once_written(target, own_server, 2 * BATCH))
        broken = await asyncio.to_thread(engram_import, source, monkeypatch)
        await asyncio.wait_for(stopper, timeout=120)
        assert broken.exit_code == 2, f"the import did not notice the outage:\n{broken.output}"
        conversation, offset, written, in_flight = interruption(broken.output)
        assert "Run the same command again" in broken.output

        await asyncio.to_thread(own_server.start)
        after_outage = await snapshot(target)

        # What the command reported is there, in whole batches and file order; the batch in
        # flight is there whole or not at all (its commit may have landed unacknowledged).
        convs = list(ids)
        reported = [i for c in convs[: convs.index(conversation)] for i in ids[c]]
        reported += ids[conversation][:offset]
        landed = reported + ids[conversation][offset : offset + in_flight]
        assert offset % BATCH == 0 and written == len(reported) and in_flight == BATCH
        assert after_outage["ids"]["Message"] in (sorted(reported), sorted(landed))
        assert len(after_outage["ids"]["Message"]) >= 2 * BATCH
        # Each batch there is intact: every message has the memories a clean import gives it.
        stored = after_outage["ids"]["Message"]
        assert after_outage["derived"] == {m: reference["derived"][m] for m in stored}
        # The same Memory object searches again once the server is back, without a restart.
        hits = await reader.search("Who learned the cello?", Scope(user_id="c1"))
        assert any("cello" in hit.memory.text for hit in hits)
    finally:
        await reader.close()

    rerun = await asyncio.to_thread(engram_import, source, monkeypatch)

    assert rerun.exit_code == 0 and f"imported {TOTAL} messages" in rerun.output, rerun.output
    assert await snapshot(target) == reference
    assert await duplicates(target) == 0
