"""The kinds of fact a profile groups, and the typed results of profile and changes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, computed_field

from service.core.domain import StoredMemory
from service.store.graph_queries import EntityNode


class FactKind(StrEnum):
    """What a fact says about its subject: a typed relation or a slot, named for people."""

    WORKS_AT = "works_at"
    LIVES_IN = "lives_in"
    STUDIES_AT = "studies_at"
    FAMILY = "family"
    FRIENDS = "friends"
    LIKES = "likes"
    DISLIKES = "dislikes"
    USES = "uses"
    OWNS = "owns"
    JOB = "job"
    FAVOURITES = "favourites"
    MEMBER_OF = "member_of"
    LOCATED_IN = "located_in"
    VISITED = "visited"
    CREATED = "created"
    OTHER = "other"  # a slot of nlp_models/slots.jsonl that no kind names yet


# The kind of each relation type (service.nlp.relations.RelationType).
RELATION_KINDS: dict[str, FactKind] = {
    "WORKS_AT": FactKind.WORKS_AT,
    "LIVES_IN": FactKind.LIVES_IN,
    "STUDIES_AT": FactKind.STUDIES_AT,
    "FAMILY_OF": FactKind.FAMILY,
    "FRIEND_OF": FactKind.FRIENDS,
    "LIKES": FactKind.LIKES,
    "DISLIKES": FactKind.DISLIKES,
    "USES": FactKind.USES,
    "OWNS": FactKind.OWNS,
    "MEMBER_OF": FactKind.MEMBER_OF,
    "LOCATED_IN": FactKind.LOCATED_IN,
    "VISITED": FactKind.VISITED,
    "CREATED": FactKind.CREATED,
}
# Relations that hold both ways: a profile reads them whichever end its entity is.
MUTUAL_RELATIONS = ("FAMILY_OF", "FRIEND_OF")
# What a profile shows and `changes` reports, in this order: standing facts. A visit or a thing
# made is an event, which starts and ends nothing.
PROFILE_KINDS = (
    FactKind.WORKS_AT,
    FactKind.JOB,
    FactKind.LIVES_IN,
    FactKind.STUDIES_AT,
    FactKind.FAMILY,
    FactKind.FRIENDS,
    FactKind.LIKES,
    FactKind.DISLIKES,
    FactKind.FAVOURITES,
    FactKind.USES,
    FactKind.OWNS,
    FactKind.MEMBER_OF,
    FactKind.LOCATED_IN,
    FactKind.OTHER,
)
LABELS: dict[FactKind, str] = {
    FactKind.WORKS_AT: "works at",
    FactKind.LIVES_IN: "lives in",
    FactKind.STUDIES_AT: "studies at",
    FactKind.FAMILY: "family",
    FactKind.FRIENDS: "friends",
    FactKind.LIKES: "likes",
    FactKind.DISLIKES: "dislikes",
    FactKind.USES: "uses",
    FactKind.OWNS: "owns",
    FactKind.JOB: "job",
    FactKind.FAVOURITES: "favourite",
    FactKind.MEMBER_OF: "member of",
    FactKind.LOCATED_IN: "located in",
    FactKind.VISITED: "visited",
    FactKind.CREATED: "created",
    FactKind.OTHER: "other",
}


def label(kind: FactKind, detail: str | None = None) -> str:
    """How a fact of this kind reads before its value: "lives in", "favourite book"."""
    return f"{LABELS[kind]} {detail}" if detail else LABELS[kind]


class ProfileFact(BaseModel):
    """One current fact about the entity, with what it rests on.

    ``detail`` narrows the kind (a favourite's "book"; an unnamed slot's name); ``relation`` and
    ``slot`` say where it was read (either or both); ``since`` is when it was first said, of the
    memories that still hold it; ``inferred`` is true only when no memory states it outright.
    """

    model_config = ConfigDict(frozen=True)

    kind: FactKind
    value: str
    detail: str | None = None
    entity: EntityNode | None = None  # the other end of a relation
    relation: str | None = None
    slot: str | None = None
    since: datetime | None = None
    valid_from: datetime | None = None
    inferred: bool = False
    confidence: float | None = None
    evidence_count: int = 0
    evidence: list[StoredMemory] = Field(default_factory=list)


class FactGroup(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: FactKind
    label: str
    facts: list[ProfileFact]


class Profile(BaseModel):
    """An entity's facts grouped by kind, current or as they stood at ``as_of``."""

    model_config = ConfigDict(frozen=True)

    entity: EntityNode
    as_of: datetime | None = None
    groups: list[FactGroup] = Field(default_factory=list)


class ChangeType(StrEnum):
    STARTED = "started"  # a fact first said in the window
    ENDED = "ended"  # a fact retired in the window, nothing said in its place
    SUPERSEDED = "superseded"  # a fact replaced by another of the same kind


class FactState(BaseModel):
    """One side of a change: a value of the fact and the memories that said it."""

    model_config = ConfigDict(frozen=True)

    value: str
    entity: EntityNode | None = None
    since: datetime | None = None
    inferred: bool = False
    confidence: float | None = None
    memories: list[StoredMemory] = Field(default_factory=list)


class Change(BaseModel):
    """A fact that started, ended or was superseded, as before → after, and when."""

    model_config = ConfigDict(frozen=True)

    type: ChangeType
    kind: FactKind
    subject: str
    at: datetime
    detail: str | None = None
    relation: str | None = None
    slot: str | None = None
    before: FactState | None = None
    after: FactState | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """'Sam: lives in Lisbon → Berlin, 2026-03-14'; 'Sam: likes climbing (started,
        inferred), 2026-01-24' for a preference shown, not said."""
        day = self.at.date().isoformat()
        said = label(self.kind, self.detail)
        if self.before and self.after:
            before, after = _shown(self.before), _shown(self.after)
            return f"{self.subject}: {said} {before} → {after}, {day}"
        state = self.after or self.before
        value = state.value if state else ""
        how = f"{self.type.value}, inferred" if state and state.inferred else self.type.value
        return f"{self.subject}: {said} {value} ({how}), {day}"


def _shown(state: FactState) -> str:
    return f"{state.value} (inferred)" if state.inferred else state.value


class Changes(BaseModel):
    """The changes of a window ``[start, end)``, oldest first; ``truncated`` when capped."""

    model_config = ConfigDict(frozen=True)

    start: datetime | None = None
    end: datetime | None = None
    changes: list[Change] = Field(default_factory=list)
    truncated: bool = False
