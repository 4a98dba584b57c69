"""GraphQL for the memory lifecycle: memory(id), history, addMemory, updateMemory, deleteMemory,
forget, evict and decay. Every result is a union: the value, or InvalidInput / NotFound /
Forbidden / DatabaseUnavailable. Events record the caller's principal as their actor (eviction
records "eviction").

`addMemory` stores its text as one memory, verbatim (Memory.add with infer=False, Mem0's fast
path): the caller has already decided what the fact is, so it is neither split nor rewritten.
`reset` is deliberately not exposed over GraphQL.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry
from strawberry.types import Info

from service.api.auth import actor, scope_for
from service.api.context import RequestContext
from service.api.types import (
    AddMessagesSuccess,
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    Memory,
    NotFound,
    ScopeInput,
    TimedOut,
    problem,
)
from service.core.errors import EngramError
from service.lifecycle import operations as lifecycle
from service.memory import MemoryService
from service.store.lifecycle_queries import EdgeRef


@strawberry.enum
class EventOp(Enum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    SUPERSEDE = "SUPERSEDE"
    DELETE = "DELETE"
    FORGET = "FORGET"
    DECAY = "DECAY"


@strawberry.type(description="One change to a memory; texts are null once forgotten.")
class MemoryEvent:
    id: strawberry.ID
    op: EventOp
    memory_id: strawberry.ID
    old_text: str | None
    new_text: str | None
    actor: str | None
    at: datetime
    redacted_at: datetime | None
    old_confidence: float | None = strawberry.field(description="Set on DECAY events.")
    new_confidence: float | None = strawberry.field(description="Set on DECAY events.")

    @classmethod
    def of(cls, e: lifecycle.MemoryEvent) -> MemoryEvent:
        return cls(
            id=strawberry.ID(e.id),
            op=EventOp(e.op.value),
            memory_id=strawberry.ID(e.memory_id),
            old_text=e.old_text,
            new_text=e.new_text,
            actor=e.actor,
            at=e.at,
            redacted_at=e.redacted_at,
            old_confidence=e.old_confidence,
            new_confidence=e.new_confidence,
        )


@strawberry.type(description="A memory's events, oldest first.")
class MemoryHistory:
    memory_id: strawberry.ID
    events: list[MemoryEvent]


@strawberry.type(description="A deleted memory and the entities no other memory mentioned.")
class DeletedMemory:
    memory_id: strawberry.ID
    entity_keys: list[str]


@strawberry.type(description="One relationship: element id, type, and the id or key of each end.")
class RemovedEdge:
    id: str
    type: str
    source: str
    target: str

    @classmethod
    def of(cls, e: EdgeRef) -> RemovedEdge:
        return cls(id=e.id, type=e.type, source=e.source, target=e.target)


@strawberry.type(description="What the scope and its indexes still hold; all zero is proof.")
class ForgetVerification:
    nodes_left: int
    texts_left: int
    fulltext_hits: int
    entity_hits: int
    vector_hits: int


@strawberry.type
class ForgetCounts:
    messages: int
    memories: int
    entities: int
    mentions: int
    derived_from: int
    supersedes: int
    events_redacted: int
    read_events: int


@strawberry.type(description="What forget removes (dryRun) or removed, with the proof.")
class ForgetReport:
    dry_run: bool
    message_ids: list[strawberry.ID]
    memory_ids: list[strawberry.ID]
    entity_keys: list[str]
    mentions: list[RemovedEdge]
    derived_from: list[RemovedEdge]
    supersedes: list[RemovedEdge]
    events_redacted: list[strawberry.ID]
    read_events: int = strawberry.field(description="Read-audit events of the scope, deleted.")
    forget_events: int
    verified: bool | None = strawberry.field(description="Null on a dry run.")
    verification: ForgetVerification | None

    @strawberry.field
    def counts(self) -> ForgetCounts:
        return ForgetCounts(
            messages=len(self.message_ids),
            memories=len(self.memory_ids),
            entities=len(self.entity_keys),
            mentions=len(self.mentions),
            derived_from=len(self.derived_from),
            supersedes=len(self.supersedes),
            events_redacted=len(self.events_redacted),
            read_events=self.read_events,
        )

    @classmethod
    def of(cls, r: lifecycle.ForgetReport) -> ForgetReport:
        left = r.leftovers
        return cls(
            dry_run=r.dry_run,
            message_ids=_ids(r.messages),
            memory_ids=_ids(r.memories),
            entity_keys=r.entities,
            mentions=[RemovedEdge.of(e) for e in r.mentions],
            derived_from=[RemovedEdge.of(e) for e in r.derived_from],
            supersedes=[RemovedEdge.of(e) for e in r.supersedes],
            events_redacted=_ids(r.events_redacted),
            read_events=r.read_events,
            forget_events=r.forget_events,
            verified=r.verified,
            verification=ForgetVerification(**left.model_dump()) if left else None,
        )


@strawberry.type(description="Memories matching any eviction criterion; deleted unless dryRun.")
class EvictReport:
    dry_run: bool
    memory_ids: list[strawberry.ID]
    entity_keys: list[str]


@strawberry.type(description="Memories whose confidence decayed (or would, on a dryRun).")
class DecayReport:
    dry_run: bool
    changed: int
    lowest_confidence: float | None = strawberry.field(
        description="The lowest confidence a changed memory ends with; null when none changes."
    )
    half_life_days: float
    floor: float
    preferences_faded: int = strawberry.field(
        default=0,
        description="Inferred LIKES (person, thing) whose confidence fell with the time since "
        "their last evidence (ENGRAM_INFERRED_LIKE_HALF_LIFE_DAYS).",
    )
    preferences_retired: int = strawberry.field(
        default=0,
        description="Of those, the ones that fell below ENGRAM_INFERRED_LIKE_MIN_CONFIDENCE and "
        "were retired (invalidated_at).",
    )


_Problems = InvalidInput | NotFound | Forbidden | DatabaseUnavailable | TimedOut
MemoryResult = Annotated[Memory | _Problems, strawberry.union("MemoryResult")]
HistoryResult = Annotated[MemoryHistory | _Problems, strawberry.union("HistoryResult")]
AddMemoryResult = Annotated[AddMessagesSuccess | _Problems, strawberry.union("AddMemoryResult")]
DeleteMemoryResult = Annotated[DeletedMemory | _Problems, strawberry.union("DeleteMemoryResult")]
ForgetResult = Annotated[ForgetReport | _Problems, strawberry.union("ForgetResult")]
EvictResult = Annotated[EvictReport | _Problems, strawberry.union("EvictResult")]
DecayResult = Annotated[DecayReport | _Problems, strawberry.union("DecayResult")]


@strawberry.type
class LifecycleQuery:
    @strawberry.field(description="One memory by id; the read counts for eviction by access count.")
    async def memory(
        self, info: Info[RequestContext, None], id: strawberry.ID, scope: ScopeInput
    ) -> MemoryResult:
        try:
            found = await _lifecycle(info).get(str(id), scope_for(info, scope))
        except EngramError as e:
            return problem(e)
        return Memory.of(found)

    @strawberry.field(description="A memory's events, oldest first; kept after it is deleted.")
    async def history(
        self, info: Info[RequestContext, None], memory_id: strawberry.ID, scope: ScopeInput
    ) -> HistoryResult:
        try:
            events = await _lifecycle(info).history(str(memory_id), scope_for(info, scope))
        except EngramError as e:
            return problem(e)
        return MemoryHistory(memory_id=memory_id, events=[MemoryEvent.of(e) for e in events])


@strawberry.type
class LifecycleMutation:
    @strawberry.mutation(description="Store one text as one memory, verbatim (no extraction).")
    async def add_memory(
        self,
        info: Info[RequestContext, None],
        text: str,
        scope: ScopeInput,
        speaker: str | None = None,
        timestamp: datetime | None = None,
    ) -> AddMemoryResult:
        message = {"content": text, "speaker": speaker, "timestamp": timestamp}
        try:
            memory: MemoryService = info.context.memory
            result = await memory.add(
                [message], scope_for(info, scope), infer=False, actor=actor(info)
            )
        except EngramError as e:
            return problem(e)
        return AddMessagesSuccess.of(result)

    @strawberry.mutation(description="New text for a memory: re-embedded, entities relinked.")
    async def update_memory(
        self, info: Info[RequestContext, None], id: strawberry.ID, text: str, scope: ScopeInput
    ) -> MemoryResult:
        try:
            updated = await _lifecycle(info).update(
                str(id), text, scope_for(info, scope), actor(info)
            )
        except EngramError as e:
            return problem(e)
        return Memory.of(updated)

    @strawberry.mutation(description="Delete a memory; its history (with its text) stays.")
    async def delete_memory(
        self, info: Info[RequestContext, None], id: strawberry.ID, scope: ScopeInput
    ) -> DeleteMemoryResult:
        try:
            done = await _lifecycle(info).delete(str(id), scope_for(info, scope), actor(info))
        except EngramError as e:
            return problem(e)
        return DeletedMemory(memory_id=id, entity_keys=done.entity_keys)

    @strawberry.mutation(description="Erase a scope and prove it; dryRun lists what would go.")
    async def forget(
        self, info: Info[RequestContext, None], scope: ScopeInput, dry_run: bool
    ) -> ForgetResult:
        try:
            report = await _lifecycle(info).forget(scope_for(info, scope), dry_run, actor(info))
        except EngramError as e:
            return problem(e)
        return ForgetReport.of(report)

    @strawberry.mutation(
        description="Delete memories matching ANY criterion: said before olderThan, read at "
        "most maxAccessCount times, or confidence below minConfidence."
    )
    async def evict(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        dry_run: bool,
        older_than: datetime | None = None,
        max_access_count: int | None = None,
        min_confidence: float | None = None,
    ) -> EvictResult:
        try:
            report = await _lifecycle(info).evict(
                scope_for(info, scope), older_than, max_access_count, min_confidence, dry_run
            )
        except EngramError as e:
            return problem(e)
        return EvictReport(
            dry_run=report.dry_run,
            memory_ids=_ids(report.memory_ids),
            entity_keys=report.entity_keys,
        )

    @strawberry.mutation(
        description="Lower each current memory's confidence by its time unused: times "
        "0.5^(days / halfLifeDays), never below floor. Reading a memory restarts its clock; "
        "evict(minConfidence) then removes what has faded. Inferred LIKES fade too, by the "
        "time since their last evidence (docs/graph.md)."
    )
    async def decay(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        half_life_days: float,
        dry_run: bool,
        floor: float = 0.0,
    ) -> DecayResult:
        try:
            report = await _lifecycle(info).decay(
                scope_for(info, scope), half_life_days, floor, dry_run, actor(info)
            )
        except EngramError as e:
            return problem(e)
        return DecayReport(**report.model_dump())


def _lifecycle(info: Info[RequestContext, None]) -> lifecycle.Lifecycle:
    memory: MemoryService = info.context.memory
    return memory.lifecycle


def _ids(values: list[str]) -> list[strawberry.ID]:
    return [strawberry.ID(v) for v in values]
