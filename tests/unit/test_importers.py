import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.core.domain import Role
from service.core.errors import ValidationError
from service.ingest.importers import (
    locomo_questions,
    read_conversations,
    read_jsonl,
    read_locomo,
)

LOCOMO_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo-dev.json"


def _sample() -> dict[str, Any]:
    # LoCoMo-shaped, invented text: session_10 before session_2 in the file, and a
    # _date_time key with no session (both happen in the real data).
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_10_date_time": "9:05 am on 2 June, 2023",
            "session_10": [{"speaker": "Ben", "dia_id": "D10:1", "text": "Back from Oslo."}],
            "session_2_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [
                {"speaker": "Ana", "dia_id": "D2:1", "text": "I took up pottery."},
                {
                    "speaker": "Ben",
                    "dia_id": "D2:2",
                    "text": "Nice!",
                    "blip_caption": "a photo of a bowl",
                    "img_url": ["http://example.invalid/bowl.jpg"],
                },
            ],
            "session_11_date_time": "10:00 am on 3 June, 2023",
        },
        "qa": [
            {
                "question": "What does Ana make?",
                "answer": "pottery",
                "evidence": ["D2:1"],
                "category": 4,
            },
            {"question": "When?", "answer": 2023, "evidence": ["D2:1; D10:1"], "category": 2},
            {"question": "Is Ben kind?", "answer": "Yes", "evidence": [], "category": 3},
            {
                "question": "What did Ben bake?",
                "evidence": ["D2:2"],
                "category": 5,
                "adversarial_answer": "bread",
            },
        ],
    }


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([_sample()]), encoding="utf-8")
    return path


def _write_lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_locomo_turns_become_messages_in_session_order(locomo_file: Path) -> None:
    [conversation] = read_locomo(locomo_file)
    assert conversation.id == "conv-x"
    assert [m.id for m in conversation.messages] == ["D2:1", "D2:2", "D10:1"]
    assert [m.session_id for m in conversation.messages] == ["session_2", "session_2", "session_10"]
    assert [m.speaker for m in conversation.messages] == ["Ana", "Ben", "Ben"]
    assert {m.role for m in conversation.messages} == {Role.USER}


def test_locomo_turns_are_timed_from_the_session_start(locomo_file: Path) -> None:
    [conversation] = read_locomo(locomo_file)
    start = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert [m.timestamp for m in conversation.messages] == [
        start,
        start + timedelta(seconds=1),
        datetime(2023, 6, 2, 9, 5, tzinfo=UTC),
    ]


def test_locomo_photo_caption_is_part_of_the_content(locomo_file: Path) -> None:
    [conversation] = read_locomo(locomo_file)
    assert conversation.messages[1].content == "Nice! [shares image: a photo of a bowl]"
    assert conversation.messages[0].content == "I took up pottery."


def test_locomo_unreadable_session_date_names_the_session(tmp_path: Path) -> None:
    sample = _sample()
    sample["conversation"]["session_2_date_time"] = "sometime in May"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    with pytest.raises(ValidationError, match="conv-x session_2: unreadable session date"):
        read_locomo(path)


def test_locomo_turn_without_text_is_refused(tmp_path: Path) -> None:
    sample = _sample()
    del sample["conversation"]["session_10"][0]["text"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    with pytest.raises(ValidationError, match=r"conv-x session_10: 0\.text"):
        read_locomo(path)


def test_locomo_questions_split_packed_evidence(locomo_file: Path) -> None:
    questions = locomo_questions(locomo_file)["conv-x"]
    assert [q.evidence for q in questions] == [["D2:1"], ["D2:1", "D10:1"], [], ["D2:2"]]
    assert [q.category for q in questions] == [4, 2, 3, 5]
    assert [q.answer for q in questions] == ["pottery", "2023", "Yes", None]


def test_only_answerable_questions_with_evidence_are_scored(locomo_file: Path) -> None:
    questions = locomo_questions(locomo_file)["conv-x"]
    assert [q.scored for q in questions] == [True, True, False, False]


def test_jsonl_groups_messages_by_conversation(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path,
        '{"conversation_id": "a", "content": "hi", "speaker": "Ana", "id": "m1"}',
        "",
        '{"content": "no id given", "role": "assistant", "timestamp": "2024-01-02T03:04:05"}',
        '{"conversation_id": "a", "content": "bye", "session_id": "s2"}',
    )
    conversations = read_jsonl(path)
    assert [c.id for c in conversations] == ["a", "default"]
    assert [m.content for m in conversations[0].messages] == ["hi", "bye"]
    assert conversations[0].messages[1].session_id == "s2"
    [default] = conversations[1].messages
    assert default.role is Role.ASSISTANT
    assert default.timestamp == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("{not json", "not valid JSON"),
        ('["content"]', "expected a JSON object"),
        ('{"speaker": "Ana"}', "content"),
        ('{"content": "x", "role": "robot"}', "role"),
        ('{"content": "x", "conversation_id": 7}', "conversation_id"),
    ],
)
def test_jsonl_bad_line_is_named(tmp_path: Path, bad_line: str, reason: str) -> None:
    path = _write_lines(tmp_path, '{"content": "fine"}', bad_line)
    with pytest.raises(ValidationError, match=f"line 2: .*{reason}"):
        read_jsonl(path)


def test_read_conversations_recognises_locomo(locomo_file: Path) -> None:
    [conversation] = read_conversations(locomo_file)
    assert conversation.id == "conv-x"
    assert len(conversation.messages) == 3


def test_read_conversations_falls_back_to_jsonl(tmp_path: Path) -> None:
    path = _write_lines(tmp_path, '{"content": "only one"}')
    [conversation] = read_conversations(path)
    assert conversation.id == "default"
    assert conversation.messages[0].content == "only one"


@pytest.mark.skipif(not LOCOMO_DEV.is_file(), reason=f"{LOCOMO_DEV} is not there")
def test_locomo_dev_file_reads_whole() -> None:
    conversations = read_conversations(LOCOMO_DEV)
    questions = locomo_questions(LOCOMO_DEV)
    assert [c.id for c in conversations] == ["conv-26", "conv-30"]
    assert sum(q.scored for qs in questions.values() for q in qs) == 231
