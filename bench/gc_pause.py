"""Python's full collections in a serving process, with and without gc.freeze() after start-up.

    .venv/bin/python -m bench.gc_pause --searches 2000

The models Memory.start loads stay alive as long as the process, and each full (generation 2)
collection walks every object they hold. `engram serve` freezes them after start-up
(service/api/app.py), so a full collection walks only what came later. This run measures both
in one process, in blocks of searches that alternate frozen and unfrozen: the searches (p50 /
p95 / p99 / max), the full collections that fell inside them with their pauses, and one
explicit full collection at the end of each block. One scope of synthetic messages is written
first.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.common import bench_settings, ensure_neo4j, percentile, write_result
from bench.synthetic import natural_questions, synthetic_messages
from service.core.domain import Scope
from service.memory import MemoryService

SCOPE = Scope(user_id="bench-gc")
BLOCK = 50
WARMUP = 20  # the scope's first searches are slow for reasons of their own (query plans)


class FullCollections:
    """Pauses of the generation-2 collections that run while it is installed."""

    def __init__(self) -> None:
        self.pauses_ms: list[float] = []
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses_ms.append((time.perf_counter() - self._began) * 1000)


def full_collection_ms() -> float:
    began = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - began) * 1000


def summary(values: list[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(values, q), 2) for q in (50, 95, 99)} | {
        "max": round(max(values), 2) if values else float("nan")
    }


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    memory = await MemoryService.start(settings)
    console = Console() if Console().is_terminal else Console(width=150)
    try:
        await memory.store.delete_scope(SCOPE)
        await memory.add(synthetic_messages(args.messages), SCOPE)
        questions = natural_questions(random.Random(args.seed), args.searches + WARMUP)
        for question in questions[:WARMUP]:
            await memory.search(question, SCOPE, limit=10)
        questions = questions[WARMUP:]
        collections = {"unfrozen": FullCollections(), "frozen": FullCollections()}
        latencies: dict[str, list[float]] = {"unfrozen": [], "frozen": []}
        explicit: dict[str, list[float]] = {"unfrozen": [], "frozen": []}
        gc.freeze()
        frozen_objects = gc.get_freeze_count()
        gc.unfreeze()
        for block in range(0, len(questions), BLOCK):
            condition = "frozen" if block // BLOCK % 2 else "unfrozen"
            if condition == "frozen":
                gc.freeze()
            gc.callbacks.append(collections[condition])
            for question in questions[block : block + BLOCK]:
                began = time.perf_counter()
                await memory.search(question, SCOPE, limit=10)
                latencies[condition].append((time.perf_counter() - began) * 1000)
            gc.callbacks.remove(collections[condition])
            explicit[condition].append(full_collection_ms())  # what the block left to walk
            gc.unfreeze()
        await memory.store.delete_scope(SCOPE)
    finally:
        await memory.close()
    results = {
        name: {
            "explicit_full_collection_ms": summary(explicit[name]),
            "search_ms": summary(latencies[name]),
            "searches": len(latencies[name]),
            "full_collections": len(collections[name].pauses_ms),
            "full_collection_pauses_ms": [round(p, 1) for p in collections[name].pauses_ms],
        }
        for name in ("unfrozen", "frozen")
    }
    table = Table(title=f"Full collections ({frozen_objects:,} objects frozen after start-up)")
    for column in (
        "",
        "gc.collect() after each block, p50 / max",
        "search p50 / p95 / p99 / max",
        "full collections in searches",
        "their pauses",
    ):
        table.add_column(column)
    for name, r in results.items():
        s, explicit_ms = r["search_ms"], r["explicit_full_collection_ms"]
        table.add_row(
            name,
            f"{explicit_ms['p50']} / {explicit_ms['max']} ms",
            f"{s['p50']} / {s['p95']} / {s['p99']} / {s['max']} ms",
            f"{r['full_collections']} in {r['searches']}",
            ", ".join(f"{p:.0f}" for p in r["full_collection_pauses_ms"]) or "-",
        )
    console.print(table)
    path = write_result("gc.json", {"frozen_objects": frozen_objects, **results}, "bench.gc_pause")
    console.print(f"wrote {path}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=300, help="synthetic messages written")
    parser.add_argument("--seed", type=int, default=11)
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
