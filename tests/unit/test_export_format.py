"""The export format without a database: vectors survive exactly, the export statements read
every field of their records, and a file is checked whole (each kind of damage refused with
its line) before an import writes anything."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.core.errors import ValidationError
from service.core.export_records import (
    EntityRecord,
    MemoryEventRecord,
    MemoryRecord,
    MentionRecord,
    MessageRecord,
    ReadEventRecord,
    RelationRecord,
    SupersessionRecord,
    decode_vector,
    encode_vector,
)
from service.export.check import TargetModel, check_export, data_records, is_export
from service.export.restore import batches
from service.store import catalog

TARGET = TargetModel("test-model", 4)
VECTOR = [0.1, -0.25, 1e-7, 3.0]
SCOPE = {"user_id": "ana"}


def test_a_vector_survives_base64_exactly_as_float32() -> None:
    stored = np.asarray([0.1, -1 / 3, 1e-30, 12345.678], dtype="<f4").astype(float).tolist()
    text = encode_vector(stored)
    assert decode_vector(text) == stored
    assert len(text) == 24  # 4 floats: 16 bytes of base64, where decimals take ~80 characters
    for bad, why in (
        ("not base64!", "base64"),
        ("AAAA", "whole number"),
        (encode_vector([float("nan")]), "NaN"),
    ):
        with pytest.raises(ValueError, match=why):
            decode_vector(bad)


def _projected(cypher: str, variable: str) -> list[str]:
    """The keys of the map projection `variable {…}` in a statement."""
    body = cypher[cypher.index(f"{variable} {{") + len(variable) + 2 :]
    body = body[: body.index("}")]
    return [item.strip().lstrip(".").split(":")[0] for item in body.split(",")]


@pytest.mark.parametrize(
    ("statement", "variable", "model"),
    [
        ("list_export_messages", "n", MessageRecord),
        ("list_export_memories", "n", MemoryRecord),
        ("list_export_entities", "n", EntityRecord),
        ("list_export_memory_events", "n", MemoryEventRecord),
        ("list_export_read_events", "n", ReadEventRecord),
        ("list_export_memory_edges", "r", MentionRecord),
        ("list_export_memory_edges", "s", SupersessionRecord),
        ("list_export_relations", "r", RelationRecord),
    ],
)
def test_each_export_statement_reads_every_field_of_its_record(
    statement: str, variable: str, model: type[Any]
) -> None:
    projected = _projected(catalog.query(statement), variable)
    assert sorted(projected) == sorted(set(model.model_fields) - {"record"})


def valid_lines() -> list[dict[str, Any]]:
    """A small, whole export of one scope: every kind of record once (memories twice)."""
    at = "2024-03-01T10:00:00Z"
    vector = encode_vector(VECTOR)
    memory = {
        "record": "memory",
        **SCOPE,
        "text": "Ana lives in Lisbon.",
        "said_at": at,
        "embedding_model": TARGET.name,
        "embedding": vector,
        "source_ids": ["msg-1"],
    }
    return [
        {
            "record": "header",
            "format": "engram-export",
            "version": 1,
            "scope": SCOPE,
            "exported_at": at,
            "engram_version": "0.1.0",
            "embedding_model": TARGET.name,
            "embedding_dimensions": TARGET.dimensions,
        },
        {"record": "message", **SCOPE, "id": "msg-1", "text": "I live in Lisbon.", "said_at": at},
        {**memory, "id": "mem-1"},
        {**memory, "id": "mem-2", "text": "Ana lives in Berlin.", "invalidated_at": None},
        {
            "record": "entity",
            **SCOPE,
            "key": "ana|lisbon",
            "name": "Lisbon",
            "type": "PLACE",
            "type_votes": {"PLACE": 1.5, "PERSON": 0.2},
            "aliases": ["Lisbon"],
        },
        {"record": "entity", **SCOPE, "key": "ana|ana", "name": "Ana", "type": "PERSON"},
        {
            "record": "mention",
            "memory_id": "mem-1",
            "entity_key": "ana|lisbon",
            "start": 10,
            "end": 16,
        },
        {
            "record": "relation",
            "type": "LIVES_IN",
            "source_key": "ana|ana",
            "target_key": "ana|lisbon",
            "memory_id": "mem-1",
            "since": at,
        },
        {"record": "supersession", "new_id": "mem-2", "old_id": "mem-1", "at": at},
        {
            "record": "memory_event",
            **SCOPE,
            "id": "ev-1",
            "op": "DELETE",
            "memory_id": "mem-9",
            "old_text": "gone",
            "at": at,
        },
        {
            "record": "end",
            "counts": {
                "messages": 1,
                "memories": 2,
                "entities": 2,
                "mentions": 1,
                "relations": 1,
                "supersessions": 1,
                "memory_events": 1,
                "read_events": 0,
            },
        },
    ]


def write(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def test_a_whole_file_is_read_back_record_for_record(tmp_path: Path) -> None:
    path = write(tmp_path / "ana.jsonl", valid_lines())  # type: ignore[arg-type]
    checked = check_export(path, TARGET)
    assert checked.counts.memories == 2 and checked.counts.relations == 1
    assert checked.reembed == 0 and checked.header.scope.user_id == "ana"
    records = list(data_records(path))
    assert [r.record for r in records] == [line["record"] for line in valid_lines()[1:-1]]
    memory = records[1]
    assert isinstance(memory, MemoryRecord) and memory.embedding is not None
    assert np.allclose(memory.embedding, VECTOR) and memory.said_at is not None
    assert memory.said_at.isoformat() == "2024-03-01T10:00:00+00:00"
    assert is_export(path)
    assert not is_export(write(tmp_path / "chat.jsonl", [{"content": "hi", "speaker": "Ana"}]))


def test_another_model_or_no_vector_is_embedded_again(tmp_path: Path) -> None:
    lines = valid_lines()
    lines[2] = {
        **lines[2],
        "embedding_model": "another-model",
        "embedding": encode_vector([1.0] * 8),
    }
    del lines[3]["embedding"]
    lines[-1]["counts"]["memories"] = 2
    checked = check_export(write(tmp_path / "ana.jsonl", lines), TARGET)  # type: ignore[arg-type]
    assert checked.reembed == 2


def _edit(index: int, **changes: Any) -> Any:
    def edit(lines: list[Any]) -> None:
        lines[index] = {**lines[index], **changes}

    return edit


DAMAGE: list[tuple[str, Any, str]] = [
    ("not json", lambda ls: ls.__setitem__(3, "{not json"), r"line 4: .*JSON"),
    ("no header", lambda ls: ls.pop(0), r"line 1: not an Engram export"),
    ("newer version", _edit(0, version=2), r"newer Engram \(format version 2\).*upgrade"),
    ("cut short", lambda ls: ls.pop(), r"ends without its end record: it was cut short"),
    ("miscounted", lambda ls: ls[-1]["counts"].update(mentions=5), r"end record counts"),
    ("unknown field", _edit(2, mood="happy"), r"line 3: memory.mood: Extra inputs"),
    (
        "unknown record",
        _edit(2, record="diary"),
        r"line 3: .*does not match any of the expected tags",
    ),
    ("naive time", _edit(1, said_at="2024-03-01T10:00:00"), r"line 2: message.said_at"),
    ("another scope", _edit(2, user_id="bob"), r"line 3: memory: it belongs to another scope"),
    ("duplicate", lambda ls: ls.insert(3, ls[2]), r"line 4: memory: 'mem-1' appears twice"),
    (
        "out of order",
        lambda ls: ls.insert(7, ls[1]),
        r"line 8: message: out of order: a message after the",
    ),
    ("dangling edge", _edit(6, entity_key="ana|paris"), r"refers to entity 'ana\|paris'"),
    ("relation type", _edit(7, type="HATES"), r"unknown relation type 'HATES'"),
    ("entity type", _edit(4, type_votes={"ALIEN": 1.0}), r"unknown entity types \['ALIEN'\]"),
    (
        "vector size",
        _edit(2, embedding=encode_vector([1.0] * 3)),
        r"has 3 values, but test-model gives 4",
    ),
    ("second header", lambda ls: ls.insert(1, ls[0]), r"line 2: header: a second header"),
    ("after the end", lambda ls: ls.append(ls[1]), r"a record after the end record"),
]


@pytest.mark.parametrize(
    ("damage", "why"), [(d, w) for _, d, w in DAMAGE], ids=[n for n, _, _ in DAMAGE]
)
def test_a_damaged_file_is_refused_with_its_line(tmp_path: Path, damage: Any, why: str) -> None:
    lines: list[Any] = valid_lines()
    damage(lines)
    with pytest.raises(ValidationError, match=why):
        check_export(write(tmp_path / "ana.jsonl", lines), TARGET)


def test_batches_keep_the_files_order_and_size(tmp_path: Path) -> None:
    path = write(tmp_path / "ana.jsonl", valid_lines())  # type: ignore[arg-type]
    found = list(batches(data_records(path), 4))
    assert [len(b) for b in found] == [4, 4, 1]
    assert [m.id for m in found[0].memories] == ["mem-1", "mem-2"]
    assert [e.key for e in found[1].entities] == ["ana|ana"] and len(found[1].relations) == 1
    assert re.fullmatch(r"ev-1", found[2].memory_events[0].id)
