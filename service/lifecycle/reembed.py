"""Embedding versions: find the memories another model embedded, and re-embed them.

Every memory records the model that made its vector (`embedding_model`). After the model
changes (ENGRAM_EMBEDDING_MODEL), `Memory.start` counts the stale memories and logs a warning;
`engram reembed` migrates them in batches of ids in order (keyset pagination), one transaction
per batch, so a run can stop anywhere and the next one carries on. Search keeps working while
it runs: a memory keeps its old vector until its batch is written.

When the new model's vectors have another size, the vector index must be rebuilt. The new
vectors are written first (the old index skips vectors of the wrong size, so a process still on
the old model keeps vector search over what is not migrated yet); then the index is dropped and
created again with the new size from cypher/schema.cypher. Until the new index is online, search
ranks by exact cosine over the caller's scope instead of the index (slower on large scopes) and
adding skips the near-duplicate check (service/store/repository.py); the full-text and entity
indexes and the graph are not touched.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from service.core.domain import utcnow
from service.core.errors import ValidationError
from service.embedding.embedder import Embedder
from service.store.database import Database
from service.store.embedding_queries import EmbeddingStore, NewEmbedding
from service.store.schema import apply_schema

log = logging.getLogger(__name__)

DEFAULT_BATCH = 256
# Building a vector index over many memories takes minutes; the rebuild waits for it.
INDEX_WAIT_S = 3600
# /healthz re-counts at most this often, and only while there is something to migrate.
RECHECK_S = 60.0

Progress = Callable[[int, int], None]  # (memories done, memories to do)


@dataclass(frozen=True)
class EmbeddingStatus:
    """How the stored vectors compare with the current embedding model."""

    model: str
    dimensions: int
    index_dimensions: int | None  # None: the vector index does not exist
    stale: int  # memories embedded by another model (or with another vector size)
    checked_at: datetime

    @property
    def index_matches(self) -> bool:
        return self.index_dimensions == self.dimensions

    @property
    def up_to_date(self) -> bool:
        return self.stale == 0 and self.index_matches

    def problem(self) -> str | None:
        """What an operator should read at start-up, or None when nothing needs doing."""
        if not self.index_matches:
            size = self.index_dimensions or "no"
            return (
                f"the vector index memory_embedding has {size} dimensions but {self.model} "
                f"gives {self.dimensions}; search falls back to exact scans and near-duplicates "
                f"go undetected until `engram reembed` re-embeds {self.stale} memories and "
                "rebuilds the index"
            )
        if self.stale:
            return (
                f"{self.stale} memories were embedded by another model than {self.model}; "
                "vector search ranks them poorly until you run `engram reembed`"
            )
        return None


@dataclass(frozen=True)
class ReembedReport:
    """What `engram reembed` found and did (a dry run finds and does nothing)."""

    model: str
    dimensions: int  # the model's vector size
    stale: int  # stale memories when the run began
    migrated: int  # memories given a new vector
    remaining: int  # stale memories after the run (written meanwhile by an old-model process)
    index_dimensions: int | None  # the vector index's size when the run began
    rebuilt_index: bool  # the index was (on a dry run: would be) rebuilt for the new size
    dry_run: bool
    seconds: float


async def check_embeddings(
    db: Database, embedder: Embedder, exact: bool = False
) -> EmbeddingStatus:
    """Count stale memories and read the vector index's size.

    Start-up and /healthz count by model name through an index, which costs milliseconds on a
    large store; ``exact`` (engram reembed) also reads every vector's size.
    """
    store = EmbeddingStore(db)
    index_dimensions = await store.index_dimensions()
    stale = await store.count_stale(embedder.model_name, embedder.dimensions, exact)
    return EmbeddingStatus(
        embedder.model_name, embedder.dimensions, index_dimensions, stale, utcnow()
    )


def warn_if_stale(status: EmbeddingStatus) -> None:
    if (problem := status.problem()) is not None:
        log.warning("embedding model changed: %s", problem)


async def recheck_if_pending(
    status: EmbeddingStatus, db: Database, embedder: Embedder
) -> EmbeddingStatus:
    """A fresh status while a migration is pending (another process may be running it)."""
    if status.up_to_date or (utcnow() - status.checked_at).total_seconds() < RECHECK_S:
        return status
    return await check_embeddings(db, embedder)


async def reembed(
    db: Database,
    embedder: Embedder,
    batch_size: int = DEFAULT_BATCH,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ReembedReport:
    """Give every stale memory a vector from ``embedder``; rebuild the index if its size changed."""
    if batch_size < 1:
        raise ValidationError(f"batch size must be at least 1, got {batch_size}")
    began = time.monotonic()
    before = await check_embeddings(db, embedder, exact=True)
    migrated, after = 0, before
    if not dry_run:
        migrated = await _migrate(EmbeddingStore(db), embedder, before.stale, batch_size, progress)
        if not before.index_matches:
            await EmbeddingStore(db).drop_vector_index()
            await apply_schema(db, embedder.dimensions, wait_s=INDEX_WAIT_S)
        after = await check_embeddings(db, embedder, exact=True)
    return ReembedReport(
        model=embedder.model_name,
        dimensions=embedder.dimensions,
        stale=before.stale,
        migrated=migrated,
        remaining=after.stale,
        index_dimensions=before.index_dimensions,
        rebuilt_index=not before.index_matches,
        dry_run=dry_run,
        seconds=time.monotonic() - began,
    )


async def _migrate(
    store: EmbeddingStore,
    embedder: Embedder,
    total: int,
    batch_size: int,
    progress: Progress | None,
) -> int:
    """Batch after batch in id order; each batch is embedded, then written in one transaction."""
    model, dimensions = embedder.model_name, embedder.dimensions
    cursor, done, migrated = "", 0, 0
    if progress is not None:
        progress(0, total)
    while batch := await store.stale_batch(model, dimensions, cursor, batch_size):
        vectors = await embedder.aembed_memories(
            [m.text for m in batch], [m.context_texts for m in batch]
        )
        new = [
            NewEmbedding(m.id, m.text, v.search, v.content)
            for m, v in zip(batch, vectors, strict=True)
        ]
        migrated += await store.write_embeddings(new, model)
        cursor, done = batch[-1].id, done + len(batch)
        if progress is not None:
            progress(done, max(total, done))
    return migrated
