"""The profile and changes use cases: check the request, read the statements, group or pair them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from service.core.domain import Scope, clean_text, instant_or_error, utcnow
from service.core.errors import ValidationError
from service.nlp.time.windows import resolve_window
from service.profile.changes import pair_changes
from service.profile.facts import group_profile
from service.profile.model import (
    MUTUAL_RELATIONS,
    PROFILE_KINDS,
    RELATION_KINDS,
    Changes,
    Profile,
)
from service.retrieval.traversal import GraphTraversal, check_range
from service.store.database import Database
from service.store.graph_queries import EntityNode
from service.store.profile_queries import ChangesAsk, ProfileAsk, ProfileStore

# Statements read per request at most: a profile's, and a window's (pairing needs them all,
# so a window holding more answers from its oldest ones).
PROFILE_ROWS = 1000
CHANGE_ROWS = 5000
EVIDENCE_PER_FACT = 5
MAX_CHANGES = 500
MAX_PHRASE_CHARS = 200
# The relation types a profile and changes read: those of its kinds (standing facts, not events).
PROFILE_RELATIONS = sorted(t for t, kind in RELATION_KINDS.items() if kind in PROFILE_KINDS)


@dataclass(frozen=True)
class ChangeWindow:
    """Which window: ``[start, end)`` (either side open), or a phrase ("between March and May",
    "上个月以来") read at ``reference_time`` (default now)."""

    start: datetime | None = None
    end: datetime | None = None
    phrase: str | None = None
    reference_time: datetime | None = None


def window_bounds(window: ChangeWindow, now: datetime) -> tuple[datetime | None, datetime | None]:
    """The window's bounds, its phrase resolved; a window that is not one is a ValidationError."""
    start, end = instant_or_error(window.start), instant_or_error(window.end)
    if window.phrase is not None:
        if start is not None or end is not None:
            raise ValidationError("give a window as from/to or as a phrase, not both")
        phrase = _phrase(window.phrase)
        reference = instant_or_error(window.reference_time) or now
        found = resolve_window(phrase, reference)
        if found is None:
            raise ValidationError(f"cannot read a time window from {phrase!r}")
        start, end = found.start, found.end
    if start is not None and end is not None and start >= end:
        raise ValidationError("the window ends before it starts")
    return start, end


def _phrase(text: str) -> str:
    try:
        phrase = clean_text(text).strip()
    except ValueError as e:
        raise ValidationError(f"phrase: {e}") from e
    if not phrase or len(phrase) > MAX_PHRASE_CHARS:
        raise ValidationError(f"phrase must have 1 to {MAX_PHRASE_CHARS} characters")
    return phrase


class ProfileReader:
    """Profiles of entities and the changes of windows, inside one scope."""

    def __init__(self, db: Database, graph: GraphTraversal) -> None:
        self.store = ProfileStore(db)
        self.graph = graph

    async def profile(self, name: str, scope: Scope, as_of: datetime | None = None) -> Profile:
        """The entity called ``name`` (any alias) and its facts by kind, now or at ``as_of``."""
        as_of = instant_or_error(as_of)
        entity = await self.graph.entity(name, scope)
        ask = ProfileAsk(
            key=entity.key,
            subjects=names_of(entity),
            relation_types=PROFILE_RELATIONS,
            mutual_types=list(MUTUAL_RELATIONS),
            as_of=as_of,
        )
        rows = await self.store.current_facts(scope, ask, PROFILE_ROWS)
        return Profile(entity=entity, as_of=as_of, groups=group_profile(rows, EVIDENCE_PER_FACT))

    async def changes(
        self, scope: Scope, window: ChangeWindow, entity: str | None = None, limit: int = 100
    ) -> Changes:
        """The profile's facts that started, ended or were superseded in the window, around one
        entity or in the whole scope."""
        check_range("limit", limit, 1, MAX_CHANGES)
        start, end = window_bounds(window, utcnow())
        ask = ChangesAsk(PROFILE_RELATIONS, start, end)
        if entity is not None:
            node = await self.graph.entity(entity, scope)
            ask = ChangesAsk(PROFILE_RELATIONS, start, end, node.key, names_of(node))
        rows = await self.store.changed_facts(scope, ask, CHANGE_ROWS)
        found = pair_changes(rows, start, end)
        return Changes(start=start, end=end, changes=found[:limit], truncated=len(found) > limit)


def names_of(entity: EntityNode) -> list[str]:
    """The names a slot memory may give the entity as its subject (its speaker's name)."""
    return sorted({entity.name, *entity.aliases})
