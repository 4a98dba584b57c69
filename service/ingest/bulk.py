"""Bulk load (`engram import --bulk`, MemoryService.import_bulk): many messages, one memory
each, written a large transaction per batch while the next batch is embedded.

It differs from add() on purpose, for loads of a million memories (docs/write-path.md):
- nothing is extracted: each message is one memory, stored as add(infer=False) stores it, and
  `engram relink` can read its entities later;
- the near-duplicate check (a vector search per memory) is left out: only exact repeats, the
  same text in the same scope, are found (by hash, before embedding) and linked to their new
  source message, as add() links them.
So a second run writes nothing new, and a killed run is finished by running it again: what
landed costs a lookup, not an embedding.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from service.core.domain import AddResult, MessageIn, Scope
from service.ingest.write_path import Extracted, StageClock, WritePath
from service.nlp.entities.link_rows import KnownEntity
from service.store.writes import Reconciled

# Messages per transaction when the caller does not say: one embedding call and one write of
# this many keeps both models and Neo4j busy without a long transaction.
DEFAULT_BULK_BATCH = 500

Progress = Callable[[int], None]  # messages finished since the last call


@dataclass(frozen=True)
class BulkBatch:
    """Consecutive messages of one scope, written in one transaction."""

    scope: Scope
    messages: list[MessageIn]


@dataclass
class BulkReport:
    """What a bulk load did: messages read, memories new to the store, repeats it held."""

    messages: int = 0
    added: int = 0
    repeated: int = 0
    batches: int = 0
    seconds: float = 0.0
    stage_ms: dict[str, float] = field(default_factory=dict)

    @property
    def memories_per_s(self) -> float:
        return self.added / self.seconds if self.seconds else 0.0

    def count(self, batch: BulkBatch, result: AddResult) -> None:
        self.messages += len(batch.messages)
        self.added += len(result.added)
        self.repeated += len(result.unchanged)
        self.batches += 1
        for stage, ms in result.stage_ms.items():
            self.stage_ms[stage] = self.stage_ms.get(stage, 0.0) + ms


@dataclass(frozen=True)
class Prepared:
    """A batch ready to write: extracted, its new memories embedded, its repeats found."""

    batch: Extracted
    known: list[KnownEntity]
    repeats: dict[str, Reconciled]


def batched(scoped: Iterable[tuple[Scope, MessageIn]], size: int) -> Iterator[BulkBatch]:
    """Consecutive messages of one scope, at most ``size`` to a batch."""
    current: BulkBatch | None = None
    for scope, message in scoped:
        if current is None or current.scope != scope or len(current.messages) == size:
            if current is not None:
                yield current
            current = BulkBatch(scope, [])
        current.messages.append(message)
    if current is not None:
        yield current


async def prepare(write_path: WritePath, bulk: BulkBatch) -> Prepared:
    """Extract (one memory per message), find the scope's exact repeats, embed the rest."""
    batch = await write_path.extract(bulk.messages, bulk.scope, infer=False)
    clock = StageClock()
    with clock.stage("reconcile"):
        asks = [c.reconcile_ask() for c in batch.candidates]
        found = await write_path.store.reconcile(bulk.scope, asks, 1.0, 1, near_duplicates=False)
        repeats = {key: held for key, held in found.items() if held.same_id}
    with clock.stage("embedding"):
        fresh = [c for c in batch.candidates if c.key not in repeats]
        known = await write_path.embed(fresh, bulk.scope)
    batch.stage_ms |= clock.laps
    return Prepared(batch, known, repeats)


async def load(
    write_path: WritePath,
    batches: Iterable[BulkBatch],
    actor: str,
    progress: Progress | None = None,
) -> BulkReport:
    """Write ``batches`` in order, each in one transaction, batch n + 1 prepared (embedded on
    the models' threads) while batch n is written. The first batch that fails stops the load
    with its error; every batch before it has landed, whole."""
    report, began = BulkReport(), time.perf_counter()
    pending = iter(batches)

    def prepare_next() -> tuple[BulkBatch, asyncio.Future[Prepared]] | None:
        bulk = next(pending, None)
        return None if bulk is None else (bulk, asyncio.ensure_future(prepare(write_path, bulk)))

    upcoming = prepare_next()
    try:
        while upcoming is not None:
            bulk, ready = upcoming
            prepared = await ready
            upcoming = prepare_next()
            result = await write_path.commit(
                prepared.batch, prepared.known, prepared.repeats, actor
            )
            report.count(bulk, result)
            if progress is not None:
                progress(len(bulk.messages))
    finally:
        if upcoming is not None:
            upcoming[1].cancel()
        report.seconds = time.perf_counter() - began
    return report
