"""Embedding versions: which memories a model change left stale, and their migration.

A memory is stale when its `embedding_model` is not the current model's name, or its vector
has another size ({{memory_stale}}). These queries read and write across every scope: they are
an operator's maintenance tool (`engram reembed`), never reachable from the API.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.store.catalog import query
from service.store.database import Database
from service.store.index_shards import drop_shard_indexes


@dataclass(frozen=True)
class StaleMemory:
    """A memory to re-embed: its id (the keyset cursor) and the texts its vector is made from
    (its own, and the context it is mixed with: Embedder.aembed_memories)."""

    id: str
    text: str
    context_texts: list[str]


@dataclass(frozen=True)
class NewEmbedding:
    """A re-embedded memory; `text` is the text the vectors were made from."""

    id: str
    text: str
    embedding: list[float]
    content_embedding: list[float] | None  # Embedder.aembed_memories: MemoryVectors.content


class EmbeddingStore:
    """Reads and writes of `engram reembed` and the start-up check."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def index_dimensions(self) -> int | None:
        """The vector index's configured size; None when the index does not exist."""
        rows = await self.db.read("fetch_vector_dimensions")
        return int(rows[0]["dimensions"]) if rows else None

    async def count_stale(self, model: str, dimensions: int, exact: bool = True) -> int:
        """Stale memories: by model name and vector size (reads every vector), or, not
        ``exact``, by model name alone through an index (the start-up check)."""
        if exact:
            params = {"model": model, "dimensions": dimensions}
            rows = await self.db.read("count_stale_memories", params)
        else:
            rows = await self.db.read("count_other_model_memories", {"model": model})
        return int(rows[0]["stale"])

    async def stale_batch(
        self, model: str, dimensions: int, after: str, limit: int
    ) -> list[StaleMemory]:
        """Up to ``limit`` stale memories with ids above ``after``, in id order."""
        params = {"model": model, "dimensions": dimensions, "after": after, "limit": limit}
        rows = await self.db.read("list_stale_memories", params)
        return [StaleMemory(r["id"], r["text"] or "", r["context_texts"] or []) for r in rows]

    async def write_embeddings(self, batch: list[NewEmbedding], model: str) -> int:
        """One transaction for the batch; returns how many memories took their new vector."""
        rows = [
            {
                "id": e.id,
                "text": e.text,
                "embedding": e.embedding,
                "content_embedding": e.content_embedding,
            }
            for e in batch
        ]
        written = await self.db.write("set_memory_embeddings", {"rows": rows, "model": model})
        return int(written[0]["written"])

    async def drop_vector_index(self) -> None:
        """The global index and the partitions' vector indexes (all sized for the old model)."""
        await self.db.run_statement(query("drop_vector_index"))
        await drop_shard_indexes(self.db, vector_only=True)
