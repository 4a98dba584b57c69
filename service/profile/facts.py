"""From statements to facts: what kind each statement is, and a profile's facts grouped by kind.

Pure logic over the store's FactRows (service/store/profile_queries.py). A fact is one value of
one kind: the relation "LIVES_IN Berlin" and the slot "lives_in: Berlin" of the same memory
are one fact, and so are two memories that say it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from service.core.domain import StoredMemory
from service.nlp.entities.names import identity_form
from service.profile.model import (
    PROFILE_KINDS,
    RELATION_KINDS,
    FactGroup,
    FactKind,
    ProfileFact,
    label,
)
from service.store.profile_queries import FactRow

# Slots (nlp_models/slots.jsonl) that are a kind of their own; "favourite_<what>" is a favourite.
SLOT_KINDS: dict[str, FactKind] = {
    "lives_in": FactKind.LIVES_IN,
    "works_at": FactKind.WORKS_AT,
    "job": FactKind.JOB,
}
FAVOURITE = "favourite_"


@dataclass(frozen=True)
class Kind:
    """A statement's kind, and what narrows it (a favourite's "book")."""

    kind: FactKind
    detail: str | None = None


def kind_of(row: FactRow) -> Kind:
    """The kind of fact a row states: its relation type's, else its slot's."""
    if row.relation is not None:
        return Kind(RELATION_KINDS.get(row.relation, FactKind.OTHER))
    slot = row.slot or ""
    if slot in SLOT_KINDS:
        return Kind(SLOT_KINDS[slot])
    if slot.startswith(FAVOURITE) and len(slot) > len(FAVOURITE):
        return Kind(FactKind.FAVOURITES, slot.removeprefix(FAVOURITE).replace("_", " "))
    return Kind(FactKind.OTHER, slot.replace("_", " ") or None)


def fact_key(row: FactRow) -> tuple[FactKind, str | None, str]:
    """What makes two statements the same fact of one subject: kind, detail and value."""
    kind = kind_of(row)
    return kind.kind, kind.detail, identity_form(row.value)


def group_profile(rows: Iterable[FactRow], evidence_per_fact: int) -> list[FactGroup]:
    """The facts of the rows by kind, in PROFILE_KINDS order; each kind's facts newest first."""
    merged: dict[tuple[FactKind, str | None, str], list[FactRow]] = {}
    for row in rows:
        if row.value.strip():
            merged.setdefault(fact_key(row), []).append(row)
    facts = [to_fact(same, evidence_per_fact) for same in merged.values()]
    groups = []
    for kind in PROFILE_KINDS:
        mine = [f for f in facts if f.kind == kind]
        if mine:
            mine.sort(key=_newest_fact_first)
            groups.append(FactGroup(kind=kind, label=label(kind), facts=mine))
    return groups


def _newest_fact_first(fact: ProfileFact) -> tuple[float, str]:
    return -(fact.since.timestamp() if fact.since else float("-inf")), fact.value


def to_fact(rows: list[FactRow], evidence_per_fact: int) -> ProfileFact:
    """One fact from the statements that say it (at least one)."""
    first = min(rows, key=_said_first)
    kind = kind_of(first)
    memories = merge_memories(m for row in rows for m in row.memories)
    relation = next((r for r in rows if r.relation is not None), None)
    slot = next((r.slot for r in rows if r.slot is not None), None)
    confidences = [r.confidence for r in rows if r.confidence is not None]
    starts = [m.valid_from for m in memories if m.valid_from is not None]
    return ProfileFact(
        kind=kind.kind,
        value=(relation or first).value,
        detail=kind.detail,
        entity=relation.other if relation else None,
        relation=relation.relation if relation else None,
        slot=slot,
        since=first.since,
        valid_from=min(starts) if starts else None,
        inferred=all(r.inferred for r in rows),
        confidence=max(confidences) if confidences else None,
        evidence_count=len(memories),
        evidence=memories[:evidence_per_fact],
    )


def _said_first(row: FactRow) -> tuple[bool, float]:
    return row.since is None, row.since.timestamp() if row.since else 0.0


def merge_memories(memories: Iterable[StoredMemory]) -> list[StoredMemory]:
    """Each memory once, newest said first (then by id)."""
    unique = {m.id: m for m in memories}
    return sorted(unique.values(), key=_newest_first)


def _newest_first(m: StoredMemory) -> tuple[float, str]:
    said = m.said_at or m.created_at
    return -(said.timestamp() if said else 0.0), m.id
