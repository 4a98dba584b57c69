"""Typed models shared by every layer: what comes in, what is stored, what goes out."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_TEXT_CHARS = 20_000
MAX_ID_CHARS = 200
MAX_BATCH = 1_000


def clean_text(value: str) -> str:
    """Normalise Unicode (NFC) and refuse control characters other than tab and newlines."""
    value = unicodedata.normalize("NFC", value)
    bad = [c for c in value if unicodedata.category(c) == "Cc" and c not in "\t\n\r"]
    if bad:
        raise ValueError(f"text contains control character U+{ord(bad[0]):04X}")
    return value


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Scope(BaseModel):
    """Whose memory this is. At least one field is set; every query is filtered by all set ones."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    run_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)

    @field_validator("user_id", "agent_id", "run_id")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return None if value is None else clean_text(value)

    @model_validator(mode="after")
    def _at_least_one(self) -> Scope:
        if not (self.user_id or self.agent_id or self.run_id):
            raise ValueError("a scope needs at least one of user_id, agent_id, run_id")
        return self

    def params(self) -> dict[str, str | None]:
        """The scope as query parameters (unset fields are null and match anything)."""
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}


class MessageIn(BaseModel):
    """One incoming conversation message, validated before anything is written."""

    model_config = ConfigDict(str_strip_whitespace=True)

    content: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    role: Role = Role.USER
    speaker: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    timestamp: datetime | None = None
    id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)

    @field_validator("content", "speaker", "id", "session_id")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return None if value is None else clean_text(value)

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        # Naive timestamps are taken as UTC so that every stored time is comparable.
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


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
    source_ids: list[str] = Field(default_factory=list)


class SearchHit(BaseModel):
    """One search result with the score that ranked it."""

    memory: StoredMemory
    score: float


class AddResult(BaseModel):
    """What an add call wrote."""

    message_ids: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)


def utcnow() -> datetime:
    return datetime.now(UTC)
