"""What the write path and the store hand each other: typed rows, made into Cypher parameters
only at the store's edge (``params``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypedDict


class MessageProps(TypedDict):
    """A message node's properties (cypher/merge_messages.cypher), besides its scope."""

    text: str
    role: str
    speaker: str | None
    said_at: datetime
    session_id: str | None
    external_id: str | None


class ContextProps(TypedDict):
    """What a memory's context adds to it: the facts its vector is mixed with."""

    context_texts: list[str]
    context_text: str | None
    content_embedding: list[float] | None


class MemoryProps(ContextProps):
    """A memory node's properties (cypher/merge_memories.cypher), besides its scope."""

    text: str
    source_text: str
    hash: str
    speaker: str | None
    said_at: datetime
    lang: str
    confidence: float
    embedding: list[float]
    embedding_model: str
    linker_version: int
    valid_from: datetime | None
    valid_to: datetime | None
    happened_start: datetime
    happened_end: datetime
    time_granularity: str | None
    time_expressions: list[str]
    subject: str | None
    slot: str | None
    slot_value: str | None


class ReconcileParams(TypedDict):
    key: str
    hash: str
    embedding: list[float]
    slot: str | None
    subject: str | None


@dataclass(frozen=True)
class ReconcileAsk:
    """A candidate fact as the store looks it up (cypher/find_reconcile_candidates.cypher)."""

    key: str
    hash: str
    embedding: list[float]
    slot: str | None
    subject: str | None

    def params(self) -> ReconcileParams:
        """As the query reads it; the vector is passed as it is (asdict would copy each float)."""
        return {
            "key": self.key,
            "hash": self.hash,
            "embedding": self.embedding,
            "slot": self.slot,
            "subject": self.subject,
        }


@dataclass(frozen=True)
class SlotHolder:
    """A stored, current memory that sets the candidate's subject + slot."""

    id: str
    slot_value: str | None = None
    said_at: datetime | None = None
    agent_id: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class Reconciled:
    """What the scope already holds of a candidate: a memory with the same text, the nearest
    near-duplicate, the current holders of its slot, and whether the vector index's answer was
    crowded with other scopes' near copies (then it is asked again, deeper)."""

    same_id: str | None = None
    near_id: str | None = None
    near_text: str | None = None
    holders: tuple[SlotHolder, ...] = ()
    crowded: bool = False

    @classmethod
    def from_record(cls, row: Mapping[str, Any]) -> Reconciled:
        return cls(
            same_id=row.get("same_id"),
            near_id=row.get("near_id"),
            near_text=row.get("near_text"),
            holders=tuple(SlotHolder(**holder) for holder in row.get("holders") or ()),
            crowded=bool(row.get("crowded")),
        )


@dataclass(frozen=True)
class NewMemory:
    """A memory to create: its node properties and the messages it came from."""

    id: str
    props: MemoryProps
    source_ids: list[str]


@dataclass(frozen=True)
class Update:
    """A near-duplicate of a stored memory: the memory gains the new sources, and takes the new
    wording (text, hash, vectors, context) when ``replace_text``."""

    memory_id: str
    source_ids: list[str]
    text: str
    source_text: str | None
    hash: str
    embedding: list[float]
    context_texts: list[str]
    context_text: str | None
    content_embedding: list[float] | None
    replace_text: bool


@dataclass(frozen=True)
class Supersession:
    """``new_id`` takes the slot from ``old_id``, which is kept but invalidated ``at``."""

    new_id: str
    old_id: str
    reason: str
    at: datetime | None


@dataclass(frozen=True)
class SourceLink:
    """A memory said again word for word: it gains the messages that said it."""

    memory_id: str
    source_ids: list[str]


@dataclass(frozen=True)
class Activity:
    """A thing done (DOES) on a day, said by a memory: the evidence inferred preferences count.
    One edge per memory and day, so a fact said again on another day counts that day too."""

    memory_id: str
    source_key: str
    target_key: str
    day: date
    said_at: datetime
    confidence: float
    extractor: str


@dataclass(frozen=True)
class Closing:
    """An edge closed without its memory (a thing done, an inferred LIKES), kept for asOf."""

    subject_key: str
    target_key: str
    type: str
    memory_id: str
    at: datetime


@dataclass(frozen=True)
class Evidence:
    """A memory that says a thing was done, and the day it was done."""

    memory_id: str
    day: date


@dataclass(frozen=True)
class InferredLike:
    """A LIKES inferred from things done: one edge per evidence memory, since ``since``."""

    subject_key: str
    target_key: str
    evidence: tuple[Evidence, ...]
    confidence: float
    days: int
    last_day: date
    since: datetime


Pair = tuple[str, str]  # (subject key, target key)
DOES = "DOES"  # the relation type of a thing done (RelationType.DOES), written per day


@dataclass(frozen=True)
class HeldRelation:
    """A current LIKES, DISLIKES, USES or DOES of a subject, stored or written by this batch."""

    subject_key: str
    type: str  # a RelationType: LIKES, DISLIKES, USES or DOES
    target_key: str
    target_name: str
    memory_id: str
    inferred: bool = False
    said_at: datetime | None = None
    day: date | None = None  # the day a DOES happened

    @property
    def pair(self) -> Pair:
        return (self.subject_key, self.target_key)


@dataclass(frozen=True)
class PreferenceAsk:
    """Whose current relations the store reads for a batch: all of a subject's (a change may
    retire any), or only those to the things the batch says were done."""

    subject_key: str
    target_keys: tuple[str, ...] | None


@dataclass
class WritePlan:
    """What one add writes in one transaction (write_plan.plan_writes decides it; the
    preference rows come from ingest/preferences.py)."""

    new: list[NewMemory] = field(default_factory=list)
    updates: list[Update] = field(default_factory=list)
    supersessions: list[Supersession] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    source_links: list[SourceLink] = field(default_factory=list)
    # Existing memories a candidate was found to repeat (same hash or near-duplicate), by the
    # candidate's id: a thing done said again on another day counts on that memory.
    kept: dict[str, str] = field(default_factory=dict)
    activities: list[Activity] = field(default_factory=list)
    closings: list[Closing] = field(default_factory=list)
    inferred: list[InferredLike] = field(default_factory=list)
