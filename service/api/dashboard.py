"""Dashboard queries over GraphQL, with the filter conventions users know from @neo4j/graphql.

Filters are nested operator objects (one input type per kind of field), not `field_OP` names:

    memories(scope: {userId: "alice"}, where: {
      speaker: {in: ["Alice", "Bob"]}, saidAt: {gte: "2024-03-01T00:00:00Z"},
      OR: [{text: {contains: "boston"}}, {entityType: {eq: "ORG"}}],
      NOT: {current: false}
    }, sort: [{confidence: DESC}, {saidAt: ASC}], first: 20, after: $cursor)

- The fields of one object are ANDed; `AND` and `OR` take lists, `NOT` one object. Empty
  objects and empty lists add no condition. At most 5 levels and 50 conditions.
- `contains` ignores case; `eq`, `startsWith` and `in` do not. `entityType` / `entityName`
  match memories that MENTION such an entity. `current: true` keeps memories not superseded
  (at `asOf`, when given); without it, lists show current and superseded memories alike.
- `sort` is a list of one-field objects (at most 3); ties are broken by id, so pages are
  stable. Default: `saidAt: DESC` for memories, `name: ASC` for entities.
- Pages are Relay connections: `first` (1..100, default 20), `after` an opaque cursor from
  `edges.cursor` / `pageInfo.endCursor` of the same sort, and `totalCount` of the filtered set.

Expected failures of the list queries come back as `InvalidInput` / `DatabaseUnavailable`;
`timeline`, `entityTypeCounts` and `stats` raise them as GraphQL errors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.types import Info

from service.api.auth import scope_for
from service.api.context import RequestContext
from service.api.graph import Entity, EntityLink
from service.api.types import (
    Clock,
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    Memory,
    NotFound,
    PageInfo,
    ScopeInput,
    TimedOut,
    problem,
)
from service.core import domain
from service.core.auth import ANY, Principal
from service.core.errors import EngramError, ValidationError
from service.core.paging import Page
from service.store import dashboard_queries as store
from service.store import filters, ordering

if TYPE_CHECKING:
    from service.memory import MemoryService


@strawberry.enum
class SortDirection(Enum):
    ASC = "ASC"
    DESC = "DESC"


@strawberry.enum(description="Timeline bucket; weeks start on Monday, all buckets in UTC.")
class Bucket(Enum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


@strawberry.input(description="eq, contains (any case), startsWith, in.")
class TextFilter:
    eq: str | None = None
    contains: str | None = None
    starts_with: str | None = None
    in_: list[str] | None = strawberry.field(name="in", default=None)


@strawberry.input(description="eq, in, contains (any case).")
class SpeakerFilter:
    eq: str | None = None
    in_: list[str] | None = strawberry.field(name="in", default=None)
    contains: str | None = None


@strawberry.input(description="eq, in.")
class KeywordFilter:
    eq: str | None = None
    in_: list[str] | None = strawberry.field(name="in", default=None)


@strawberry.input(description="eq, contains (any case).")
class MentionNameFilter:
    eq: str | None = None
    contains: str | None = None


@strawberry.input(description="eq (same instant), lt, lte, gt, gte.")
class DateTimeFilter:
    eq: datetime | None = None
    lt: datetime | None = None
    lte: datetime | None = None
    gt: datetime | None = None
    gte: datetime | None = None


@strawberry.input(description="lt, lte, gt, gte.")
class ConfidenceFilter:
    lt: float | None = None
    lte: float | None = None
    gt: float | None = None
    gte: float | None = None


@strawberry.input(description="lt, gt.")
class LastSeenFilter:
    lt: datetime | None = None
    gt: datetime | None = None


@strawberry.input(description="Which memories: fields ANDed; AND / OR / NOT nest filters.")
class MemoryWhereInput:
    and_: list[MemoryWhereInput] | None = strawberry.field(name="AND", default=None)
    or_: list[MemoryWhereInput] | None = strawberry.field(name="OR", default=None)
    not_: MemoryWhereInput | None = strawberry.field(name="NOT", default=None)
    text: TextFilter | None = None
    speaker: SpeakerFilter | None = None
    entity_type: KeywordFilter | None = None
    entity_name: MentionNameFilter | None = None
    said_at: DateTimeFilter | None = None
    valid_from: DateTimeFilter | None = None
    valid_to: DateTimeFilter | None = None
    happened_start: DateTimeFilter | None = strawberry.field(
        default=None,
        description="validFrom, or saidAt for a fact with no time of its own: the HAPPENED "
        "clock, as timeline buckets it.",
    )
    created_at: DateTimeFilter | None = None
    confidence: ConfidenceFilter | None = None
    lang: KeywordFilter | None = None
    current: bool | None = None


@strawberry.input(description="Which entities: fields ANDed; AND / OR / NOT nest filters.")
class EntityWhereInput:
    and_: list[EntityWhereInput] | None = strawberry.field(name="AND", default=None)
    or_: list[EntityWhereInput] | None = strawberry.field(name="OR", default=None)
    not_: EntityWhereInput | None = strawberry.field(name="NOT", default=None)
    name: TextFilter | None = None
    type: KeywordFilter | None = None
    last_seen: LastSeenFilter | None = None


@strawberry.input(description="One sort key: set exactly one field.")
class MemorySortInput:
    said_at: SortDirection | None = None
    created_at: SortDirection | None = None
    valid_from: SortDirection | None = None
    confidence: SortDirection | None = None


@strawberry.input(description="One sort key: set exactly one field.")
class EntitySortInput:
    name: SortDirection | None = None
    last_seen: SortDirection | None = None
    mention_count: SortDirection | None = None


@strawberry.type
class MemoryEdge:
    cursor: str
    node: Memory


@strawberry.type
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo
    total_count: int


@strawberry.type
class EntityEdge:
    cursor: str
    node: Entity


@strawberry.type
class EntityConnection:
    edges: list[EntityEdge]
    page_info: PageInfo
    total_count: int
    scope: strawberry.Private[domain.Scope]

    @strawberry.field(
        description="How this page's entities are linked to each other: typed relations and "
        "co-mentions, most supported first; current unless asOf."
    )
    async def links(
        self, info: Info[RequestContext, None], as_of: datetime | None = None
    ) -> list[EntityLink]:
        keys = [edge.node.node.key for edge in self.edges]
        found = await _store(info).entity_links(self.scope, keys, as_of)
        return [EntityLink.of(link, self.scope) for link in found]


@strawberry.type
class TimelineBucket:
    bucket_start: date
    count: int


@strawberry.type
class TypeCount:
    type: str
    count: int


@strawberry.type(description="Counts for one scope; superseded memories count in `memories`.")
class Stats:
    memories: int
    current_memories: int
    superseded: int
    messages: int
    entities: int
    mentions: int
    events: int
    first_said_at: datetime | None
    last_said_at: datetime | None


@strawberry.type(description="A scope that holds memories, for a scope picker.")
class ScopeSummary:
    user_id: str | None
    agent_id: str | None
    run_id: str | None
    memories: int
    last_said_at: datetime | None


@strawberry.type(description="Who the API key is and the ids it may touch; '*' allows any.")
class Viewer:
    principal: str
    user_ids: list[str]
    agent_ids: list[str]
    run_ids: list[str]


MemoriesResult = Annotated[
    MemoryConnection | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("MemoriesResult"),
]
EntitiesResult = Annotated[
    EntityConnection | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("EntitiesResult"),
]


@strawberry.type
class DashboardQuery:
    @strawberry.field(description="Memories of one scope, filtered, sorted and paged.")
    async def memories(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        where: MemoryWhereInput | None = None,
        sort: list[MemorySortInput] | None = None,
        first: int = 20,
        after: str | None = None,
        as_of: datetime | None = None,
    ) -> MemoriesResult:
        try:
            page = await _store(info).memories(
                scope_for(info, scope),
                filters.parse_memory_where(_plain(where)),
                _sort_keys(sort),
                first,
                after,
                as_of,
            )
        except EngramError as e:
            return _failure(e)
        return MemoryConnection(
            edges=[MemoryEdge(cursor=e.cursor, node=Memory.of(e.node)) for e in page.edges],
            page_info=_page_info(page, after),
            total_count=page.total_count,
        )

    @strawberry.field(description="Entities of one scope with mention counts, sorted and paged.")
    async def entities(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        where: EntityWhereInput | None = None,
        sort: list[EntitySortInput] | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> EntitiesResult:
        try:
            allowed = scope_for(info, scope)
            page = await _store(info).entities(
                allowed, filters.parse_entity_where(_plain(where)), _sort_keys(sort), first, after
            )
        except EngramError as e:
            return _failure(e)
        return EntityConnection(
            edges=[
                EntityEdge(cursor=e.cursor, node=Entity.of(e.node, allowed)) for e in page.edges
            ],
            page_info=_page_info(page, after),
            total_count=page.total_count,
            scope=allowed,
        )

    @strawberry.field(description="Memory counts per day, week or month; empty buckets omitted.")
    async def timeline(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        bucket: Bucket,
        clock: Clock = Clock.SAID,
        from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
        to: datetime | None = None,
    ) -> list[TimelineBucket]:
        rows = await _store(info).timeline(
            scope_for(info, scope), store.Bucket(bucket.value), domain.Clock(clock.value), from_, to
        )
        return [TimelineBucket(bucket_start=r.bucket_start, count=r.count) for r in rows]

    @strawberry.field(description="How many entities of each type, most common first.")
    async def entity_type_counts(
        self, info: Info[RequestContext, None], scope: ScopeInput
    ) -> list[TypeCount]:
        rows = await _store(info).entity_type_counts(scope_for(info, scope))
        return [TypeCount(type=r.type, count=r.count) for r in rows]

    @strawberry.field(description="The scopes holding memories that this key may read.")
    async def scopes(self, info: Info[RequestContext, None], first: int = 50) -> list[ScopeSummary]:
        rows = await _store(info).scopes(_allowed(info.context.principal), first)
        return [ScopeSummary(**r.model_dump()) for r in rows]

    @strawberry.field(description="The caller: its principal and the ids its key may touch.")
    def viewer(self, info: Info[RequestContext, None]) -> Viewer:
        p: Principal = info.context.principal
        return Viewer(
            principal=p.name,
            user_ids=sorted(p.user_ids),
            agent_ids=sorted(p.agent_ids),
            run_ids=sorted(p.run_ids),
        )

    @strawberry.field(description="Counts of memories, messages, entities and events.")
    async def stats(self, info: Info[RequestContext, None], scope: ScopeInput) -> Stats | None:
        return Stats(**(await _store(info).stats(scope_for(info, scope))).model_dump())


def _store(info: Info[RequestContext, None]) -> store.DashboardStore:
    memory: MemoryService = info.context.memory
    return memory.dashboard


def _allowed(principal: Principal) -> store.AllowedIds:
    def ids(allowed: frozenset[str]) -> list[str] | None:
        return None if ANY in allowed else sorted(allowed)

    return store.AllowedIds(
        ids(principal.user_ids), ids(principal.agent_ids), ids(principal.run_ids)
    )


def _plain(where: MemoryWhereInput | EntityWhereInput | None) -> Mapping[str, object] | None:
    """A where input as plain data for the filter model (which checks it again)."""
    return None if where is None else dataclasses.asdict(where)


def _sort_keys(
    sort: list[MemorySortInput] | list[EntitySortInput] | None,
) -> list[ordering.SortKey]:
    keys = []
    for item in sort or []:
        chosen = [(k, v) for k, v in dataclasses.asdict(item).items() if v is not None]
        if len(chosen) != 1:
            raise ValidationError("sort: each item sets exactly one field")
        field, direction = chosen[0]
        keys.append(ordering.SortKey(field, ordering.SortDirection(direction.value)))
    return keys


def _page_info(page: Page[Any], after: str | None) -> PageInfo:
    return PageInfo(
        has_next_page=page.has_next_page,
        has_previous_page=after is not None,
        start_cursor=page.edges[0].cursor if page.edges else None,
        end_cursor=page.end_cursor,
    )


def _failure(error: EngramError) -> InvalidInput | DatabaseUnavailable | TimedOut | Forbidden:
    result = problem(error)
    if isinstance(result, NotFound):  # cannot happen in a list
        return InvalidInput(message=result.message)
    return result
