"""GraphQL types: inputs, outputs and the typed errors that expected failures come back as."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from strawberry.types import Info

from service.api import loaders
from service.api.context import RequestContext
from service.core import domain
from service.core.errors import (
    DatabaseUnavailableError,
    EngramError,
    ForbiddenError,
    NotFoundError,
    QueryTimeoutError,
)


@strawberry.enum
class Role(Enum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


@strawberry.enum(
    description="SYNC answers once the memories are written. DEFERRED answers once the messages "
    "are stored as pending work; the service's worker writes them soon after (docs/api.md)."
)
class AddMode(Enum):
    SYNC = "sync"
    DEFERRED = "deferred"


@strawberry.input(description="Whose memory: at least one of the three ids.")
class ScopeInput:
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None


@strawberry.enum
class Clock(Enum):
    SAID = "said"
    HAPPENED = "happened"


@strawberry.input(description="A time window: explicit from/to, or a phrase such as 'last month'.")
class TimeFilterInput:
    clock: Clock | None = None
    from_: datetime | None = strawberry.field(name="from", default=None)
    to: datetime | None = None
    phrase: str | None = None
    reference_time: datetime | None = None

    def to_domain(self) -> domain.TimeFilter:
        return domain.TimeFilter(
            clock=domain.Clock(self.clock.value) if self.clock else None,
            start=self.from_,
            end=self.to,
            phrase=self.phrase,
            reference_time=self.reference_time,
        )


@strawberry.input
class MessageInput:
    content: str
    role: Role = Role.USER
    speaker: str | None = None
    timestamp: datetime | None = None
    id: str | None = None
    session_id: str | None = None


@strawberry.type
class Memory:
    id: strawberry.ID
    text: str
    source_text: str | None
    speaker: str | None
    said_at: datetime | None
    created_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    invalidated_at: datetime | None
    time_granularity: str | None
    confidence: float | None
    source_ids: list[str]
    stored: strawberry.Private[domain.StoredMemory]

    @classmethod
    def of(cls, m: domain.StoredMemory) -> Memory:
        return cls(
            id=strawberry.ID(m.id),
            text=m.text,
            source_text=m.source_text,
            speaker=m.speaker,
            said_at=m.said_at,
            created_at=m.created_at,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            invalidated_at=m.invalidated_at,
            time_granularity=m.time_granularity,
            confidence=m.confidence,
            source_ids=m.source_ids,
            stored=m,
        )

    @strawberry.field(description="The memories that replaced this one; empty while current.")
    async def superseded_by(self, info: Info[RequestContext, None]) -> list[Memory]:
        if self.invalidated_at is None:  # current: nothing replaced it, no query needed
            return []
        m = self.stored
        # Read in its own scope: the memory was read through an authorised scope already.
        owner = domain.Scope(user_id=m.user_id, agent_id=m.agent_id, run_id=m.run_id)
        found = await loaders.superseding_memories(info).load((m.id, owner))
        return [Memory.of(r) for r in found]


@strawberry.type
class RetrieverScore:
    retriever: str
    rank: int
    score: float


@strawberry.type
class SourceMessage:
    id: str
    external_id: str | None
    text: str
    speaker: str | None
    said_at: datetime | None
    session_id: str | None


@strawberry.type
class EntityRef:
    name: str
    type: str
    extractor: str | None


@strawberry.type(description="A search hit with the evidence for it.")
class MemoryHit:
    memory: Memory
    score: float
    retrievers: list[RetrieverScore]
    matched_entities: list[str]
    path: list[str]
    sources: list[SourceMessage]
    entities: list[EntityRef]

    @classmethod
    def of(cls, hit: domain.SearchHit) -> MemoryHit:
        return cls(
            memory=Memory.of(hit.memory),
            score=hit.score,
            retrievers=[RetrieverScore(**r.model_dump()) for r in hit.retrievers],
            matched_entities=hit.matched_entities,
            path=hit.path,
            sources=[SourceMessage(**s.model_dump()) for s in hit.sources],
            entities=[EntityRef(**e.model_dump()) for e in hit.entities],
        )


@strawberry.type
class SearchHits:
    hits: list[MemoryHit]
    scope: strawberry.Private[domain.Scope | None] = None

    @strawberry.field(
        description="Messages of the scope received as deferred adds and not written yet: "
        "the hits cannot include them. Read only when asked for (one count query)."
    )
    async def pending_messages(self, info: Info[RequestContext, None]) -> int:
        if self.scope is None:
            return 0
        return (await info.context.memory.pending_work(self.scope)).messages


@strawberry.type(description="Deferred adds not written yet in the scope.")
class PendingWork:
    batches: int = strawberry.field(description="Add calls waiting.")
    messages: int = strawberry.field(description="Their messages.")
    oldest_age_s: float | None = strawberry.field(
        description="Seconds the oldest has waited; null when none waits."
    )
    failed: int = strawberry.field(
        description="Adds set aside after repeated failures; their errors are kept in Neo4j."
    )

    @classmethod
    def of(cls, work: domain.PendingWork) -> PendingWork:
        return cls(
            batches=work.batches,
            messages=work.messages,
            oldest_age_s=work.oldest_age_s,
            failed=work.failed,
        )


@strawberry.type(description="Search hits as a dated prompt block within the token budget.")
class Context:
    text: str
    tokens: int
    memory_ids: list[strawberry.ID]


@strawberry.type
class AddMessagesSuccess:
    message_ids: list[str]
    added: list[strawberry.ID]
    updated: list[strawberry.ID]
    superseded: list[strawberry.ID]
    unchanged: list[strawberry.ID]
    bookmark: str | None = strawberry.field(
        description="Send it back as the X-Engram-Bookmark header: that request's reads then "
        "see this write on any member of a Neo4j cluster (docs/cluster.md)."
    )
    pending: bool = strawberry.field(
        default=False,
        description="A DEFERRED add: the messages are stored and will be written; only "
        "messageIds are known yet.",
    )

    @classmethod
    def of(cls, r: domain.AddResult) -> AddMessagesSuccess:
        return cls(
            message_ids=r.message_ids,
            added=[strawberry.ID(i) for i in r.added],
            updated=[strawberry.ID(i) for i in r.updated],
            superseded=[strawberry.ID(i) for i in r.superseded],
            unchanged=[strawberry.ID(i) for i in r.unchanged],
            bookmark=r.bookmark,
            pending=r.pending,
        )


@strawberry.type(description="The input was rejected; nothing was written.")
class InvalidInput:
    message: str


@strawberry.type(description="Neo4j does not answer; retry later.")
class DatabaseUnavailable:
    message: str


@strawberry.type(description="The request ran out of time in Neo4j; nothing was written.")
class TimedOut:
    message: str


@strawberry.type
class NotFound:
    message: str


@strawberry.type(description="The API key may not touch this scope.")
class Forbidden:
    message: str


Problem = InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden


def problem(error: EngramError) -> Problem:
    """The one place where domain errors become typed GraphQL results."""
    if isinstance(error, DatabaseUnavailableError):
        return DatabaseUnavailable(message="the database is unavailable; retry later")
    if isinstance(error, QueryTimeoutError):
        return TimedOut(message=str(error))
    if isinstance(error, NotFoundError):
        return NotFound(message=str(error))
    if isinstance(error, ForbiddenError):
        return Forbidden(message=str(error))
    return InvalidInput(message=str(error))


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None
