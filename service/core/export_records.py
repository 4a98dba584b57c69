"""The export format (docs/export.md): one scope as JSON Lines, one typed record per line.

The first line is the header (format name and version), the last the end record with the
counts; between them the scope's messages, memories, entities, the edges between them and its
history, in that order. A record's fields are the properties of its node or edge in Neo4j
(docs/graph.md), so the file reads like the graph. Vectors are base64 of little-endian float32:
exactly what Neo4j stores, in a quarter of the bytes of a list of decimals.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import date, datetime
from enum import IntEnum
from typing import Annotated, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
)

from service.core.domain import Role, Scope

FORMAT: Final = "engram-export"
VERSION = 1
MEDIA_TYPE = "application/x-ndjson"
EXPORT_ROUTE: Final = "/export"  # the API's download of a scope (service/api/export.py)


def _encodable(value: str) -> str:
    """JSON's \\ud800 escapes can carry a lone surrogate, which Neo4j cannot store."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("text holds a lone surrogate") from e
    return value


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("a time needs its offset (Z or +hh:mm)")
    return value


_ZONED = re.compile(r"^(?P<time>[^\[]+)\[(?P<zone>[^\]]+)\]$")
_DATETIME = TypeAdapter(datetime)


def parse_time(value: object) -> object:
    """ISO 8601 text; a time Neo4j keeps in a named zone comes as `…Z[UTC]` (RFC 9557), and
    goes back in that zone, so the store holds it as it was."""
    if not isinstance(value, str) or (match := _ZONED.match(value)) is None:
        return value
    try:
        zone = ZoneInfo(match["zone"])
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ValueError(f"unknown time zone {match['zone']!r}") from e
    return _DATETIME.validate_python(match["time"]).astimezone(zone)


def format_time(value: datetime) -> str:
    """ISO 8601, with the zone's name after it when the time is in a named zone."""
    text = value.isoformat().replace("+00:00", "Z")
    zone = getattr(value.tzinfo, "key", None) or getattr(value.tzinfo, "zone", None)
    return f"{text}[{zone}]" if isinstance(zone, str) else text


def decode_vector(value: object) -> object:
    """base64 of little-endian float32 -> floats; a list (read from the store) stays as it is."""
    if not isinstance(value, str):
        return value
    try:
        raw = base64.b64decode(value, validate=True)
    except binascii.Error as e:
        raise ValueError("a vector is base64 of little-endian float32") from e
    if not raw or len(raw) % 4:
        raise ValueError("a vector is a whole number of float32 values (4 bytes each)")
    floats = np.frombuffer(raw, dtype="<f4")
    if not np.isfinite(floats).all():
        raise ValueError("a vector holds NaN or infinity")
    return floats.astype(float).tolist()


def encode_vector(value: list[float]) -> str:
    return base64.b64encode(np.asarray(value, dtype="<f4").tobytes()).decode("ascii")


Text = Annotated[str, AfterValidator(_encodable)]
Id = Annotated[Text, Field(min_length=1)]
Time = Annotated[
    datetime,
    BeforeValidator(parse_time),
    AfterValidator(_aware),
    PlainSerializer(format_time, return_type=str, when_used="json"),
]
Vector = Annotated[
    list[float],
    BeforeValidator(decode_vector),
    Field(min_length=1),
    PlainSerializer(encode_vector, return_type=str, when_used="json"),
]


class _Record(BaseModel):
    """Every record: unknown fields are refused, so a typo or a newer field is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: str  # each kind's own name: the first field of every line


class _Scoped(_Record):
    """A node that carries its scope's ids (messages, memories, entities, events)."""

    user_id: Id | None = None
    agent_id: Id | None = None
    run_id: Id | None = None

    def in_scope(self, scope: Scope) -> bool:
        """Whether the node belongs to ``scope`` (its set ids match; unset ones match any)."""
        return all(
            asked is None or asked == mine
            for asked, mine in (
                (scope.user_id, self.user_id),
                (scope.agent_id, self.agent_id),
                (scope.run_id, self.run_id),
            )
        )


class ExportHeader(_Record):
    """Line 1: what the file is, whose, and which embedding model made its vectors."""

    record: Literal["header"] = "header"
    format: Literal["engram-export"] = FORMAT
    version: int = Field(ge=1)
    scope: Scope
    exported_at: Time
    engram_version: Text
    embedding_model: Text
    embedding_dimensions: int = Field(gt=0)


class MessageRecord(_Scoped):
    record: Literal["message"] = "message"
    id: Id
    text: Text
    role: Role | None = None
    speaker: Text | None = None
    said_at: Time | None = None
    session_id: Text | None = None
    external_id: Text | None = None
    created_at: Time | None = None


class MemoryRecord(_Scoped):
    """A memory with both clocks (said_at; valid_from/valid_to, happened_start/happened_end),
    its record times and invalidation, its slot, provenance and vectors."""

    record: Literal["memory"] = "memory"
    id: Id
    text: Text
    source_text: Text | None = None
    hash: Text | None = None
    speaker: Text | None = None
    lang: Text | None = None
    confidence: float | None = None
    said_at: Time | None = None
    created_at: Time | None = None
    updated_at: Time | None = None
    valid_from: Time | None = None
    valid_to: Time | None = None
    happened_start: Time | None = None
    happened_end: Time | None = None
    time_granularity: Text | None = None
    time_expressions: list[Text] | None = None
    invalidated_at: Time | None = None
    subject: Text | None = None
    slot: Text | None = None
    slot_value: Text | None = None
    context_texts: list[Text] | None = None
    context_text: Text | None = None
    source_ids: list[Id] | None = None
    access_count: int | None = Field(default=None, ge=0)
    last_accessed_at: Time | None = None
    decayed_at: Time | None = None
    linker_version: int | None = None
    embedding_model: Text | None = None
    embedding: Vector | None = None
    content_embedding: Vector | None = None


