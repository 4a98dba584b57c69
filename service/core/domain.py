"""Typed models shared by every layer: what comes in, what is stored, what goes out."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, TypedDict

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

MAX_TEXT_CHARS = 20_000
MAX_ID_CHARS = 200
MAX_BATCH = 1_000


def clean_text(value: str) -> str:
    """Normalise Unicode (NFC) and refuse control characters other than tab and newlines."""
    surrogates = [c for c in value if unicodedata.category(c) == "Cs"]
    if surrogates:  # a lone surrogate is not text (JSON's "\ud800" escapes can carry one)
        raise ValueError(f"text contains a lone surrogate U+{ord(surrogates[0]):04X}")
    value = unicodedata.normalize("NFC", value)
    bad = [c for c in value if unicodedata.category(c) == "Cc" and c not in "\t\n\r"]
    if bad:
        raise ValueError(f"text contains control character U+{ord(bad[0]):04X}")
    return value


def clean_before_limits(value: object) -> object:
    """clean_text as a "before" validator: NFC runs before the field's length limits are checked
    (NFC can lengthen text: U+0958 becomes two code points), and a non-string is left for the
    field's own type check to refuse."""
    return clean_text(value) if isinstance(value, str) else value


def instant_or_error(value: datetime | None) -> datetime | None:
    """check_instant for callers outside pydantic: a bad instant is a ValidationError."""
    from service.core.errors import ValidationError

    try:
        return check_instant(value)
    except ValueError as e:
        raise ValidationError(str(e)) from e


def check_instant(value: datetime | None) -> datetime | None:
    """An aware datetime whose UTC instant lies inside the calendar (years 1..9999); naive
    ones are taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)
    except OverflowError as e:
        raise ValueError("the instant lies outside the years 1..9999 in UTC") from e
    return value


Instant = Annotated[datetime | None, AfterValidator(check_instant)]


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class ScopeParams(TypedDict):
    """A scope as query parameters (unset fields are null and match anything)."""

    user_id: str | None
    agent_id: str | None
    run_id: str | None


class Scope(BaseModel):
    """Whose memory this is. At least one field is set; every query is filtered by all set ones."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    run_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)

    @field_validator("user_id", "agent_id", "run_id", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        return clean_before_limits(value)

    @model_validator(mode="after")
    def _at_least_one(self) -> Scope:
        if not (self.user_id or self.agent_id or self.run_id):
            raise ValueError("a scope needs at least one of user_id, agent_id, run_id")
        return self

    def params(self) -> ScopeParams:
        """The scope as query parameters (unset fields are null and match anything)."""
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}


class MessageIn(BaseModel):
    """One incoming conversation message, validated before anything is written."""

    model_config = ConfigDict(str_strip_whitespace=True)

    content: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    role: Role = Role.USER
    speaker: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    timestamp: Instant = None
    id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)

    @field_validator("content", "speaker", "id", "session_id", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        return clean_before_limits(value)

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        # Naive timestamps are taken as UTC so that every stored time is comparable.
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


# What add() takes: messages already validated, or as they came in JSON (validated by
# ingest.write_path.parse_messages before anything is written).
Messages = Sequence[MessageIn | Mapping[str, object]]


class StoredMemory(BaseModel):
    """A memory as read back from the store."""

    id: str
    text: str
    source_text: str | None = None
    speaker: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    said_at: datetime | None = None
    created_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    invalidated_at: datetime | None = None
    time_granularity: str | None = None
    confidence: float | None = None
    lang: str | None = None
    source_ids: list[str] = Field(default_factory=list)


class Clock(StrEnum):
    """Which time a filter asks about: when it was said, or when it happened / held."""

    SAID = "said"
    HAPPENED = "happened"


class TimeFilter(BaseModel):
    """A time window on one clock: explicit bounds, or a phrase resolved at reference_time."""

    clock: Clock | None = None
    start: Instant = None
    end: Instant = None
    phrase: str | None = Field(default=None, max_length=200)
    reference_time: Instant = None

    @field_validator("phrase", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        return clean_before_limits(value)


class SearchOptions(BaseModel):
    """Everything a search may ask beyond the query text."""

    limit: int = Field(default=10, ge=1, le=200)
    when: TimeFilter | None = None
    as_of: Instant = None
    min_score: float = Field(default=0.0, ge=0.0)


class Retriever(StrEnum):
    """A ranking that search fuses (and names in each hit's explanation)."""

    VECTOR = "vector"
    FULLTEXT = "fulltext"
    GRAPH = "graph"
    TIME = "time"
    SPEAKER = "speaker"


class RetrieverScore(BaseModel):
    retriever: str
    rank: int
    score: float


class SourceMessage(BaseModel):
    id: str
    external_id: str | None = None
    text: str
    speaker: str | None = None
    said_at: datetime | None = None
    session_id: str | None = None


# The extractor of a relation implied by others rather than said ("inferred:family_circle"):
# it is stored and listed, but a path walks the ties it was inferred from, which say why.
INFERRED_PREFIX = "inferred:"


class EntityRef(BaseModel):
    name: str
    type: str
    extractor: str | None = None


class SearchHit(BaseModel):
    """One search result, explained: fused score, each retriever's rank, entities, sources."""

    memory: StoredMemory
    score: float
    retrievers: list[RetrieverScore] = Field(default_factory=list)
    matched_entities: list[str] = Field(default_factory=list)
    path: list[str] = Field(default_factory=list)
    sources: list[SourceMessage] = Field(default_factory=list)
    entities: list[EntityRef] = Field(default_factory=list)


class AddResult(BaseModel):
    """What an add call wrote: message ids in input order, memory ids by what happened."""

    message_ids: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    below_confidence: int = 0  # extracted facts not stored: under memory_min_confidence
    stage_ms: dict[str, float] = Field(default_factory=dict)
    # Covers this write: a read sent with it sees the write on any cluster member
    # (core/bookmarks.py).
    bookmark: str | None = None
    # A deferred add: the messages are stored as pending work, only message_ids are known yet.
    pending: bool = False


class AddMode(StrEnum):
    """SYNC answers once the memories are written; DEFERRED once the messages are stored as
    pending work, which the service's worker then extracts, embeds and writes
    (ingest/deferred.py)."""

    SYNC = "sync"
    DEFERRED = "deferred"


class PendingWork(BaseModel):
    """Deferred adds not written yet, in a scope or the whole database."""

    batches: int = 0
    messages: int = 0
    # Seconds since the oldest waiting batch was received; None when nothing waits.
    oldest_age_s: float | None = None
    # Batches given up after Settings.pending_max_attempts failures; kept with their error.
    failed: int = 0


def utcnow() -> datetime:
    return datetime.now(UTC)


class ContextBlock(BaseModel):
    """Search hits as a prompt block: the text, its size in tokens, the memories it holds."""

    text: str
    tokens: int
    memory_ids: list[str]
