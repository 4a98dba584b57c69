"""A scope's export and import at size: the import's cost against ingesting the conversations
again, and how its answers compare with the store it came from.

    .venv/bin/python -m bench.export_roundtrip [--messages 2000] [--page-size 500] [--batch 500]

It empties the store it runs on, so it runs on a Neo4j of its own: a throw-away local server
(ports 7706/7496, a temporary folder), or ENGRAM_NEO4J_URI when that store holds no memory.

--messages varied synthetic messages (bench/synthetic.py) are ingested into one scope through
add_batches (what `engram import` of conversations runs), and --questions searches are asked
(top 10). Then, all in this one run:
  export     the scope to a file (ENGRAM_EXPORT_PAGE_SIZE = --page-size)
  rebuilt    the baseline: the same store with its vector and full-text indexes dropped and
             built again: how much an index's build history alone moves the answers
  restored   the store emptied and the file imported (--batch records per transaction)
  again      the restored scope exported, the store emptied, that file imported
Reported: the import's and the export's time over the ingest's, the file's bytes per memory,
whether the restored scope exports the same records, and per comparison how many top-10 lists
are the same (ids, order, scores) and the mean share of top-10 ids in common.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import scratch_neo4j, write_result
from bench.synthetic import natural_questions, varied_messages
from service.core.config import Settings
from service.core.domain import Scope
from service.core.export_records import to_line
from service.lifecycle.operations import RESET_PHRASE
from service.memory import MemoryService
from service.store.catalog import query
from service.store.embedding_queries import EmbeddingStore
from service.store.index_shards import drop_shard_indexes
from service.store.schema import apply_schema

SCOPE = Scope(user_id="bench-export")
SEED = 11
Answers = list[list[tuple[str, float]]]


@asynccontextmanager
async def own_store(page_size: int) -> AsyncIterator[MemoryService]:
    """A MemoryService on an empty store that this run may empty again."""
    base = Settings(allow_reset=True, export_page_size=page_size)
    with scratch_neo4j(base, 7706, 7496) as settings:
        memory = await MemoryService.start(settings)
        try:
            [row] = await memory.db.read("count_user_memories")
            if row["memories"]:
                raise SystemExit(f"{memory.db.uri} holds memories: this bench empties its store")
            try:
                yield memory
            finally:
                await memory.reset(RESET_PHRASE)
        finally:
            await memory.close()


async def answers(memory: MemoryService, questions: list[str]) -> Answers:
    found = []
    for q in questions:
        hits = await memory.search(q, SCOPE, limit=10)
        found.append([(h.memory.id, round(h.score, 9)) for h in hits])
    return found


def compare(a: Answers, b: Answers) -> dict[str, float]:
    """How many top-10 lists are the same, and the mean share of their ids in common."""
    pairs = list(zip(a, b, strict=True))
    common = [_overlap({i for i, _ in x}, {i for i, _ in y}) for x, y in pairs]
    return {
        "same_lists": sum(x == y for x, y in pairs),
        "mean_overlap": round(sum(common) / len(common), 3),
    }


def _overlap(x: set[str], y: set[str]) -> float:
    """The share of ids in common (two empty answers agree)."""
    return len(x & y) / max(len(x), len(y)) if x or y else 1.0


async def export(memory: MemoryService, path: Path) -> float:
    began = time.perf_counter()
    with path.open("w", encoding="utf-8") as f:
        async for record in memory.export(SCOPE):
            f.write(to_line(record))
    return time.perf_counter() - began


async def rebuild_indexes(memory: MemoryService) -> None:
    """Drop the vector and full-text indexes and build them again from the stored memories."""
    await drop_shard_indexes(memory.db)
    await EmbeddingStore(memory.db).drop_vector_index()
    for name in ("memory_text", "entity_name"):
        await memory.db.run_statement(query("drop_text_index").replace("{name}", name))
    await apply_schema(memory.db, memory.embedder.dimensions)
    if memory.counts is not None:
        memory.counts.clear()


async def restore_into_empty(memory: MemoryService, path: Path, batch: int) -> float:
    await memory.reset(RESET_PHRASE)
    return (await memory.restore(path, batch)).seconds


async def run(memory: MemoryService, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    rng = random.Random(SEED)
    messages = varied_messages(rng, args.messages, 0, datetime(2026, 1, 1, tzinfo=UTC))
    messages.sort(key=lambda m: m.timestamp or datetime.min)
    questions = natural_questions(rng, args.questions)
    began = time.perf_counter()
    batches = [(messages[i : i + 64], SCOPE) for i in range(0, len(messages), 64)]
    async for _ in memory.add_batches(batches):
        pass
    ingest_s = time.perf_counter() - began
    first, again = folder / "first.jsonl", folder / "again.jsonl"
    original = await answers(memory, questions)
    export_s = await export(memory, first)
    await rebuild_indexes(memory)
    rebuilt = await answers(memory, questions)
    import_s = await restore_into_empty(memory, first, args.batch)
    restored = await answers(memory, questions)
    await export(memory, again)
    await restore_into_empty(memory, again, args.batch)
    twice = await answers(memory, questions)
    lines = first.read_text(encoding="utf-8").splitlines()
    counts = json.loads(lines[-1])["counts"]
    return {
        "messages": args.messages,
        "questions": len(questions),
        "page_size": args.page_size,
        "batch": args.batch,
        "records": counts,
        "bytes_per_memory": round(first.stat().st_size / max(counts["memories"], 1)),
        "import_over_ingest": round(import_s / ingest_s, 4),
        "export_over_ingest": round(export_s / ingest_s, 4),
        "reexport_identical": lines[1:] == again.read_text(encoding="utf-8").splitlines()[1:],
        "original_vs_rebuilt": compare(original, rebuilt),
        "original_vs_restored": compare(original, restored),
        "restored_vs_restored_again": compare(restored, twice),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="engram-bench-export-") as folder:
        async with own_store(args.page_size) as memory:
            return await run(memory, args, Path(folder))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--batch", type=int, default=500)
    result = asyncio.run(main(parser.parse_args()))
    print(result)
    print(write_result("export.json", result, "bench.export_roundtrip"))
