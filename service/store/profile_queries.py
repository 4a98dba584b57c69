"""The reads behind profiles and changes: stated facts (typed relations and slot memories) as rows.

Both read the same row shape, FactRow, so one piece of pure logic groups a profile
(service/profile/facts.py) and another pairs changes (service/profile/changes.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from service.core.domain import Scope, StoredMemory
from service.store.database import Database, Record
from service.store.graph_queries import EntityNode, visibility

# The widest window the store is asked for when a side is open (Neo4j's own range is wider).
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC)
_ZONE_NAME = re.compile(r"\[[^\]]*\]$")  # "…Z[UTC]", as toString() writes a named zone


class FactRow(BaseModel):
    """One statement of a fact: a typed relation edge (``relation``) or a slot memory (``slot``).

    ``subject`` is the name of whom it is about and ``value`` what it says (the relation's other
    end, the slot's value). ``since`` is when it was said, ``ended`` when it was retired;
    ``successors`` are the memories that superseded its memory; ``restated`` says the same
    fact already stood when it was said.
    """

    model_config = ConfigDict(frozen=True)

    relation: str | None = None
    slot: str | None = None
    subject: str
    value: str
    other: EntityNode | None = None
    since: datetime | None = None
    ended: datetime | None = None
    inferred: bool = False
    confidence: float | None = None
    memory_ids: list[str] = Field(default_factory=list)
    successors: list[str] = Field(default_factory=list)
    restated: bool = False
    memories: list[StoredMemory] = Field(default_factory=list)

    @field_validator("since", "ended", mode="before")
    @classmethod
    def _offset_only(cls, value: object) -> object:
        # toString() of a time Neo4j keeps in a named zone ends in "[UTC]"; the offset before
        # it says the instant, and pydantic reads no zone names.
        return _ZONE_NAME.sub("", value) if isinstance(value, str) else value


@dataclass(frozen=True)
class ProfileAsk:
    """Whose profile: an entity (key, and the names its slot memories call it), at an instant."""

    key: str
    subjects: list[str]
    relation_types: list[str]
    mutual_types: list[str]
    as_of: datetime | None = None


@dataclass(frozen=True)
class ChangesAsk:
    """Which statements: relations of some types and slot memories said or retired in
    [start, end), around one entity (its key, and the names its slot memories call it) or all."""

    relation_types: list[str]
    start: datetime | None = None
    end: datetime | None = None
    entity_key: str | None = None
    subjects: list[str] | None = None


class ProfileStore:
    """Runs the profile and changes queries of the catalogue and returns FactRows."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def current_facts(self, scope: Scope, ask: ProfileAsk, limit: int) -> list[FactRow]:
        """The relations and slot memories of the entity standing now (or at ``ask.as_of``)."""
        params = {
            **visibility(scope, ask.as_of),
            "key": ask.key,
            "subjects": ask.subjects,
            "types": ask.relation_types,
            "mutual": ask.mutual_types,
            "limit": limit,
        }
        relations = await self.db.read("list_profile_relations", params)
        slots = await self.db.read("list_profile_slots", params)
        return [to_row(r) for r in relations + slots]

    async def changed_facts(self, scope: Scope, ask: ChangesAsk, limit: int) -> list[FactRow]:
        """The relations and slot memories said or retired in the window."""
        params = {
            **scope.params(),
            "as_of": None,
            "from": ask.start or EARLIEST,
            "to": ask.end or LATEST,
            "types": ask.relation_types,
            "entity_key": ask.entity_key,
            "subjects": ask.subjects,
            "limit": limit,
        }
        relations = await self.db.read("list_changed_relations", params)
        slots = await self.db.read("list_changed_slots", params)
        return [to_row(r) for r in relations + slots]


def to_row(record: Record) -> FactRow:
    return FactRow.model_validate({k: v for k, v in record.items() if v is not None})
