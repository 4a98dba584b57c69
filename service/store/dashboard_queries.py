"""Dashboard reads: filtered, sorted, cursor-paged lists, a timeline, counts and stats.

Every query is restricted to the caller's scope by its Cypher (user_id / agent_id / run_id
parameters; null matches anything, and a Scope always sets at least one). The list queries take
a caller's filter and sort, which reach the Cypher only as text from the whitelisted builder in
service.retrieval.filters, put at the query's /*markers*/ by `fill_markers`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel

from service.core.domain import Clock, Scope, StoredMemory, instant_or_error
from service.core.errors import ValidationError
from service.core.paging import Edge, Page
from service.store.catalog import and_
from service.store.database import Database, Record
from service.store.filters import (
    EntityWhere,
    MemoryWhere,
    Predicate,
    entity_predicate,
    memory_predicate,
)
from service.store.graph_queries import EntityLink, EntityNode, to_entity, visibility
from service.store.ordering import Ordering, SortKey, entity_ordering, memory_ordering
from service.store.repository import to_memory

MAX_PAGE = 100
MAX_SCOPES = 200
N = TypeVar("N")


class Bucket(StrEnum):
    """Timeline bucket; the value is the unit date.truncate() takes."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"


class TimelineCount(BaseModel):
    bucket_start: date
    count: int


class TypeCount(BaseModel):
    type: str
    count: int


class ScopeStats(BaseModel):
    memories: int
    current_memories: int
    superseded: int
    messages: int
    entities: int
    mentions: int
    events: int
    first_said_at: datetime | None = None
    last_said_at: datetime | None = None


class ScopeSummary(BaseModel):
    """One scope that holds memories: its ids, how many memories, the last said."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    memories: int
    last_said_at: datetime | None = None


@dataclass(frozen=True)
class AllowedIds:
    """The ids a caller may touch in each scope field; None allows any id."""

    user_ids: list[str] | None = None
    agent_ids: list[str] | None = None
    run_ids: list[str] | None = None


class DashboardStore:
    """The dashboard's reads, each inside one scope."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def memories(
        self,
        scope: Scope,
        where: MemoryWhere | None = None,
        sort: Sequence[SortKey] = (),
        first: int = 20,
        after: str | None = None,
        as_of: datetime | None = None,
    ) -> Page[StoredMemory]:
        """Memories (current and superseded) matching `where`, one page in `sort` order."""
        ordering = memory_ordering(sort)
        rows = await self._fetch_page(
            "list_memories",
            scope,
            memory_predicate(where),
            ordering,
            first,
            after,
            {"as_of": _aware(as_of)},
        )
        return _to_page(rows, ordering, first, to_memory)

    async def entities(
        self,
        scope: Scope,
        where: EntityWhere | None = None,
        sort: Sequence[SortKey] = (),
        first: int = 20,
        after: str | None = None,
    ) -> Page[EntityNode]:
        """Entities matching `where`, with their mention counts, one page in `sort` order."""
        ordering = entity_ordering(sort)
        rows = await self._fetch_page(
            "list_entities", scope, entity_predicate(where), ordering, first, after, {}
        )
        return _to_page(rows, ordering, first, lambda r: EntityNode.model_validate(r))

    async def entity_links(
        self, scope: Scope, keys: Sequence[str], as_of: datetime | None = None
    ) -> list[EntityLink]:
        """How these entities of the scope are linked to each other, most supported first."""
        params = {**visibility(scope, _aware(as_of)), "keys": list(keys)}
        rows = await self.db.read("list_entity_links", params)
        return [
            EntityLink(
                source=to_entity(r["source"]),
                target=to_entity(r["target"]),
                kind=r["kind"],
                support=r["support"],
            )
            for r in rows
        ]

    async def timeline(
        self,
        scope: Scope,
        bucket: Bucket,
        clock: Clock = Clock.SAID,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[TimelineCount]:
        """Memory counts per bucket on one clock, oldest first; empty buckets are left out."""
        if start is not None and end is not None and end <= start:
            raise ValidationError("timeline: `to` must be later than `from`")
        rows = await self.db.read(
            "count_memories_by_bucket",
            {
                **scope.params(),
                "as_of": None,
                "unit": Bucket(bucket).value,
                "clock": Clock(clock).value,
                "start": _aware(start),
                "end": _aware(end),
            },
        )
        return [TimelineCount.model_validate(r) for r in rows]

    async def entity_type_counts(self, scope: Scope) -> list[TypeCount]:
        rows = await self.db.read("count_entities_by_type", scope.params())
        return [TypeCount.model_validate(r) for r in rows]

    async def stats(self, scope: Scope) -> ScopeStats:
        rows = await self.db.read("summarize_scope", scope.params())
        return ScopeStats.model_validate(rows[0])

    async def scopes(self, allowed: AllowedIds, limit: int = 50) -> list[ScopeSummary]:
        """The scopes holding memories within `allowed`, the largest first."""
        if not 1 <= limit <= MAX_SCOPES:
            raise ValidationError(f"first: must be between 1 and {MAX_SCOPES}")
        rows = await self.db.read("list_scopes", {**dataclasses.asdict(allowed), "limit": limit})
        return [ScopeSummary.model_validate(r) for r in rows]

    async def superseding(self, asks: Sequence[tuple[str, Scope]]) -> dict[str, list[StoredMemory]]:
        """Memory id -> the memories that replaced it, each ask inside its own scope."""
        params = [{"id": memory_id, **scope.params()} for memory_id, scope in asks]
        rows = await self.db.read("list_superseding_memories", {"asks": params})
        return {r["id"]: [to_memory(m) for m in r["memories"]] for r in rows}

    async def _fetch_page(
        self,
        name: str,
        scope: Scope,
        where: Predicate,
        ordering: Ordering,
        first: int,
        after: str | None,
        extra: Mapping[str, Any],
    ) -> Record:
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first: must be between 1 and {MAX_PAGE}")
        resume = ordering.after(after)
        fills = {
            "where": and_(where.text),
            "keys": ordering.keys,
            "after": and_(resume.text),
            "order": ordering.order_by,
        }
        params = {**scope.params(), **extra, **where.params, **resume.params, "limit": first + 1}
        rows = await self.db.read(name, params, fills=fills)
        return rows[0]


def _to_page(
    result: Record, ordering: Ordering, first: int, node: Callable[[Record], N]
) -> Page[N]:
    rows = result["rows"]
    edges = [Edge(ordering.cursor(r["sort_key"], r["id"]), node(r["node"])) for r in rows[:first]]
    return Page(
        edges=edges,
        has_next_page=len(rows) > first,
        end_cursor=edges[-1].cursor if edges else None,
        total_count=int(result["total"]),
    )


def _aware(value: datetime | None) -> datetime | None:
    # Naive times are UTC, as on the write path; Neo4j never matches naive against zoned ones.
    return instant_or_error(value)
