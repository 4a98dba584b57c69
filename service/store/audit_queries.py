"""Read-audit queries: record one (:ReadEvent) per read, list a scope's events a page at a time.

Events carry the scope fields of the read, so {{in_scope}} restricts them like every other node
and forget(scope) erases them with the scope.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from service.core.domain import Scope
from service.core.errors import ValidationError
from service.core.paging import Edge, Page
from service.store.dashboard_queries import MAX_PAGE
from service.store.database import Database


class ReadOp(StrEnum):
    """The read use cases the audit records, named as in the Python API."""

    SEARCH = "search"
    CONTEXT = "context"
    GET = "get"
    GET_ALL = "get_all"
    HISTORY = "history"
    ENTITIES = "entities"
    TIMELINE = "timeline"
    ENTITY_TYPE_COUNTS = "entity_type_counts"
    STATS = "stats"
    ENTITY = "entity"
    ENTITY_MEMORIES = "entity_memories"
    NEIGHBORS = "neighbors"
    PATH = "path"
    RELATIONS = "relations"
    ENTITY_RELATIONS = "entity_relations"
    ENTITY_LINKS = "entity_links"
    PROFILE = "profile"
    CHANGES = "changes"
    EXPORT = "export"


class ReadEvent(BaseModel):
    """One audited read: who, which operation on which scope, the query's sha256, results."""

    model_config = ConfigDict(frozen=True)

    id: str
    operation: ReadOp
    actor: str
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    query_hash: str | None = None
    result_count: int
    at: datetime


class ReadEventStore:
    """The read audit's two queries, each inside one scope."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(
        self,
        scope: Scope,
        operation: ReadOp,
        actor: str,
        query_hash: str | None,
        result_count: int,
        now: datetime,
    ) -> None:
        await self.db.write(
            "record_read_event",
            {
                **scope.params(),
                "operation": operation.value,
                "actor": actor,
                "query_hash": query_hash,
                "result_count": result_count,
                "now": now,
            },
        )

    async def page(self, scope: Scope, first: int, after: str | None) -> Page[ReadEvent]:
        """Newest first; ``after`` is the cursor of the last event of the previous page."""
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first: must be between 1 and {MAX_PAGE}")
        after_at, after_id = decode_cursor(after) if after else (None, None)
        rows = await self.db.read(
            "list_read_events",
            {
                **scope.params(),
                "after_at": after_at,
                "after_id": after_id,
                "limit": first + 1,
            },
        )
        events = [ReadEvent.model_validate(_without_nulls(r)) for r in rows[0]["rows"]]
        edges = [Edge(encode_cursor(e), e) for e in events[:first]]
        return Page(
            edges=edges,
            has_next_page=len(events) > first,
            end_cursor=edges[-1].cursor if edges else None,
            total_count=int(rows[0]["total"]),
        )


def encode_cursor(event: ReadEvent) -> str:
    payload = json.dumps([event.at.isoformat(), event.id], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, event_id = json.loads(raw)
        instant = datetime.fromisoformat(at)
    except (binascii.Error, ValueError, TypeError) as e:
        raise ValidationError("after: not a cursor from this API") from e
    # Event ids are UUIDs: anything else (say a lone surrogate the driver cannot send) is forged.
    if instant.tzinfo is None or not isinstance(event_id, str) or not _uuid_like(event_id):
        raise ValidationError("after: not a cursor from this API")
    return instant, event_id


def _uuid_like(value: str) -> bool:
    return value.isascii() and 0 < len(value) <= 64


def _without_nulls(record: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in record.items() if v is not None}
