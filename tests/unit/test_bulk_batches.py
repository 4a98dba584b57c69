"""How a bulk load's file becomes batches (no database): each line's scope, streamed; batches of
consecutive messages of one scope; a bad line named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.core.domain import MessageIn, Scope
from service.core.errors import ValidationError
from service.ingest.bulk import batched
from service.ingest.importers import scoped_messages

A, B = Scope(user_id="a"), Scope(user_id="b")


def message(text: str) -> MessageIn:
    return MessageIn(content=text)


def test_batches_hold_one_scope_and_at_most_size() -> None:
    pairs = [(A, message(f"a{i}")) for i in range(5)] + [(B, message("b0")), (A, message("a5"))]
    batches = list(batched(pairs, 2))
    assert [(b.scope.user_id, [m.content for m in b.messages]) for b in batches] == [
        ("a", ["a0", "a1"]),
        ("a", ["a2", "a3"]),
        ("a", ["a4"]),
        ("b", ["b0"]),
        ("a", ["a5"]),
    ]
    assert list(batched([], 3)) == []


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    return path


def test_each_line_is_owned_by_its_user_agent_or_conversation(tmp_path: Path) -> None:
    rows: list[object] = [
        {"user_id": "u1", "content": "one"},
        {"user_id": "u1", "agent_id": "bot", "content": "two"},
        {"agent_id": "bot", "content": "three"},
        {"conversation_id": "c9", "content": "four", "speaker": "Ann"},
        {"content": "five"},
    ]
    path = write_lines(tmp_path / "m.jsonl", rows)
    scopes = [(s.user_id, s.agent_id) for s, _ in scoped_messages(path)]
    assert scopes == [("u1", None), ("u1", "bot"), (None, "bot"), ("c9", None), ("default", None)]
    assert {s.user_id for s, _ in scoped_messages(path, "alice")} == {"alice"}
    assert [m.speaker for _, m in scoped_messages(path)][3] == "Ann"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["a list"]', "line 2: expected a JSON object"),
        ('{"content": ""}', "line 2: content"),
        ('{"user_id": "", "content": "x"}', "line 2: user_id"),
        ('{"user_id": "u", "content": "x", "colour": "red"}', None),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, line: str, said: str | None) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text('{"user_id": "u", "content": "fine"}\n' + line + "\n", encoding="utf-8")
    if said is None:  # unknown fields are ignored, as add() ignores them
        assert len(list(scoped_messages(path))) == 2
        return
    with pytest.raises(ValidationError, match=said):
        list(scoped_messages(path))