class EntityRecord(_Scoped):
    """An entity with its aliases and its type votes, by type name (docs/graph.md)."""

    record: Literal["entity"] = "entity"
    key: Id
    name: Text
    type: Text | None = None
    type_confidence: float | None = None
    type_votes: dict[str, float] | None = None
    label_votes: dict[str, float] | None = None
    aliases: list[Text] | None = None
    alias_keys: list[Text] | None = None
    first_seen: Time | None = None
    last_seen: Time | None = None


class MentionRecord(_Record):
    """(:Memory)-[:MENTIONS]->(:Entity): the span of the memory's source text that names it."""

    record: Literal["mention"] = "mention"
    memory_id: Id
    entity_key: Id
    start: int
    end: int
    extractor: Text | None = None
    confidence: float | None = None
    role: Text | None = None
    surface: Text | None = None
    link: Text | None = None


class RelationRecord(_Record):
    """A typed relation between two entities, one per supporting memory: stated (WORKS_AT …),
    a thing done on a ``day`` (DOES), or an inferred LIKES (``inferred``, with the confidence
    it had when inferred, the days of evidence and the last one). Two edges may share their
    memory (one retired, one current), so a relation is identified by all its fields."""

    record: Literal["relation"] = "relation"
    type: Annotated[Text, Field(pattern=r"^[A-Z][A-Z0-9_]*$")]
    source_key: Id
    target_key: Id
    memory_id: Id
    day: date | None = None
    confidence: float | None = None
    extractor: Text | None = None
    valid_from: Time | None = None
    valid_to: Time | None = None
    since: Time | None = None
    invalidated_at: Time | None = None
    inferred: bool | None = None
    base_confidence: float | None = None
    evidence_days: int | None = None
    last_evidence: date | None = None


class SupersessionRecord(_Record):
    """(:Memory {new_id})-[:SUPERSEDES]->(:Memory {old_id})."""

    record: Literal["supersession"] = "supersession"
    new_id: Id
    old_id: Id
    reason: Text | None = None
    at: Time | None = None


class MemoryEventRecord(_Scoped):
    """One change to a memory (ADD, UPDATE, SUPERSEDE, DELETE, FORGET, DECAY); it outlives the
    memory, so deleted memories are in the file through their events."""

    record: Literal["memory_event"] = "memory_event"
    id: Id
    op: Text
    memory_id: Id
    old_text: Text | None = None
    new_text: Text | None = None
    actor: Text | None = None
    at: Time
    redacted_at: Time | None = None
    old_confidence: float | None = None
    new_confidence: float | None = None


class ReadEventRecord(_Scoped):
    """One audited read of the scope (Settings.audit_reads)."""

    record: Literal["read_event"] = "read_event"
    id: Id
    operation: Text
    actor: Text | None = None
    query_hash: Text | None = None
    result_count: int | None = None
    at: Time


class ExportCounts(BaseModel):
    """How many records of each kind a scope or a file holds."""

    messages: int = 0
    memories: int = 0
    entities: int = 0
    mentions: int = 0
    relations: int = 0
    supersessions: int = 0
    memory_events: int = 0
    read_events: int = 0

    def count(self, record: str) -> None:
        """One more record of this kind (header and end records are not counted)."""
        _, field = LAYOUT[record]
        if field is not None:
            setattr(self, field, getattr(self, field) + 1)

    def __add__(self, other: ExportCounts) -> ExportCounts:
        mine, theirs = self.model_dump(), other.model_dump()
        return ExportCounts.model_validate({k: mine[k] + theirs[k] for k in mine})

    def __sub__(self, other: ExportCounts) -> ExportCounts:
        mine, theirs = self.model_dump(), other.model_dump()
        return ExportCounts.model_validate({k: mine[k] - theirs[k] for k in mine})

    @property
    def total(self) -> int:
        return sum(self.model_dump().values())


class EndRecord(_Record):
    """The last line: the counts of the records above it. A file without it was cut short."""

    record: Literal["end"] = "end"
    counts: ExportCounts


class Part(IntEnum):
    """Where a record may stand in the file: never before a record of a lower part, so each is
    written after what it refers to."""

    HEADER = 0
    MESSAGES = 1
    MEMORIES = 2
    ENTITIES = 3
    EDGES = 4
    HISTORY = 5
    END = 6


DataRecord = (
    MessageRecord
    | MemoryRecord
    | EntityRecord
    | MentionRecord
    | RelationRecord
    | SupersessionRecord
    | MemoryEventRecord
    | ReadEventRecord
)
AnyRecord = Annotated[DataRecord | ExportHeader | EndRecord, Field(discriminator="record")]
RECORD = TypeAdapter[DataRecord | ExportHeader | EndRecord](AnyRecord)

# record name -> (its part of the file, its field in ExportCounts)
LAYOUT: dict[str, tuple[Part, str | None]] = {
    "header": (Part.HEADER, None),
    "message": (Part.MESSAGES, "messages"),
    "memory": (Part.MEMORIES, "memories"),
    "entity": (Part.ENTITIES, "entities"),
    "mention": (Part.EDGES, "mentions"),
    "relation": (Part.EDGES, "relations"),
    "supersession": (Part.EDGES, "supersessions"),
    "memory_event": (Part.HISTORY, "memory_events"),
    "read_event": (Part.HISTORY, "read_events"),
    "end": (Part.END, None),
}


def to_line(record: DataRecord | ExportHeader | EndRecord) -> str:
    """One line of the file (unset fields left out), with its newline."""
    return record.model_dump_json(exclude_none=True) + "\n"
