"""Import an export (docs/export.md): a checked file written back a batch per transaction.

Nothing is extracted again: messages, memories (ids, both clocks, record times, vectors),
entities, edges and history are written as they were stored. What the store already holds (the
same id, key or edge) is left as it is, so a second import changes nothing, and an interrupted
one is finished by running it again. Memories another model embedded are embedded again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.core.errors import ValidationError
from service.core.export_records import DataRecord, ExportCounts
from service.export.check import ExportFile, TargetModel, data_records
from service.store.database import Database
from service.store.export_queries import ExportStore, RestoreBatch
from service.store.index_shards import IndexShards
from service.store.schema import apply_schema

if TYPE_CHECKING:
    from service.embedding.embedder import Embedder

# Records per transaction when the caller does not say: an export's records need no
# extraction, so a batch is as large as a comfortable transaction.
DEFAULT_BATCH = 500

Progress = Callable[[int, int], None]  # (records written, records in the file)


@dataclass(frozen=True)
class RestoreReport:
    """What an import wrote: the records new to the store (the rest it held already), how
    many memories were embedded again, and how long it took."""

    file: ExportFile
    restored: ExportCounts
    reembedded: int
    seconds: float

    @property
    def present(self) -> ExportCounts:
        """The file's records the store held already (left as they were)."""
        return self.file.counts - self.restored


async def restore(
    db: Database,
    file: ExportFile,
    shards: IndexShards,
    batch_size: int = DEFAULT_BATCH,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> RestoreReport:
    """Write a checked file (check.check_export), one transaction per ``batch_size`` records.
    ``embedder`` embeds the memories another model embedded (file.reembed of them)."""
    if file.reembed and embedder is None:
        raise ValidationError(f"{file.reembed} memories need embedding again: give an embedder")
    began, store = time.monotonic(), ExportStore(db)
    restored, done, reembedded = ExportCounts(), 0, 0
    total = file.counts.total
    for batch in batches(data_records(file.path), batch_size):
        if embedder is not None:
            reembedded += await reembed(batch, embedder)
        restored += await store.restore(batch, shards)
        done += len(batch)
        if progress is not None:
            progress(done, total)
    return RestoreReport(file, restored, reembedded, time.monotonic() - began)


def batches(records: Iterable[DataRecord], size: int) -> Iterator[RestoreBatch]:
    """Consecutive records, ``size`` at a time, grouped by kind."""
    batch = RestoreBatch()
    for record in records:
        batch.add(record)
        if len(batch) >= size:
            yield batch
            batch = RestoreBatch()
    if len(batch):
        yield batch


async def reembed(batch: RestoreBatch, embedder: Embedder) -> int:
    """Embed the batch's memories that another model embedded (or that have no vector) as the
    write path would: each in its conversational context (context_texts). How many."""
    target = TargetModel(embedder.model_name, embedder.dimensions)
    stale = [m for m in batch.memories if target.reembeds(m)]
    if not stale:
        return 0
    vectors = await embedder.aembed_memories(
        [m.text for m in stale], [m.context_texts or [] for m in stale]
    )
    fresh = {
        m.id: m.model_copy(
            update={
                "embedding": list(v.search),
                "content_embedding": None if v.content is None else list(v.content),
                "embedding_model": embedder.model_name,
            }
        )
        for m, v in zip(stale, vectors, strict=True)
    }
    batch.memories = [fresh.get(m.id, m) for m in batch.memories]
    return len(stale)


async def restore_into(
    db: Database, file: ExportFile, batch_size: int, progress: Progress | None = None
) -> RestoreReport:
    """Import a checked file into ``db`` (what `engram import` runs): the schema first (the
    store may be empty); the embedding model is loaded only when a memory needs it."""
    from service.embedding.embedder import Embedder

    settings = db.settings
    await apply_schema(db, settings.embedding_dimensions)
    embedder = Embedder(settings) if file.reembed else None
    shards = IndexShards(settings.index_shards)
    return await restore(db, file, shards, batch_size, embedder, progress)


def describe(report: RestoreReport) -> str:
    """One line for a person: what was new, out of what the file held."""
    held, new = report.file.counts.model_dump(), report.restored.model_dump()
    parts = [f"{new[k]} of {held[k]} {k.replace('_', ' ')}" for k in held if held[k]]
    scope = report.file.header.scope.model_dump(exclude_none=True)
    text = f"restored {report.file.path.name} (scope {scope}) in {report.seconds:.1f}s: "
    text += ", ".join(parts) or "nothing to restore"
    if report.reembedded:
        text += f"; {report.reembedded} memories embedded again"
    if report.present != ExportCounts():
        text += "; the rest were in the store already and were left as they were"
    return text
