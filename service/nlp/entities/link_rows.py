"""What the entity linker (linking.py) reads and writes: the entities a scope already has, the
facts of a batch to link, and the rows the store merges (entities, mentions, typed relations,
changes of mind), all typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from service.nlp.entities.mentions import VOTE_TYPES
from service.nlp.entities.patterns import EntityMention
from service.nlp.preferences.reading import Change
from service.nlp.relations.extractor import RelationMention, RelationType


@dataclass(frozen=True)
class KnownEntity:
    """An entity the scope already has, as the linker needs it; ``type_votes`` (context) and
    ``label_votes`` (extractors' labels) are its stored votes in VOTE_TYPES order (empty for an
    entity stored before votes were kept)."""

    key: str
    name: str
    type: str
    type_confidence: float
    aliases: tuple[str, ...] = ()
    type_votes: tuple[float, ...] = ()
    label_votes: tuple[float, ...] = ()


@dataclass(frozen=True)
class LinkInput:
    """One fact to link: its memory, text, mentions, speaker and relations."""

    memory_id: str
    text: str
    lang: str
    speaker: str | None
    said_at: datetime
    mentions: Sequence[EntityMention]
    relations: Sequence[RelationMention] = ()
    change: Change | None = None  # a change of mind it states (service/nlp/preferences/)


@dataclass(frozen=True)
class ChangeRow:
    """A change of mind, resolved: whose (the speaker's entity), the entities of what it
    retires and adopts (known or not), and the kinds of what it adopts."""

    memory_id: str
    subject_key: str
    retired_keys: tuple[str, ...]
    adopted_keys: tuple[str, ...]
    adopted_kinds: tuple[str, ...]
    rule: str


@dataclass(frozen=True)
class EntityRow:
    """An entity to merge: its key, canonical name, the type the evidence decided, the
    surface forms seen (aliases) and their normalised forms, and this batch's type votes in
    VOTE_TYPES order (the store adds them to the stored ones)."""

    key: str
    name: str
    type: str
    type_confidence: float
    aliases: tuple[str, ...]
    alias_keys: tuple[str, ...]
    first_seen: datetime | None
    last_seen: datetime | None
    type_votes: tuple[float, ...] = ()
    label_votes: tuple[float, ...] = ()


@dataclass(frozen=True)
class MentionRow:
    memory_id: str
    key: str
    surface: str
    start: int
    end: int
    extractor: str
    confidence: float
    role: str  # "subject" (the speaker of a first-person fact), "mention" or "relation"
    # How the surface found its entity (EntityDirectory.resolve): a merge under another name
    # ("short_form", "long_form") stays explainable and can be undone edge by edge.
    link: str = "name"


@dataclass(frozen=True)
class RelationRow:
    memory_id: str
    type: RelationType
    source_key: str
    target_key: str
    confidence: float
    extractor: str
    inferred: bool = False  # implied by other relations, stated by no memory (family.py)


@dataclass(frozen=True)
class LinkedBatch:
    """What a batch writes: the entities (every speaker among them), mentions, relations."""

    entities: list[EntityRow]
    mentions: list[MentionRow]
    relations: list[RelationRow]
    speakers: frozenset[str] = frozenset()  # keys of the speakers' entities
    vote_types: tuple[str, ...] = VOTE_TYPES  # the order of each row's type_votes
    changes: list[ChangeRow] = field(default_factory=list)

    def of(self, memory_ids: set[str]) -> LinkedBatch:
        """The rows of these memories only (those a write plan creates), and the speakers."""
        mentions = [m for m in self.mentions if m.memory_id in memory_ids]
        relations = [r for r in self.relations if r.memory_id in memory_ids]
        keys = {m.key for m in mentions} | {
            k for r in relations for k in (r.source_key, r.target_key)
        }
        entities = [e for e in self.entities if e.key in keys | self.speakers]
        changes = [c for c in self.changes if c.memory_id in memory_ids]
        return LinkedBatch(entities, mentions, relations, self.speakers, self.vote_types, changes)
