"""The graph store: every read and write Engram makes, always inside one caller's scope."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from neo4j.time import DateTime as Neo4jDateTime

from service.domain import Scope, SearchHit, StoredMemory
from service.store.database import Database, Record


@dataclass(frozen=True)
class MessageRow:
    id: str
    props: dict[str, Any]


@dataclass(frozen=True)
class MemoryRow:
    id: str
    props: dict[str, Any]
    source_ids: list[str] = field(default_factory=list)


class GraphStore:
    """Domain-level operations over the query catalogue."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def save(
        self, scope: Scope, messages: list[MessageRow], memories: list[MemoryRow]
    ) -> list[tuple[str, bool]]:
        """Write messages and memories in one transaction; returns (memory id, created)."""
        scoped = scope.params()
        message_rows = [{"id": m.id, "props": {**m.props, **scoped}} for m in messages]
        memory_rows = [
            {"id": m.id, "props": {**m.props, **scoped}, "source_ids": m.source_ids}
            for m in memories
        ]
        _, written = await self.db.write_many(
            [("merge_messages", {"messages": message_rows}),
             ("merge_memories", {"memories": memory_rows})]
        )  # fmt: skip
        return [(r["id"], bool(r["created"])) for r in written]

    async def vector_search(
        self, scope: Scope, embedding: list[float], limit: int, overfetch: int
    ) -> list[SearchHit]:
        rows = await self.db.read(
            "search_vector",
            {**scope.params(), "embedding": embedding, "limit": limit,
             "fetch_k": limit * overfetch},
        )  # fmt: skip
        return [SearchHit(memory=to_memory(r["memory"]), score=r["score"]) for r in rows]

    async def counts(self, scope: Scope) -> dict[str, int]:
        rows = await self.db.read("count_nodes", scope.params())
        return {r["label"]: r["n"] for r in rows}

    async def delete_scope(self, scope: Scope) -> int:
        rows = await self.db.write("delete_scope", scope.params())
        return int(rows[0]["deleted"]) if rows else 0


def to_memory(record: Record) -> StoredMemory:
    """A Memory node's properties as the domain model (Neo4j temporals made native)."""
    values = {k: _native(v) for k, v in record.items() if v is not None}
    return StoredMemory.model_validate(values)


def _native(value: Any) -> Any:
    if isinstance(value, Neo4jDateTime):
        native: datetime = value.to_native()
        return native
    return value
