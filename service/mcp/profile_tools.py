"""The profile and changes tools: what the memory knows of an entity, and what changed when.

Thin calls into MemoryService.profile / .changes, scoped and erroring as every tool is
(service/mcp/tools.py); what they return is compact, one line per fact or change, with the ids
of the memories behind it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from service.core.domain import StoredMemory
from service.mcp.tools import (
    READ_ONLY,
    AgentId,
    Binding,
    RunId,
    Tool,
    UserId,
    tool_errors,
)
from service.profile import model
from service.profile.reader import ChangeWindow


class Evidence(BaseModel):
    """A memory behind a fact: its id, text and when it was said."""

    id: str
    text: str
    said_at: datetime | None

    @classmethod
    def of(cls, m: StoredMemory) -> Evidence:
        return cls(id=m.id, text=m.text, said_at=m.said_at)


class Fact(BaseModel):
    """One fact of a profile."""

    kind: str = Field(description="works_at, lives_in, likes, job, favourites …")
    line: str = Field(description="'lives in: Berlin (since 2026-03-14)', ready to quote")
    value: str
    since: datetime | None = Field(description="When it was first said")
    inferred: bool = Field(description="True when no memory states it outright")
    confidence: float | None
    evidence: list[Evidence]

    @classmethod
    def of(cls, fact: model.ProfileFact) -> Fact:
        said = model.label(fact.kind, fact.detail)
        since = f"since {fact.since.date().isoformat()}" if fact.since else "since ?"
        inferred = ", inferred" if fact.inferred else ""
        return cls(
            kind=fact.kind.value,
            line=f"{said}: {fact.value} ({since}{inferred})",
            value=fact.value,
            since=fact.since,
            inferred=fact.inferred,
            confidence=fact.confidence,
            evidence=[Evidence.of(m) for m in fact.evidence],
        )


class Profile(BaseModel):
    """An entity's facts by kind (in the profile's order), current or as of an instant."""

    entity: str
    type: str
    as_of: datetime | None
    facts: list[Fact]

    @classmethod
    def of(cls, p: model.Profile) -> Profile:
        facts = [Fact.of(f) for group in p.groups for f in group.facts]
        return cls(entity=p.entity.name, type=p.entity.type, as_of=p.as_of, facts=facts)


class Change(BaseModel):
    """A fact that started, ended or was superseded."""

    type: str = Field(description="started, ended or superseded")
    kind: str
    subject: str
    at: datetime = Field(description="When the change was said")
    before: str | None
    after: str | None
    summary: str = Field(description="'Sam: lives in Lisbon → Berlin, 2026-03-14'")
    memory_ids: list[str] = Field(description="The memories behind both sides")

    @classmethod
    def of(cls, c: model.Change) -> Change:
        sides = [s for s in (c.before, c.after) if s is not None]
        return cls(
            type=c.type.value,
            kind=c.kind.value,
            subject=c.subject,
            at=c.at,
            before=c.before.value if c.before else None,
            after=c.after.value if c.after else None,
            summary=c.summary,
            memory_ids=[m.id for s in sides for m in s.memories],
        )


class Changes(BaseModel):
    """The changes of the window [window_from, window_to), oldest first."""

    window_from: datetime | None
    window_to: datetime | None
    changes: list[Change]
    truncated: bool

    @classmethod
    def of(cls, found: model.Changes) -> Changes:
        return cls(
            window_from=found.start,
            window_to=found.end,
            changes=[Change.of(c) for c in found.changes],
            truncated=found.truncated,
        )


def register_profile_tools(server: MCPServer[Any], binding: Binding) -> None:
    """profile and changes: service/profile/."""
    server.tool(annotations=READ_ONLY)(_profile(binding))
    server.tool(annotations=READ_ONLY)(_changes(binding))


def _profile(binding: Binding) -> Tool:
    async def profile(
        ctx: Context,
        entity: Annotated[str, Field(description="A name or alias, such as the user's own")],
        as_of: Annotated[datetime | None, Field(description="The profile as it stood then")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> Profile:
        """What the memory knows of a person (or place, organisation …) now: works at, lives
        in, studies at, family, friends, likes, dislikes, uses, owns, job, favourites; each
        fact with since when, its memories and whether it is inferred."""
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            found = await binding.memory(ctx).profile(entity, who.scope, as_of, actor=who.actor)
        return Profile.of(found)

    return profile


def _changes(binding: Binding) -> Tool:
    async def changes(
        ctx: Context,
        time_phrase: Annotated[
            str | None,
            Field(description="'between March and May', 'since last month', '上个月以来' …"),
        ] = None,
        time_from: datetime | None = None,
        time_to: datetime | None = None,
        reference_time: Annotated[
            datetime | None, Field(description="What the phrase is relative to (default now)")
        ] = None,
        entity: Annotated[str | None, Field(description="Only the changes around it")] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 100,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
    ) -> Changes:
        """What changed in a window: facts and relations that started, ended or were replaced
        ("Sam: lives in Lisbon → Berlin, 2026-03-14"), oldest first. No window: all of them."""
        window = ChangeWindow(time_from, time_to, time_phrase, reference_time)
        with tool_errors():
            who = binding.caller(ctx, user_id, agent_id, run_id)
            found = await binding.memory(ctx).changes(
                who.scope, window, entity, limit, actor=who.actor
            )
        return Changes.of(found)

    return changes
