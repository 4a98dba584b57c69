"""What changed in a window: statements paired into started, ended and superseded facts.

Pure logic over the store's FactRows (service/store/profile_queries.py). A statement that ended
is paired with the one that replaced it: a statement of the same subject and kind whose memory
superseded its memory (a SUPERSEDES edge), else one said at the very instant it ended (a change
of mind retires the old fact when the new one is said). An ended statement with no such partner
ended; a statement begun with none before it started. Said again while it stood, a fact has not
started anew (``restated``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from service.core.domain import StoredMemory
from service.nlp.entities.names import identity_form
from service.profile.facts import Kind, kind_of, merge_memories
from service.profile.model import Change, ChangeType, FactKind, FactState
from service.store.graph_queries import EntityNode
from service.store.profile_queries import FactRow

_KIND_ORDER = {kind: i for i, kind in enumerate(FactKind)}


@dataclass(eq=False)  # compared by identity: a statement is one object, paired once
class Statement:
    """One fact said by one or more rows of the same memories (a relation and a slot alike)."""

    subject: str
    kind: Kind
    value: str
    since: datetime | None
    ended: datetime | None
    # Who and what it is about, as names compare (identity_form): the fact a value belongs to.
    fact: tuple[str, Kind]
    value_key: str
    relation: str | None = None
    slot: str | None = None
    other: EntityNode | None = None
    inferred: bool = True
    restated: bool = False
    confidence: float | None = None
    memory_ids: set[str] = field(default_factory=set)
    successors: set[str] = field(default_factory=set)
    memories: list[StoredMemory] = field(default_factory=list)

    def state(self) -> FactState:
        return FactState(
            value=self.value,
            entity=self.other,
            since=self.since,
            inferred=self.inferred,
            confidence=self.confidence,
            memories=merge_memories(self.memories),
        )


def statements(rows: Iterable[FactRow]) -> list[Statement]:
    """The rows merged where they say the same fact at the same times (one memory's relation
    and slot)."""
    found: dict[tuple[object, ...], Statement] = {}
    for row in rows:
        if not row.value.strip():
            continue
        fact, value = (identity_form(row.subject), kind_of(row)), identity_form(row.value)
        key = (fact, value, row.since, row.ended)
        if key not in found:
            found[key] = Statement(
                row.subject, fact[1], row.value, row.since, row.ended, fact, value
            )
        _absorb(found[key], row)
    return list(found.values())


def _absorb(s: Statement, row: FactRow) -> None:
    if row.relation is not None and s.relation is None:
        s.relation, s.other, s.value = row.relation, row.other, row.value
    s.slot = s.slot or row.slot
    s.inferred = s.inferred and row.inferred
    s.restated = s.restated or row.restated
    if row.confidence is not None:
        s.confidence = max(s.confidence or 0.0, row.confidence)
    s.memory_ids.update(row.memory_ids)
    s.successors.update(row.successors)
    s.memories.extend(row.memories)


def pair_changes(
    rows: Iterable[FactRow], start: datetime | None, end: datetime | None
) -> list[Change]:
    """The changes whose instant lies in [start, end) (None: open), oldest first."""
    said = statements(rows)
    by_fact: dict[tuple[str, Kind], list[Statement]] = {}
    for s in said:
        by_fact.setdefault(s.fact, []).append(s)
    changes: list[Change] = []
    replacements: set[Statement] = set()
    # A replacement is said at the instant what it replaces ended: both lie in the window or
    # neither does.
    ended = [s for s in said if _within(s.ended, start, end)]
    for old in sorted(ended, key=_ended):
        new = replacement(old, by_fact[old.fact])
        if new is not None:
            replacements.add(new)
            changes.append(_change(ChangeType.SUPERSEDED, old, old, new))
        else:
            changes.append(_change(ChangeType.ENDED, old, old, None))
    for s in said:
        if _within(s.since, start, end) and not s.restated and s not in replacements:
            changes.append(_change(ChangeType.STARTED, s, None, s))
    return sorted(one_per_change(changes), key=_order)


def replacement(old: Statement, same_fact: list[Statement]) -> Statement | None:
    """What replaced ``old`` among the statements of its fact (subject and kind): another value
    said by a memory that superseded old's, else said at the instant old ended."""
    candidates = [s for s in same_fact if s.value_key != old.value_key]
    linked = [s for s in candidates if s.memory_ids & old.successors]
    at_once = [s for s in candidates if s.since is not None and s.since == old.ended]
    for found in (linked, at_once):
        if found:
            return min(found, key=lambda s: s.value_key)
    return None


def one_per_change(changes: list[Change]) -> list[Change]:
    """Changes of the same subject, values and instant as one: a statement read as two kinds
    ("my favourite book is X" is a favourite and a LIKES relation) is reported as its slot (the
    narrower), and two memories of one old value replaced at once as one change."""
    kept: dict[tuple[object, ...], Change] = {}
    for change in sorted(changes, key=_narrowest_first):
        key = (
            change.type,
            change.at,
            identity_form(change.subject),
            _value(change.before),
            _value(change.after),
        )
        first = kept.get(key)
        kept[key] = change if first is None else _with_memories_of(first, change)
    return list(kept.values())


def _value(state: FactState | None) -> str | None:
    return identity_form(state.value) if state else None


def _with_memories_of(change: Change, other: Change) -> Change:
    """``change`` with the memories of ``other`` (the same change) on each side too."""
    sides = {}
    for side in ("before", "after"):
        mine, theirs = getattr(change, side), getattr(other, side)
        if mine is not None and theirs is not None:
            memories = merge_memories([*mine.memories, *theirs.memories])
            sides[side] = mine.model_copy(update={"memories": memories})
    return change.model_copy(update=sides)


def _narrowest_first(change: Change) -> tuple[bool, int]:
    return change.slot is None, _KIND_ORDER[change.kind]


def _change(
    kind: ChangeType, stated: Statement, before: Statement | None, after: Statement | None
) -> Change:
    at = stated.ended if kind is not ChangeType.STARTED else stated.since
    assert at is not None  # only statements with that instant get here
    sides = [s for s in (before, after) if s is not None]
    return Change(
        type=kind,
        kind=stated.kind.kind,
        detail=stated.kind.detail,
        subject=stated.subject,
        at=at,
        relation=next((s.relation for s in sides if s.relation), None),
        slot=next((s.slot for s in sides if s.slot), None),
        before=before.state() if before else None,
        after=after.state() if after else None,
    )


def _ended(s: Statement) -> tuple[float, str]:
    return s.ended.timestamp() if s.ended else 0.0, s.value_key


def _within(at: datetime | None, start: datetime | None, end: datetime | None) -> bool:
    return at is not None and (start is None or at >= start) and (end is None or at < end)


def _order(change: Change) -> tuple[datetime, str, int, str]:
    value = (change.after or change.before or FactState(value="")).value
    return change.at, identity_form(change.subject), _KIND_ORDER[change.kind], value
