"""The use cases: add conversations to memory and search it, within one scope."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pydantic

from service.config import Settings
from service.domain import AddResult, MessageIn, Scope, SearchHit, utcnow
from service.embedding import Embedder
from service.errors import ValidationError
from service.ids import scoped_id, text_hash
from service.store.database import Database
from service.store.repository import GraphStore, MemoryRow, MessageRow
from service.store.schema import apply_schema


@dataclass
class Memory:
    """Engram's in-process API; the GraphQL API and the CLI call these same methods."""

    settings: Settings
    db: Database
    store: GraphStore
    embedder: Embedder

    @classmethod
    async def start(cls, settings: Settings, embedder: Embedder | None = None) -> Memory:
        """Connect to Neo4j, apply the schema and load the models."""
        db = Database(settings)
        embedder = embedder or Embedder(settings)
        await apply_schema(db, embedder.dimensions)
        return cls(settings=settings, db=db, store=GraphStore(db), embedder=embedder)

    async def close(self) -> None:
        await self.db.close()

    async def add(self, messages: Sequence[MessageIn | dict[str, Any]], scope: Scope) -> AddResult:
        """Store messages and one memory per message; repeats write nothing new."""
        parsed = parse_messages(messages)
        now = utcnow()
        message_rows, memory_rows = [], []
        for index, msg in enumerate(parsed):
            said_at = msg.timestamp or now
            message_id = scoped_id(scope, "msg", msg.id or _message_fingerprint(msg, index))
            message_rows.append(MessageRow(id=message_id, props={
                "text": msg.content, "role": msg.role.value, "speaker": msg.speaker,
                "said_at": said_at, "session_id": msg.session_id, "external_id": msg.id,
            }))  # fmt: skip
            digest = text_hash(msg.content)
            memory_rows.append(MemoryRow(
                id=scoped_id(scope, "mem", digest),
                props={"text": msg.content, "source_text": msg.content, "hash": digest,
                       "speaker": msg.speaker, "said_at": said_at,
                       "embedding_model": self.embedder.model_name},
                source_ids=[message_id],
            ))  # fmt: skip
        vectors = await self.embedder.aembed([m.props["text"] for m in memory_rows])
        for row, vector in zip(memory_rows, vectors, strict=True):
            row.props["embedding"] = vector
        written = await self.store.save(scope, message_rows, memory_rows)
        return AddResult(
            message_ids=[m.id for m in message_rows],
            added=[i for i, created in written if created],
            unchanged=[i for i, created in written if not created],
        )

    async def search(self, query: str, scope: Scope, limit: int | None = None) -> list[SearchHit]:
        """Memories of the scope closest in meaning to the query."""
        if not query.strip():
            raise ValidationError("the search query is empty")
        limit = limit or self.settings.search_default_limit
        [vector] = await self.embedder.aembed([query])
        return await self.store.vector_search(scope, vector, limit, self.settings.vector_overfetch)


def parse_messages(messages: Sequence[MessageIn | dict[str, Any]]) -> list[MessageIn]:
    """Validate every message before anything is written; the error names the bad one."""
    if not messages:
        raise ValidationError("no messages to add")
    parsed = []
    for index, raw in enumerate(messages):
        try:
            parsed.append(raw if isinstance(raw, MessageIn) else MessageIn.model_validate(raw))
        except pydantic.ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            raise ValidationError(f"message {index}: {where}: {first['msg']}") from e
    return parsed


def _message_fingerprint(msg: MessageIn, index: int) -> str:
    stamp = msg.timestamp.isoformat() if msg.timestamp else f"#{index}"
    return text_hash(f"{msg.speaker or msg.role}|{stamp}|{msg.content}")
