"""The read audit over GraphQL: one schema extension records every read field, `readAudit` lists.

`AUDITED_READS` names each field that reads memories and how it is recorded; the extension
wraps exactly those resolvers, so no resolver carries its own audit line. A field that reads
and is missing here is caught by tests/integration/test_read_audit.py, which walks the schema.
The scope of an event is the one the read was authorised for (the Entity's own scope for
`Entity.memories` / `Entity.neighbors`); the actor is the API key's principal. A request the
scope check refuses, or that fails as InvalidInput, records nothing; NotFound records count 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

import pydantic
import strawberry
from graphql import GraphQLResolveInfo
from strawberry.extensions import SchemaExtension
from strawberry.types import Info
from strawberry.utils.await_maybe import AwaitableOrValue, await_maybe

from service.api.auth import scope_for
from service.api.context import RequestContext
from service.api.dashboard import EntityConnection, MemoryConnection
from service.api.graph import Entity, EntityPath, RelationConnection
from service.api.lifecycle import MemoryHistory
from service.api.profile import ChangeList, Profile
from service.api.types import (
    Context,
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    NotFound,
    PageInfo,
    ScopeInput,
    SearchHits,
    TimedOut,
    problem,
)
from service.core import domain
from service.core.auth import Principal, authorize
from service.core.errors import EngramError
from service.memory import MemoryService
from service.store.audit_queries import ReadEvent as StoredReadEvent
from service.store.audit_queries import ReadOp

ReadOperation = strawberry.enum(ReadOp, name="ReadOperation", description="An audited read.")


@dataclass(frozen=True)
class AuditedRead:
    """How one field is recorded: its operation and the arguments that make up its query."""

    operation: ReadOp
    query_args: tuple[str, ...] = ()


# (GraphQL type, field) -> how its reads are recorded. Argument names are GraphQL's.
AUDITED_READS: dict[tuple[str, str], AuditedRead] = {
    ("Query", "search"): AuditedRead(ReadOp.SEARCH, ("query",)),
    ("Query", "context"): AuditedRead(ReadOp.CONTEXT, ("query",)),
    ("Query", "memory"): AuditedRead(ReadOp.GET, ("id",)),
    ("Query", "history"): AuditedRead(ReadOp.HISTORY, ("memoryId",)),
    ("Query", "memories"): AuditedRead(ReadOp.GET_ALL, ("where",)),
    ("Query", "entities"): AuditedRead(ReadOp.ENTITIES, ("where",)),
    ("Query", "timeline"): AuditedRead(ReadOp.TIMELINE),
    ("Query", "entityTypeCounts"): AuditedRead(ReadOp.ENTITY_TYPE_COUNTS),
    ("Query", "stats"): AuditedRead(ReadOp.STATS),
    ("Query", "entity"): AuditedRead(ReadOp.ENTITY, ("name",)),
    ("Query", "path"): AuditedRead(ReadOp.PATH, ("from", "to")),
    ("Query", "relations"): AuditedRead(ReadOp.RELATIONS, ("where",)),
    ("Query", "profile"): AuditedRead(ReadOp.PROFILE, ("entity",)),
    ("Query", "changes"): AuditedRead(ReadOp.CHANGES, ("entity", "phrase")),
    # Below an entity: the query is the entity's name.
    ("Entity", "memories"): AuditedRead(ReadOp.ENTITY_MEMORIES),
    ("Entity", "neighbors"): AuditedRead(ReadOp.NEIGHBORS),
    ("Entity", "relations"): AuditedRead(ReadOp.ENTITY_RELATIONS),
    # Below a page of entities: no query of its own (`entities` recorded the filter).
    ("EntityConnection", "links"): AuditedRead(ReadOp.ENTITY_LINKS),
}
# Query fields that are not reads of memories, with the reason.
NOT_AUDITED: dict[str, str] = {
    "readAudit": "lists the audit itself; recording it would add an event per page read",
    "viewer": "the caller's own key: its principal and the ids it may touch, no memory",
    "scopes": "which of the caller's own scopes hold memories, and how many; no memory text",
    "pendingWork": "how many of the caller's own deferred adds wait; no memory text",
    "export": "the counts and the link; the download it links to (/export) records the read",
}


class ReadAuditExtension(SchemaExtension):
    """Records the fields of AUDITED_READS as ReadEvents when Settings.audit_reads is on."""

    def resolve(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[RequestContext],
        *args: str,
        **kwargs: Any,
    ) -> AwaitableOrValue[object]:
        read = AUDITED_READS.get((info.parent_type.name, info.field_name))
        memory: MemoryService | None = info.context.memory if read is not None else None
        if read is None or memory is None or not memory.settings.audit_reads:
            resolved: AwaitableOrValue[object] = _next(root, info, *args, **kwargs)
            return resolved  # every other field stays synchronous
        return _audited(read, memory, _next, root, info, *args, **kwargs)


async def _audited(
    read: AuditedRead,
    memory: MemoryService,
    _next: Callable[..., Any],
    root: Any,
    info: GraphQLResolveInfo[RequestContext],
    *args: str,
    **kwargs: Any,
) -> object:
    principal: Principal = info.context.principal
    scope, query = _target(read, principal, root, kwargs)
    if scope is None:  # refused: the resolver answers Forbidden / InvalidInput itself
        return await await_maybe(_next(root, info, *args, **kwargs))
    async with memory.audit.reading(read.operation, principal.name, scope, query) as tally:
        result = await await_maybe(_next(root, info, *args, **kwargs))
        tally.count = result_count(result)
    return result


def _target(
    read: AuditedRead, principal: Principal, root: object, kwargs: Mapping[str, Any]
) -> tuple[domain.Scope | None, str | None]:
    """The authorised scope of the read (None if refused) and its query text."""
    if isinstance(root, Entity):
        return root.scope, root.name
    if isinstance(root, EntityConnection):
        return root.scope, None
    raw = kwargs.get("scope") or {}
    try:
        asked = domain.Scope(
            user_id=raw.get("userId"), agent_id=raw.get("agentId"), run_id=raw.get("runId")
        )
        scope = authorize(principal, asked)
    except (pydantic.ValidationError, EngramError):
        return None, None
    parts = [_as_text(kwargs[a]) for a in read.query_args if kwargs.get(a) is not None]
    return scope, "\n".join(parts) if parts else None


def _as_text(value: Any) -> str:
    """A query argument as text: strings as they are, filters as sorted JSON without nulls."""
    return (
        value
        if isinstance(value, str)
        else json.dumps(_compact(value), sort_keys=True, default=str)
    )


def _compact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def result_count(result: object) -> int | None:
    """How many items a read returned; None when it read nothing (refused, invalid, no DB)."""
    match result:
        case NotFound():
            return 0
        case InvalidInput() | Forbidden() | DatabaseUnavailable() | TimedOut():
            return None
        case list():
            return len(result)
        case SearchHits():
            return len(result.hits)
        case Context():
            return len(result.memory_ids)
        case MemoryConnection() | EntityConnection() | RelationConnection():
            return len(result.edges)
        case MemoryHistory():
            return len(result.events)
        case EntityPath():
            return len(result.entities)
        case Profile():
            return sum(len(group.facts) for group in result.groups)
        case ChangeList():
            return len(result.changes)
        case _:  # one object: a memory, an entity, the stats
            return 1


@strawberry.type(description="One audited read: who read the scope, how, when, how much.")
class ReadEvent:
    id: strawberry.ID
    operation: ReadOperation  # type: ignore[valid-type]
    actor: str
    user_id: str | None
    agent_id: str | None
    run_id: str | None
    query_hash: str | None = strawberry.field(
        description="sha256 (hex) of the query text; the text itself is never stored."
    )
    result_count: int
    at: datetime

    @classmethod
    def of(cls, e: StoredReadEvent) -> ReadEvent:
        return cls(
            id=strawberry.ID(e.id),
            operation=e.operation,
            actor=e.actor,
            user_id=e.user_id,
            agent_id=e.agent_id,
            run_id=e.run_id,
            query_hash=e.query_hash,
            result_count=e.result_count,
            at=e.at,
        )


@strawberry.type
class ReadEventEdge:
    cursor: str
    node: ReadEvent


@strawberry.type
class ReadEventConnection:
    edges: list[ReadEventEdge]
    page_info: PageInfo
    total_count: int


ReadAuditResult = Annotated[
    ReadEventConnection | InvalidInput | Forbidden | DatabaseUnavailable | TimedOut,
    strawberry.union("ReadAuditResult"),
]


@strawberry.type
class AuditQuery:
    @strawberry.field(description="The scope's audited reads, newest first (ENGRAM_AUDIT_READS).")
    async def read_audit(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        first: int = 20,
        after: str | None = None,
    ) -> ReadAuditResult:
        try:
            memory: MemoryService = info.context.memory
            page = await memory.read_audit(scope_for(info, scope), first, after)
        except EngramError as e:
            result = problem(e)
            return InvalidInput(message=result.message) if isinstance(result, NotFound) else result
        return ReadEventConnection(
            edges=[ReadEventEdge(cursor=e.cursor, node=ReadEvent.of(e.node)) for e in page.edges],
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                has_previous_page=after is not None,
                start_cursor=page.edges[0].cursor if page.edges else None,
                end_cursor=page.end_cursor,
            ),
            total_count=page.total_count,
        )
