"""GraphQL for what Engram knows of an entity (`profile`) and what changed in a window (`changes`).

Both resolvers call MemoryService (service/profile/ holds the logic); expected failures come back
as typed results, as everywhere.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from service.api.auth import actor, scope_for
from service.api.context import RequestContext
from service.api.graph import Entity
from service.api.types import (
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    Memory,
    NotFound,
    ScopeInput,
    TimedOut,
    problem,
)
from service.core import domain
from service.core.errors import EngramError
from service.memory import MemoryService
from service.profile import model
from service.profile.reader import ChangeWindow

FactKind = strawberry.enum(
    model.FactKind,
    name="FactKind",
    description="What a fact says of its subject: a typed relation or a slot, named for people.",
)
ChangeType = strawberry.enum(
    model.ChangeType,
    name="ChangeType",
    description="STARTED: first said in the window; ENDED: retired with nothing in its place; "
    "SUPERSEDED: replaced by another value of the same kind.",
)


def memory_service(info: Info[RequestContext, None]) -> MemoryService:
    memory: MemoryService = info.context.memory
    return memory


@strawberry.type(description="One fact of a profile and what it rests on.")
class ProfileFact:
    kind: FactKind  # type: ignore[valid-type]
    value: str
    detail: str | None = strawberry.field(
        description="What narrows the kind: a favourite's 'book', an unnamed slot's name."
    )
    entity: Entity | None = strawberry.field(description="The other end of its relation.")
    relation: str | None = strawberry.field(description="The relation type it was read from.")
    slot: str | None = strawberry.field(description="The slot it was read from (lives_in …).")
    since: datetime | None = strawberry.field(
        description="When it was first said, of the memories that hold it."
    )
    valid_from: datetime | None = strawberry.field(
        description="When it began, where a memory says so."
    )
    inferred: bool = strawberry.field(
        description="True when no memory states it: inferred from repeated behaviour."
    )
    confidence: float | None
    evidence_count: int = strawberry.field(description="Memories that hold it.")
    evidence: list[Memory] = strawberry.field(description="The newest of them (at most 5).")

    @classmethod
    def of(cls, fact: model.ProfileFact, scope: domain.Scope) -> ProfileFact:
        return cls(
            kind=fact.kind,
            value=fact.value,
            detail=fact.detail,
            entity=Entity.of(fact.entity, scope) if fact.entity else None,
            relation=fact.relation,
            slot=fact.slot,
            since=fact.since,
            valid_from=fact.valid_from,
            inferred=fact.inferred,
            confidence=fact.confidence,
            evidence_count=fact.evidence_count,
            evidence=[Memory.of(m) for m in fact.evidence],
        )


@strawberry.type(description="The facts of one kind.")
class ProfileGroup:
    kind: FactKind  # type: ignore[valid-type]
    label: str = strawberry.field(description="'works at', 'lives in', 'likes' …")
    facts: list[ProfileFact]


@strawberry.type(description="An entity's facts grouped by kind, current or as they stood.")
class Profile:
    entity: Entity
    as_of: datetime | None
    groups: list[ProfileGroup]

    @classmethod
    def of(cls, profile: model.Profile, scope: domain.Scope) -> Profile:
        return cls(
            entity=Entity.of(profile.entity, scope),
            as_of=profile.as_of,
            groups=[
                ProfileGroup(
                    kind=g.kind,
                    label=g.label,
                    facts=[ProfileFact.of(f, scope) for f in g.facts],
                )
                for g in profile.groups
            ],
        )


@strawberry.type(description="One side of a change: a value and the memories that said it.")
class FactState:
    value: str
    entity: Entity | None
    since: datetime | None
    inferred: bool
    confidence: float | None
    memories: list[Memory]

    @classmethod
    def of(cls, state: model.FactState, scope: domain.Scope) -> FactState:
        return cls(
            value=state.value,
            entity=Entity.of(state.entity, scope) if state.entity else None,
            since=state.since,
            inferred=state.inferred,
            confidence=state.confidence,
            memories=[Memory.of(m) for m in state.memories],
        )


@strawberry.type(description="A fact that started, ended or was superseded, and when.")
class Change:
    type: ChangeType  # type: ignore[valid-type]
    kind: FactKind  # type: ignore[valid-type]
    detail: str | None
    subject: str = strawberry.field(description="Whom it is about.")
    at: datetime = strawberry.field(description="When the change was said.")
    relation: str | None
    slot: str | None
    before: FactState | None
    after: FactState | None
    summary: str = strawberry.field(description="'Sam: lives in Lisbon → Berlin, 2026-03-14'.")

    @classmethod
    def of(cls, change: model.Change, scope: domain.Scope) -> Change:
        return cls(
            type=change.type,
            kind=change.kind,
            detail=change.detail,
            subject=change.subject,
            at=change.at,
            relation=change.relation,
            slot=change.slot,
            before=FactState.of(change.before, scope) if change.before else None,
            after=FactState.of(change.after, scope) if change.after else None,
            summary=change.summary,
        )


@strawberry.type(description="The changes of a window [from, to), oldest first.")
class ChangeList:
    from_: datetime | None = strawberry.field(name="from")
    to: datetime | None
    changes: list[Change]
    truncated: bool = strawberry.field(description="More changes than `limit` fell in it.")


ProfileResult = Annotated[
    Profile | NotFound | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("ProfileResult"),
]
ChangesResult = Annotated[
    ChangeList | NotFound | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("ChangesResult"),
]


@strawberry.type
class ProfileQuery:
    @strawberry.field(
        description="An entity's current facts grouped by kind (works at, lives in, likes …, "
        "job, favourites), each with since when, its evidence and its confidence; as they "
        "stood at asOf."
    )
    async def profile(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        entity: str,
        as_of: datetime | None = None,
    ) -> ProfileResult:
        try:
            where = scope_for(info, scope)
            found = await memory_service(info).profile(entity, where, as_of, actor=actor(info))
        except EngramError as e:
            return problem(e)
        return Profile.of(found, where)

    @strawberry.field(
        description="Facts and relations that started, ended or were superseded in a window "
        "(from/to, or a phrase such as 'between March and May', '上个月以来', read at "
        "referenceTime), as before → after pairs; around one entity when given."
    )
    async def changes(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
        to: datetime | None = None,
        phrase: str | None = None,
        reference_time: datetime | None = None,
        entity: str | None = None,
        limit: int = 100,
    ) -> ChangesResult:
        window = ChangeWindow(from_, to, phrase, reference_time)
        try:
            where = scope_for(info, scope)
            found = await memory_service(info).changes(
                where, window, entity, limit, actor=actor(info)
            )
        except EngramError as e:
            return problem(e)
        return ChangeList(
            from_=found.start,
            to=found.end,
            changes=[Change.of(c, where) for c in found.changes],
            truncated=found.truncated,
        )
