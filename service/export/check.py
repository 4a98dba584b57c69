"""Read an export file and check all of it before anything is written (docs/export.md).

A file is refused, with the line and the reason, when it is not an export, was written by a
newer Engram, is malformed or cut short, holds a record of another scope than its header's, a
duplicate, an edge to a record it does not hold, a relation type or entity type Engram does not
know, or a vector of the wrong size for its model. Pure: it reads the file and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from service.core.errors import ValidationError
from service.core.export_records import (
    FORMAT,
    LAYOUT,
    RECORD,
    VERSION,
    DataRecord,
    EndRecord,
    EntityRecord,
    ExportCounts,
    ExportHeader,
    MemoryRecord,
    MentionRecord,
    Part,
    RelationRecord,
    SupersessionRecord,
)
from service.nlp.entities.mentions import VOTE_TYPES


@dataclass(frozen=True)
class TargetModel:
    """The embedding model of the store imported into: a memory embedded by another model, or
    without a vector, is embedded again by it."""

    name: str
    dimensions: int

    def reembeds(self, memory: MemoryRecord) -> bool:
        return memory.embedding is None or memory.embedding_model != self.name


@dataclass(frozen=True)
class ExportFile:
    """A checked export: its header, the counts its end record confirmed, and how many of its
    memories the target model embeds again."""

    path: Path
    header: ExportHeader
    counts: ExportCounts
    reembed: int


def is_export(path: Path) -> bool:
    """Whether the file's first line says it is an export (its header names the format)."""
    try:
        with path.open(encoding="utf-8") as f:
            first = next((line for line in f if line.strip()), "")
        head = json.loads(first)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(head, dict) and head.get("format") == FORMAT


def check_export(path: Path, target: TargetModel) -> ExportFile:
    """Read the whole file and check it; ValidationError names the first problem's line."""
    lines = numbered_lines(path)
    header = _header(next(lines, (1, "")))
    check = FileCheck(header, target)
    for number, line in lines:
        check.see(parse_record(number, line), number)
    return check.finished(path)


def data_records(path: Path) -> Iterator[DataRecord]:
    """The records between a checked file's header and end record, in order."""
    lines = numbered_lines(path)
    next(lines)
    for number, line in lines:
        record = parse_record(number, line)
        if not isinstance(record, ExportHeader | EndRecord):
            yield record


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's non-blank lines with their numbers."""
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    yield number, line
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read {path}: {e}") from e


def parse_record(number: int, line: str) -> DataRecord | ExportHeader | EndRecord:
    try:
        return RECORD.validate_json(line)
    except pydantic.ValidationError as e:
        raise ValidationError(f"line {number}: {_first_error(e)}") from e


def _header(first: tuple[int, str]) -> ExportHeader:
    number, line = first
    try:
        head: Any = json.loads(line)
    except json.JSONDecodeError:
        head = None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise ValidationError(f"line {number}: not an Engram export (no {FORMAT!r} header)")
    version = head.get("version")
    if isinstance(version, int) and version > VERSION:
        raise ValidationError(
            f"line {number}: written by a newer Engram (format version {version}); this one "
            f"reads versions up to {VERSION}: upgrade Engram to import it"
        )
    record = parse_record(number, line)
    if not isinstance(record, ExportHeader):
        raise ValidationError(f"line {number}: the first record must be the header")
    return record


