"""An export's reads and an import's writes (docs/export.md): a scope a page at a time, in key
order, as typed records; and a batch of records restored in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel

from service.core.domain import Scope
from service.core.export_records import (
    LAYOUT,
    DataRecord,
    EntityRecord,
    ExportCounts,
    MemoryEventRecord,
    MemoryRecord,
    MentionRecord,
    MessageRecord,
    ReadEventRecord,
    RelationRecord,
    SupersessionRecord,
)
from service.nlp.entities.mentions import VOTE_TYPES
from service.store.database import Database, ParamRow, Record
from service.store.index_shards import IndexShards

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


@dataclass(frozen=True)
class ExportPage(Generic[R_co]):
    """A page of records, and the key to read the next page after (None: this was the last)."""

    records: Sequence[R_co]
    cursor: str | None


@dataclass
class RestoreBatch:
    """Records written in one transaction, by kind; each kind after the ones it refers to."""

    messages: list[MessageRecord] = field(default_factory=list)
    memories: list[MemoryRecord] = field(default_factory=list)
    entities: list[EntityRecord] = field(default_factory=list)
    mentions: list[MentionRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
    supersessions: list[SupersessionRecord] = field(default_factory=list)
    memory_events: list[MemoryEventRecord] = field(default_factory=list)
    read_events: list[ReadEventRecord] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(getattr(self, name)) for name in ExportCounts.model_fields)

    def add(self, record: DataRecord) -> None:
        """The record, to the list of its kind (named as in ExportCounts)."""
        _, kind = LAYOUT[record.record]
        getattr(self, str(kind)).append(record)


class ExportStore:
    """The export's and the import's statements (cypher/list_export_*, cypher/restore_*)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def counts(self, scope: Scope) -> ExportCounts:
        [row] = await self.db.read("count_export_records", scope.params())
        return ExportCounts.model_validate(row)

    async def messages(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[MessageRecord]:
        return await self._nodes(
            "list_export_messages", MessageRecord.model_validate, scope, after, limit
        )

    async def memories(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[MemoryRecord]:
        return await self._nodes(
            "list_export_memories", MemoryRecord.model_validate, scope, after, limit
        )

    async def entities(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[EntityRecord]:
        return await self._nodes("list_export_entities", entity_record, scope, after, limit, "key")

    async def memory_events(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[MemoryEventRecord]:
        parse = MemoryEventRecord.model_validate
        return await self._nodes("list_export_memory_events", parse, scope, after, limit)

    async def read_events(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[ReadEventRecord]:
        parse = ReadEventRecord.model_validate
        return await self._nodes("list_export_read_events", parse, scope, after, limit)

    async def memory_edges(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[MentionRecord | SupersessionRecord]:
        """MENTIONS and SUPERSEDES leaving a page of the scope's memories."""
        rows = await self._page("list_export_memory_edges", scope, after, limit)
        records: list[MentionRecord | SupersessionRecord] = []
        for row in rows:
            records += [MentionRecord.model_validate(_set(m)) for m in row["mentions"]]
            records += [SupersessionRecord.model_validate(_set(s)) for s in row["supersessions"]]
        return ExportPage(records, _cursor(rows, limit))

    async def relations(
        self, scope: Scope, after: str | None, limit: int
    ) -> ExportPage[RelationRecord]:
        """The typed relations leaving a page of the scope's entities."""
        rows = await self._page("list_export_relations", scope, after, limit)
        records = [RelationRecord.model_validate(_set(r)) for row in rows for r in row["relations"]]
        return ExportPage(records, _cursor(rows, limit))

    async def restore(self, batch: RestoreBatch, shards: IndexShards) -> ExportCounts:
        """Write one batch in one transaction; how many of each kind were new to the store.
        ``shards``: the index partitions a new memory is labelled for (index_shards.py)."""
        steps = restore_steps(batch, shards)
        results = await self.db.write_many([(s.statement, {"rows": s.rows}) for s in steps])
        restored = {
            step.kind: int(rows[0]["restored"]) for step, rows in zip(steps, results, strict=True)
        }
        return ExportCounts.model_validate(restored)

    async def _nodes(
        self,
        name: str,
        parse: Callable[[Any], R],
        scope: Scope,
        after: str | None,
        limit: int,
        key: str = "id",
    ) -> ExportPage[R]:
        """A page of nodes, each row's ``record`` parsed; the cursor is the last one's ``key``."""
        rows = await self._page(name, scope, after, limit)
        records = [parse(_set(row["record"])) for row in rows]
        cursor = str(rows[-1]["record"][key]) if len(rows) == limit else None
        return ExportPage(records, cursor)

    async def _page(self, name: str, scope: Scope, after: str | None, limit: int) -> list[Record]:
        params = {**scope.params(), "after": after, "limit": limit}
        return await self.db.read(name, params, plain=True)


def _cursor(rows: list[Record], limit: int) -> str | None:
    return str(rows[-1]["cursor"]) if len(rows) == limit else None


def _set(row: Mapping[str, Any]) -> ParamRow:
    """A projection without its null properties (the records leave unset fields out)."""
    return {k: v for k, v in row.items() if v is not None}


def entity_record(row: Mapping[str, Any]) -> EntityRecord:
    """An Entity node as a record: its vote lists as maps by type name."""
    votes = {name: _by_type(row.get(name)) for name in ("type_votes", "label_votes")}
    return EntityRecord.model_validate({**row, **votes})


def _by_type(votes: list[float] | None) -> dict[str, float] | None:
    # Not strict: votes stored before a type was added are shorter, the rest weigh nothing.
    return None if votes is None else dict(zip(VOTE_TYPES, votes, strict=False))


def vote_list(votes: dict[str, float] | None) -> list[float] | None:
    """A record's votes in the order the store keeps them (cypher/merge_entities.cypher)."""
    return None if votes is None else [float(votes.get(name, 0.0)) for name in VOTE_TYPES]


class RestoreStep(NamedTuple):
    """One statement of a restored batch: its name, the kind it counts, its rows."""

    statement: str
    kind: str
    rows: list[ParamRow]


def restore_steps(batch: RestoreBatch, shards: IndexShards) -> list[RestoreStep]:
    """The statements (cypher/restore_<kind>.cypher) that write a batch, in the file's order;
    the kinds the batch does not hold are left out."""
    rows = {
        "messages": [_node(r) for r in batch.messages],
        "memories": [_memory(r, shards) for r in batch.memories],
        "entities": [_entity(r) for r in batch.entities],
        "mentions": [_mention(r) for r in batch.mentions],
        "relations": [_relation(r) for r in batch.relations],
        "supersessions": [_supersession(r) for r in batch.supersessions],
        "memory_events": [_node(r) for r in batch.memory_events],
        "read_events": [_node(r) for r in batch.read_events],
    }
    return [RestoreStep(f"restore_{kind}", kind, found) for kind, found in rows.items() if found]


def _props(record: BaseModel, *leave_out: str) -> ParamRow:
    """A record's fields as node or edge properties (unset ones are not written)."""
    return record.model_dump(exclude={"record", *leave_out}, exclude_none=True)


def _node(record: MessageRecord | MemoryEventRecord | ReadEventRecord) -> ParamRow:
    return {"id": record.id, "props": _props(record)}


def _memory(record: MemoryRecord, shards: IndexShards) -> ParamRow:
    return {
        "id": record.id,
        "props": _props(record, "embedding", "content_embedding"),
        "embedding": record.embedding,
        "content_embedding": record.content_embedding,
        "shard": shards.label(record.user_id),
    }


def _entity(record: EntityRecord) -> ParamRow:
    props = _props(record, "type_votes", "label_votes")
    for name in ("type_votes", "label_votes"):
        if (votes := vote_list(getattr(record, name))) is not None:
            props[name] = votes
    return {"key": record.key, "props": props}


def _mention(record: MentionRecord) -> ParamRow:
    return {
        "memory_id": record.memory_id,
        "entity_key": record.entity_key,
        "start": record.start,
        "end": record.end,
        "props": _props(record, "memory_id", "entity_key"),
    }


def _relation(record: RelationRecord) -> ParamRow:
    """Its endpoints and type apart; ``props`` are the edge's properties, all of them (what
    cypher/restore_relations.cypher compares a stored edge with)."""
    return {
        "type": record.type,
        "source_key": record.source_key,
        "target_key": record.target_key,
        "memory_id": record.memory_id,
        "props": _props(record, "type", "source_key", "target_key"),
    }


def _supersession(record: SupersessionRecord) -> ParamRow:
    return {
        "new_id": record.new_id,
        "old_id": record.old_id,
        "props": _props(record, "new_id", "old_id"),
    }
