"""Conversation files read into validated messages: LoCoMo JSON and JSON Lines. No database.

`engram import --bulk` reads a JSON Lines file twice instead of holding it: once to check every
line and count them, once to load (scoped_messages)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pydantic

from service.core.domain import MessageIn, Role, Scope
from service.core.errors import ValidationError

DEFAULT_CONVERSATION = "default"
LOCOMO_DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
LOCOMO_CATEGORIES = {1, 2, 3, 4, 5}
SCORED_CATEGORIES = {1, 2, 3, 4}  # 5 is adversarial (unanswerable)
_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE_SEPARATORS = re.compile(r"[;,\s]+")


@dataclass(frozen=True)
class Conversation:
    """One conversation's messages, in the order they were said."""

    id: str
    messages: list[MessageIn]


@dataclass(frozen=True)
class Question:
    """A LoCoMo question with the dia_ids of the turns that hold its answer."""

    question: str
    answer: str | None  # None for adversarial questions, which have no answer
    category: int
    evidence: list[str]

    @property
    def scored(self) -> bool:
        """Whether retrieval scores count this question (answerable, with evidence)."""
        return self.category in SCORED_CATEGORIES and bool(self.evidence)


class _LocomoTurn(pydantic.BaseModel):
    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None


class _LocomoQuestion(pydantic.BaseModel):
    question: str
    answer: str | int | float | None = None
    category: int
    evidence: list[str] = pydantic.Field(default_factory=list)


class _LocomoSample(pydantic.BaseModel):
    sample_id: str
    conversation: dict[str, Any]
    qa: list[_LocomoQuestion] = pydantic.Field(default_factory=list)


_Turns = pydantic.TypeAdapter(list[_LocomoTurn])


def read_conversations(path: Path) -> list[Conversation]:
    """Read LoCoMo JSON (a list of objects with "conversation") or else JSON Lines."""
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if _looks_like_locomo(data):
        return [_locomo_conversation(sample) for sample in _locomo_samples(data)]
    return _jsonl_conversations(text)


def read_locomo(path: Path) -> list[Conversation]:
    """One Conversation per LoCoMo sample; message ids are the turns' dia_ids."""
    return [_locomo_conversation(sample) for sample in _locomo_samples(_load_json(path))]


def locomo_questions(path: Path) -> dict[str, list[Question]]:
    """The questions of each LoCoMo sample, by sample_id; packed evidence strings are split."""
    return {
        sample.sample_id: [_question(q) for q in sample.qa if q.category in LOCOMO_CATEGORIES]
        for sample in _locomo_samples(_load_json(path))
    }


def read_jsonl(path: Path) -> list[Conversation]:
    """JSON Lines, one message per line, grouped by "conversation_id" (default "default")."""
    return _jsonl_conversations(_read_text(path))


# -- LoCoMo ---------------------------------------------------------------------------------


def _looks_like_locomo(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(item, dict) and "conversation" in item for item in data)
    )


def _locomo_samples(data: Any) -> list[_LocomoSample]:
    if not _looks_like_locomo(data):
        raise ValidationError(
            "not a LoCoMo file: expected a JSON list of objects with 'conversation'"
        )
    samples = []
    for index, raw in enumerate(data):
        try:
            samples.append(_LocomoSample.model_validate(raw))
        except pydantic.ValidationError as e:
            raise ValidationError(f"LoCoMo sample {index}: {_first_error(e)}") from e
    return samples


def _locomo_conversation(sample: _LocomoSample) -> Conversation:
    sessions = sorted(
        (int(m.group(1)), key) for key in sample.conversation if (m := _SESSION_KEY.fullmatch(key))
    )
    messages: list[MessageIn] = []
    for _, key in sessions:
        where = f"{sample.sample_id} {key}"
        start = _session_start(sample.conversation.get(f"{key}_date_time"), where)
        try:
            turns = _Turns.validate_python(sample.conversation[key])
        except pydantic.ValidationError as e:
            raise ValidationError(f"{where}: {_first_error(e)}") from e
        for k, turn in enumerate(turns):  # turn k at start + k seconds keeps the order
            messages.append(_locomo_message(turn, key, start + timedelta(seconds=k), where))
    return Conversation(id=sample.sample_id, messages=messages)


