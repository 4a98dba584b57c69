"""Export one scope: the header, its records a page at a time, and the end record with counts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import metadata
from typing import TextIO, TypeVar

from service.core.config import Settings
from service.core.domain import Scope, utcnow
from service.core.export_records import (
    VERSION,
    DataRecord,
    EndRecord,
    ExportCounts,
    ExportHeader,
    to_line,
)
from service.embedding.embedder import model_name_of
from service.store.database import Database
from service.store.export_queries import ExportPage, ExportStore

R = TypeVar("R", bound=DataRecord)
PageReader = Callable[[Scope, str | None, int], Awaitable[ExportPage[R]]]
Progress = Callable[[int, int], None]  # (records written, records to write)
PROGRESS_EVERY = 100


def export_header(scope: Scope, settings: Settings) -> ExportHeader:
    """What the file is, whose, when, and which model made the vectors of this service."""
    return ExportHeader(
        version=VERSION,
        scope=scope,
        exported_at=utcnow(),
        engram_version=_engram_version(),
        embedding_model=model_name_of(settings),
        embedding_dimensions=settings.embedding_dimensions,
    )


def _engram_version() -> str:
    try:
        return metadata.version("engram")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


async def export_scope(
    store: ExportStore, scope: Scope, settings: Settings
) -> AsyncIterator[DataRecord | ExportHeader | EndRecord]:
    """Every record of the scope in the file's order, read a page (Settings.export_page_size)
    at a time; the end record last. A store that changes meanwhile is read as it stands when
    each page is read (an export is not a snapshot)."""
    yield export_header(scope, settings)
    counts = ExportCounts()
    readers: list[PageReader[DataRecord]] = [
        store.messages,
        store.memories,
        store.entities,
        store.memory_edges,
        store.relations,
        store.memory_events,
        store.read_events,
    ]
    for read in readers:
        async for record in _pages(read, scope, settings.export_page_size):
            counts.count(record.record)
            yield record
    yield EndRecord(counts=counts)


async def _pages(read: PageReader[R], scope: Scope, size: int) -> AsyncIterator[R]:
    after: str | None = None
    while True:
        page = await read(scope, after, size)
        for record in page.records:
            yield record
        if page.cursor is None:
            return
        after = page.cursor


async def write_export(
    db: Database, scope: Scope, out: TextIO, progress: Progress | None = None
) -> ExportCounts:
    """Export the scope to ``out`` as JSON Lines (what `engram export` runs): the counts of
    what was written. ``progress`` hears (records written, records the scope held at start)."""
    store = ExportStore(db)
    total = (await store.counts(scope)).total
    counts, written = ExportCounts(), 0
    async for record in export_scope(store, scope, db.settings):
        out.write(to_line(record))
        if isinstance(record, EndRecord):
            counts = record.counts
        elif progress is not None and (written := written + 1) % PROGRESS_EVERY == 0:
            progress(written, total)
    return counts
