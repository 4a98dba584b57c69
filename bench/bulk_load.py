"""The bulk loader's rate against the embedding model alone and against add(infer=False).

    .venv/bin/python -m bench.bulk_load [--memories 10000] [--tenants 20] [--batch 500]

It writes scopes named bench-bulk-* and bench-add-*, and deletes them first; it runs on a Neo4j
of its own (a throw-away local server on ports 7707/7497) unless ENGRAM_NEO4J_URI names one.

--memories one-sentence synthetic messages (bench/synthetic.py, seed 13) over --tenants scopes,
all in this one run:
  models alone  the embedder over each batch's texts and contexts, exactly what the loader
                embeds (Embedder.aembed_memories; the batches are extracted first, untimed),
                before and after the loads: the faster of the two counts
  add           MemoryService.add_batches(infer=False), the path the bench stores were filled
                by before: each batch embedded, reconciled (a vector search per memory), written
  bulk          MemoryService.import_bulk into other scopes of the same store (so it meets
                the larger index): exact repeats only, batch n + 1 embedded while n is written
  again         the same bulk load once more: every memory is found, none embedded or written
                (what a re-run after a kill pays for the part that landed)
Reported: memories/s of each and the ratios bulk / models alone and bulk / add.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from datetime import UTC, datetime

from rich.console import Console

from bench.common import scratch_neo4j, write_result
from bench.synthetic import varied_messages
from service.core.config import Settings
from service.core.domain import MessageIn, Scope
from service.ingest.bulk import BulkBatch, batched
from service.memory import MemoryService

SEED = 13


@asynccontextmanager
async def own_store() -> AsyncIterator[MemoryService]:
    """A MemoryService on ENGRAM_NEO4J_URI, else on a throw-away local server."""
    with scratch_neo4j(Settings(), 7707, 7497) as settings:
        memory = await MemoryService.start(settings)
        try:
            yield memory
        finally:
            await memory.close()


def messages(count: int, tenants: int, prefix: str) -> list[tuple[Scope, MessageIn]]:
    """The same seeded messages for every call, spread evenly over ``prefix``-named scopes."""
    said = varied_messages(random.Random(SEED), count, 0, datetime.now(UTC), max_sentences=1)
    per = -(-count // tenants)
    return [(Scope(user_id=f"{prefix}-{i // per}"), m) for i, m in enumerate(said)]


async def models_alone(memory: MemoryService, batches: list[BulkBatch]) -> float:
    """Seconds the embedder takes over what the loader embeds, batch by batch."""
    extracted = [await memory.write_path.extract(b.messages, b.scope, infer=False) for b in batches]
    began = time.perf_counter()
    for batch in extracted:
        candidates = batch.candidates
        await memory.embedder.aembed_memories(
            [c.fact.text for c in candidates], [c.context_texts for c in candidates]
        )
    return time.perf_counter() - began


async def add_path(memory: MemoryService, pairs: list[tuple[Scope, MessageIn]], size: int) -> float:
    began = time.perf_counter()
    batches = [(b.messages, b.scope) for b in batched(pairs, size)]
    async with aclosing(memory.add_batches(batches, infer=False)) as results:
        async for _ in results:
            pass
    return time.perf_counter() - began


async def clear(memory: MemoryService, tenants: int) -> None:
    for prefix in ("bench-bulk", "bench-add"):
        for i in range(tenants):
            await memory.store.delete_scope(Scope(user_id=f"{prefix}-{i}"))


async def main(args: argparse.Namespace) -> None:
    console = Console()
    async with own_store() as memory:
        await clear(memory, args.tenants)
        bulk_pairs = messages(args.memories, args.tenants, "bench-bulk")
        add_pairs = messages(args.memories, args.tenants, "bench-add")
        batches = list(batched(bulk_pairs, args.batch))
        alone_first = await models_alone(memory, batches)
        add_s = await add_path(memory, add_pairs, args.batch)
        bulk = await memory.import_bulk(bulk_pairs, args.batch)
        again = await memory.import_bulk(bulk_pairs, args.batch)
        # Before and after the loads; the faster counts (the model as fast as this run let it).
        alone_s = min(alone_first, await models_alone(memory, batches))
        await clear(memory, args.tenants)
    n = bulk.added
    rates = {
        "models_alone": n / alone_s,
        "add_infer_false": n / add_s,
        "bulk": bulk.memories_per_s,
        "again": again.repeated / again.seconds,
    }
    result = {
        "memories": args.memories,
        "added": n,
        "tenants": args.tenants,
        "batch": args.batch,
        "memories_per_s": {k: round(v, 1) for k, v in rates.items()},
        "bulk_over_models_alone": round(rates["bulk"] / rates["models_alone"], 3),
        "bulk_over_add": round(rates["bulk"] / rates["add_infer_false"], 2),
        "again_over_bulk": round(rates["again"] / rates["bulk"], 1),
        "bulk_stage_ms": {k: round(v) for k, v in bulk.stage_ms.items()},
        "again_added": again.added,
    }
    path = write_result(args.out, result, "bench.bulk_load")
    console.print(result)
    console.print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--out", default="bulk_load.json", help="file under bench/results/")
    asyncio.run(main(parser.parse_args()))
