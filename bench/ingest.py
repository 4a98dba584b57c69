"""Ingest throughput end to end (NLP, embeddings, Neo4j) and per stage, with baselines.

    .venv/bin/python -m bench.ingest ../shared/data/locomo-dev.json

Runs, each into a fresh scope of its own:
  engram        extraction on (facts, entities, time, reconcile), batches of --batch messages
                through Memory.add_batches (what `engram import` runs: batch n + 1 extracted
                while batch n is embedded and written)
  engram-add    the same batches through add(), one after the other (no overlap)
  raw-batched   baseline: infer=False, one memory per message (Mem0's fast path), same batches
  engram-single baseline: extraction on, one message per call (what a chatty client does)
  synthetic     extraction on, a synthetic stream of --synthetic messages
  synthetic-add the same stream through add(), batch after batch
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.common import bench_settings, ensure_neo4j, write_result
from bench.synthetic import synthetic_messages
from service.core.domain import MessageIn, Scope
from service.ingest.importers import read_locomo
from service.memory import MemoryService


async def run(
    memory: MemoryService,
    name: str,
    messages: list[MessageIn],
    batch: int,
    infer: bool = True,
    pipelined: bool = True,
) -> dict[str, Any]:
    scope = Scope(user_id=f"bench-ingest-{name}")
    await memory.store.delete_scope(scope)
    stages: dict[str, float] = defaultdict(float)
    facts = 0
    began = time.perf_counter()
    batches = [(messages[i : i + batch], scope) for i in range(0, len(messages), batch)]
    if pipelined:
        results = [r async for r in memory.add_batches(batches, infer=infer)]
    else:
        results = [await memory.add(b, scope, infer=infer) for b, _ in batches]
    for result in results:
        facts += len(result.added) + len(result.updated)
        for stage, ms in result.stage_ms.items():
            stages[stage] += ms
    seconds = time.perf_counter() - began
    total_ms = sum(stages.values()) or 1.0
    await memory.store.delete_scope(scope)
    return {
        "messages": len(messages),
        "batch": batch,
        "infer": infer,
        "seconds": round(seconds, 3),
        "messages_per_s": round(len(messages) / seconds, 1),
        "memories_written": facts,
        "stages_ms": {k: round(v, 1) for k, v in stages.items()},
        "stage_share": {k: round(v / total_ms, 3) for k, v in stages.items()},
    }


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    conversation = read_locomo(args.data)[0]
    memory = await MemoryService.start(settings)
    try:
        await run(memory, "warmup", conversation.messages[:64], args.batch)
        runs = {
            "engram": await run(memory, "engram", conversation.messages, args.batch),
            "engram-add": await run(
                memory, "add", conversation.messages, args.batch, pipelined=False
            ),
            "raw-batched": await run(memory, "raw", conversation.messages, args.batch, False),
            "engram-single": await run(
                memory, "single", conversation.messages[:100], 1, pipelined=False
            ),
            "synthetic": await run(
                memory, "synthetic", synthetic_messages(args.synthetic), args.batch
            ),
            "synthetic-add": await run(
                memory,
                "synthetic-add",
                synthetic_messages(args.synthetic),
                args.batch,
                pipelined=False,
            ),
        }
    finally:
        await memory.close()
    show(runs)
    engram = runs["engram"]
    path = write_result(
        "ingest.json",
        {
            "messages_per_s": engram["messages_per_s"],
            "stages": engram["stage_share"],
            "stages_ms": engram["stages_ms"],
            "conversation": conversation.id,
            "runs": runs,
        },
        "bench.ingest",
    )
    Console().print(f"wrote {path}")


def show(runs: dict[str, dict[str, Any]]) -> None:
    table = Table(title="Ingest throughput (messages/s, end to end)")
    for column in (
        "run",
        "messages",
        "batch",
        "msg/s",
        "memories",
        "nlp",
        "embed",
        "reconcile",
        "write",
    ):
        table.add_column(column, justify="right")
    for name, r in runs.items():
        share = r["stage_share"]
        table.add_row(
            name,
            str(r["messages"]),
            str(r["batch"]),
            f"{r['messages_per_s']:.1f}",
            str(r["memories_written"]),
            *(f"{100 * share.get(s, 0):.0f}%" for s in ("nlp", "embedding", "reconcile", "write")),
        )
    Console().print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, help="a LoCoMo JSON file; its first conversation")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--synthetic", type=int, default=2000)
    asyncio.run(main(parser.parse_args()))