def _session_start(value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise ValidationError(f"{where}: no session date (the _date_time key)")
    try:
        return datetime.strptime(value.strip(), LOCOMO_DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError as e:
        raise ValidationError(f"{where}: unreadable session date {value!r}") from e


def _locomo_message(turn: _LocomoTurn, session: str, said_at: datetime, where: str) -> MessageIn:
    content = turn.text
    if turn.blip_caption:
        content += f" [shares image: {turn.blip_caption}]"
    try:
        return MessageIn(
            content=content,
            role=Role.USER,
            speaker=turn.speaker,
            timestamp=said_at,
            id=turn.dia_id,
            session_id=session,
        )
    except pydantic.ValidationError as e:
        raise ValidationError(f"{where} turn {turn.dia_id}: {_first_error(e)}") from e


def _question(raw: _LocomoQuestion) -> Question:
    evidence = [
        dia_id for packed in raw.evidence for dia_id in _EVIDENCE_SEPARATORS.split(packed) if dia_id
    ]
    answer = None if raw.answer is None else str(raw.answer)
    return Question(question=raw.question, answer=answer, category=raw.category, evidence=evidence)


# -- JSON Lines -----------------------------------------------------------------------------


def _jsonl_conversations(text: str) -> list[Conversation]:
    grouped: dict[str, list[MessageIn]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            conversation_id, message = _jsonl_message(line, number)
            grouped.setdefault(conversation_id, []).append(message)
    return [Conversation(id=cid, messages=messages) for cid, messages in grouped.items()]


def _jsonl_message(line: str, number: int) -> tuple[str, MessageIn]:
    return _row_message(_jsonl_row(line, number), number)


def _jsonl_row(line: str, number: int) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValidationError(f"line {number}: not valid JSON ({e.msg})") from e
    if not isinstance(row, dict):
        raise ValidationError(f"line {number}: expected a JSON object")
    return row


def _row_message(row: dict[str, Any], number: int) -> tuple[str, MessageIn]:
    conversation_id = row.pop("conversation_id", DEFAULT_CONVERSATION)
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise ValidationError(f"line {number}: conversation_id must be a non-empty string")
    try:
        return conversation_id, MessageIn.model_validate(row)
    except pydantic.ValidationError as e:
        raise ValidationError(f"line {number}: {_first_error(e)}") from e


def scoped_messages(path: Path, user_id: str | None = None) -> Iterator[tuple[Scope, MessageIn]]:
    """Each message of a file with its scope, in file order, without holding a JSON Lines
    file: ``user_id`` when given, else the line's user_id / agent_id, else its conversation.
    A LoCoMo file (one JSON document) is read whole, a scope per conversation."""
    if _starts_json_document(path):
        for conv in read_conversations(path):
            scope = Scope(user_id=user_id or conv.id)
            yield from ((scope, message) for message in conv.messages)
        return
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    yield _scoped_line(line, number, user_id)
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read {path}: {e}") from e


def _starts_json_document(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as f:
            head = f.read(4096).lstrip()
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read {path}: {e}") from e
    return head.startswith("[")


def _scoped_line(line: str, number: int, user_id: str | None) -> tuple[Scope, MessageIn]:
    """One JSON Lines message and its scope; a line may name its own user_id and agent_id."""
    row = _jsonl_row(line, number)
    owner = {key: row.pop(key, None) for key in ("user_id", "agent_id")}
    conversation_id, message = _row_message(row, number)
    if user_id is not None:
        owner = {"user_id": user_id, "agent_id": None}
    elif owner["user_id"] is None and owner["agent_id"] is None:
        owner["user_id"] = conversation_id
    try:
        return Scope.model_validate(owner), message
    except pydantic.ValidationError as e:
        raise ValidationError(f"line {number}: {_first_error(e)}") from e


# -- shared ---------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read {path}: {e}") from e


def _load_json(path: Path) -> Any:
    try:
        return json.loads(_read_text(path))
    except json.JSONDecodeError as e:
        raise ValidationError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from e


def _first_error(error: pydantic.ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])