@dataclass
class FileCheck:
    """What the lines read so far hold; ``see`` refuses a line that breaks the format."""

    header: ExportHeader
    target: TargetModel
    part: Part = Part.HEADER
    counts: ExportCounts = field(default_factory=ExportCounts)
    keys: dict[str, set[Any]] = field(default_factory=dict)
    reembed: int = 0
    end: EndRecord | None = None

    def see(self, record: DataRecord | ExportHeader | EndRecord, number: int) -> None:
        try:
            if isinstance(record, ExportHeader):
                raise ValueError("a second header")
            self._order(record)
            if isinstance(record, EndRecord):
                self.end = record
                return
            self._scope(record)
            self._known(record)
            self._unique(record)
        except ValueError as e:
            raise ValidationError(f"line {number}: {record.record}: {e}") from e

    def finished(self, path: Path) -> ExportFile:
        if self.end is None:
            raise ValidationError(
                f"{path}: the file ends without its end record: it was cut short (an "
                "interrupted export or download?)"
            )
        if self.end.counts != self.counts:
            raise ValidationError(
                f"{path}: the end record counts {self.end.counts.model_dump()} but the file "
                f"holds {self.counts.model_dump()}"
            )
        return ExportFile(path, self.header, self.counts, self.reembed)

    def _order(self, record: DataRecord | EndRecord) -> None:
        part, _ = LAYOUT[record.record]
        if self.end is not None:
            raise ValueError("a record after the end record")
        if part < self.part:
            raise ValueError(f"out of order: a {record.record} after the {self.part.name.lower()}")
        self.part = part
        self.counts.count(record.record)

    def _scope(self, record: DataRecord) -> None:
        in_scope = getattr(record, "in_scope", None)
        if in_scope is not None and not in_scope(self.header.scope):
            raise ValueError("it belongs to another scope than the header's")

    def _known(self, record: DataRecord) -> None:
        """Edges point at records above them; types and vectors are ones this Engram reads."""
        if isinstance(record, MentionRecord):
            self._has("memory", record.memory_id)
            self._has("entity", record.entity_key)
        elif isinstance(record, RelationRecord):
            _known_relation_type(record.type)
            self._has("entity", record.source_key)
            self._has("entity", record.target_key)
            self._has("memory", record.memory_id)
        elif isinstance(record, SupersessionRecord):
            self._has("memory", record.new_id)
            self._has("memory", record.old_id)
        elif isinstance(record, EntityRecord):
            _known_vote_types(record)
        elif isinstance(record, MemoryRecord):
            self._vectors(record)

    def _vectors(self, memory: MemoryRecord) -> None:
        if self.target.reembeds(memory):
            self.reembed += 1
            return
        for name in ("embedding", "content_embedding"):
            vector = getattr(memory, name)
            if vector is not None and len(vector) != self.target.dimensions:
                raise ValueError(
                    f"{memory.id}: its {name} has {len(vector)} values, but "
                    f"{self.target.name} gives {self.target.dimensions}"
                )

    def _has(self, kind: str, key: str) -> None:
        if key not in self.keys.get(kind, ()):
            raise ValueError(f"it refers to {kind} {key!r}, which the file does not hold above")

    def _unique(self, record: DataRecord) -> None:
        key = identity(record)
        seen = self.keys.setdefault(record.record, set())
        if key in seen:
            raise ValueError(f"{key!r} appears twice")
        seen.add(key)


def identity(record: DataRecord) -> Any:
    """What makes a record one node or edge of the store (what the restore merges on)."""
    if isinstance(record, EntityRecord):
        return record.key
    if isinstance(record, MentionRecord):
        return (record.memory_id, record.entity_key, record.start, record.end)
    if isinstance(record, RelationRecord):
        return tuple(sorted(record.model_dump(exclude_none=True).items()))
    if isinstance(record, SupersessionRecord):
        return (record.new_id, record.old_id)
    return record.id


def _known_relation_type(name: str) -> None:
    from service.nlp.relations.table import RelationType  # the write path's whitelist

    if name not in RelationType.__members__:
        raise ValueError(f"unknown relation type {name!r}")


def _known_vote_types(entity: EntityRecord) -> None:
    for votes in (entity.type_votes, entity.label_votes):
        unknown = sorted(set(votes or ()) - set(VOTE_TYPES))
        if unknown:
            raise ValueError(f"{entity.key!r}: unknown entity types {unknown} in its votes")


def _first_error(error: pydantic.ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])
