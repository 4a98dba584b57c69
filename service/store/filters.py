"""Dashboard filters, in @neo4j/graphql style, built into Cypher text + parameters.

A `MemoryWhere` / `EntityWhere` is a tree: per-field operator objects
(`{"text": {"contains": "boston"}, "said_at": {"lt": ...}}`, fields ANDed) plus `AND` / `OR`
lists and a `NOT`. Empty objects and empty lists add no condition. The builder turns the tree
into a predicate for a catalogue query's `/*where*/` marker (service.store.dashboard_queries).

Safety rests on three rules: field names and operators come only from the whitelists below
(never from input text); every value becomes a parameter ($w0, $w1 …); trees are bounded
(depth, number of conditions, list and string sizes). Sorting and cursors: store/ordering.py.

Null semantics are Cypher's: a comparison with a missing property is null, so neither a
condition nor its NOT matches a memory without that property (as in @neo4j/graphql).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, TypeVar

import pydantic
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from service.core.errors import ValidationError

MAX_DEPTH = 5
MAX_CONDITIONS = 50
MAX_LIST = 100
MAX_VALUE_CHARS = 1_000


def _aware(value: datetime) -> datetime:
    # Naive datetimes are UTC, as on the write path; a naive value would never compare equal.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


Text = Annotated[str, Field(max_length=MAX_VALUE_CHARS)]
Texts = Annotated[list[Text], Field(max_length=MAX_LIST)]
Instant = Annotated[datetime, AfterValidator(_aware)]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True
    )


class TextOps(_Model):
    eq: Text | None = None
    contains: Text | None = None
    starts_with: Text | None = None
    in_: Texts | None = Field(default=None, alias="in")


class SpeakerOps(_Model):
    eq: Text | None = None
    in_: Texts | None = Field(default=None, alias="in")
    contains: Text | None = None


class KeywordOps(_Model):
    eq: Text | None = None
    in_: Texts | None = Field(default=None, alias="in")


class MentionNameOps(_Model):
    eq: Text | None = None
    contains: Text | None = None


class TimeOps(_Model):
    eq: Instant | None = None
    lt: Instant | None = None
    lte: Instant | None = None
    gt: Instant | None = None
    gte: Instant | None = None


class ConfidenceOps(_Model):
    lt: float | None = None
    lte: float | None = None
    gt: float | None = None
    gte: float | None = None


class SeenOps(_Model):
    lt: Instant | None = None
    gt: Instant | None = None


class MemoryWhere(_Model):
    """Which memories: fields ANDed, with AND / OR / NOT over nested filters."""

    and_: list[MemoryWhere] | None = Field(default=None, alias="AND", max_length=MAX_CONDITIONS)
    or_: list[MemoryWhere] | None = Field(default=None, alias="OR", max_length=MAX_CONDITIONS)
    not_: MemoryWhere | None = Field(default=None, alias="NOT")
    text: TextOps | None = None
    speaker: SpeakerOps | None = None
    entity_type: KeywordOps | None = None
    entity_name: MentionNameOps | None = None
    said_at: TimeOps | None = None
    valid_from: TimeOps | None = None
    valid_to: TimeOps | None = None
    happened_start: TimeOps | None = None
    created_at: TimeOps | None = None
    confidence: ConfidenceOps | None = None
    lang: KeywordOps | None = None
    current: bool | None = None


class EntityWhere(_Model):
    """Which entities: fields ANDed, with AND / OR / NOT over nested filters."""

    and_: list[EntityWhere] | None = Field(default=None, alias="AND", max_length=MAX_CONDITIONS)
    or_: list[EntityWhere] | None = Field(default=None, alias="OR", max_length=MAX_CONDITIONS)
    not_: EntityWhere | None = Field(default=None, alias="NOT")
    name: TextOps | None = None
    type: KeywordOps | None = None
    last_seen: SeenOps | None = None


_W = TypeVar("_W", bound=BaseModel)

# --- the whitelists: the only Cypher text a filter can contribute ---------------------------

_COMPARE = {
    "eq": "{x} = {p}",
    "lt": "{x} < {p}",
    "lte": "{x} <= {p}",
    "gt": "{x} > {p}",
    "gte": "{x} >= {p}",
}
_STRING = {
    "eq": "{x} = {p}",
    "in_": "{x} IN {p}",
    "contains": "toLower({x}) CONTAINS toLower({p})",
    "starts_with": "{x} STARTS WITH {p}",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def instant_key(prop: str) -> str:
    """A datetime property as epoch microseconds (null when missing).

    Cypher orders and compares datetimes of different time zones by zone as well as instant
    (12:00Z is not equal to 13:00+01:00); as a number the instant alone counts.
    """
    return f"{prop}.epochMillis * 1000 + {prop}.microsecond % 1000"


def epoch_micros(value: datetime) -> int:
    """A datetime parameter in the unit of `instant_key`."""
    return (value - _EPOCH) // timedelta(microseconds=1)


@dataclass(frozen=True)
class FilterField:
    """A filterable field: its Cypher expression and the operator templates it allows."""

    expr: str
    operators: Mapping[str, str]
    mentioned: bool = False  # true: a condition on an entity the memory MENTIONS


def _pick(table: Mapping[str, str], *ops: str) -> dict[str, str]:
    return {op: table[op] for op in ops}


MEMORY_FIELDS: Mapping[str, FilterField] = {
    "text": FilterField("m.text", _pick(_STRING, "eq", "contains", "starts_with", "in_")),
    "speaker": FilterField("m.speaker", _pick(_STRING, "eq", "in_", "contains")),
    "entity_type": FilterField("mentioned.type", _pick(_STRING, "eq", "in_"), mentioned=True),
    "entity_name": FilterField("mentioned.name", _pick(_STRING, "eq", "contains"), mentioned=True),
    "said_at": FilterField(instant_key("m.said_at"), _COMPARE),
    "valid_from": FilterField(instant_key("m.valid_from"), _COMPARE),
    "valid_to": FilterField(instant_key("m.valid_to"), _COMPARE),
    # valid_from, or said_at for a fact with no time of its own: the HAPPENED clock's start.
    "happened_start": FilterField(instant_key("m.happened_start"), _COMPARE),
    "created_at": FilterField(instant_key("m.created_at"), _COMPARE),
    "confidence": FilterField("m.confidence", _pick(_COMPARE, "lt", "lte", "gt", "gte")),
    "lang": FilterField("m.lang", _pick(_STRING, "eq", "in_")),
}
# Boolean fields: the condition for `true` (`false` is its negation). `current` means "not
# superseded" now, or at $as_of when the query has one.
MEMORY_FLAGS: Mapping[str, str] = {
    "current": "(m.invalidated_at IS NULL OR coalesce(m.invalidated_at > $as_of, false))",
}
ENTITY_FIELDS: Mapping[str, FilterField] = {
    "name": FilterField("e.name", _pick(_STRING, "eq", "contains", "starts_with", "in_")),
    "type": FilterField("e.type", _pick(_STRING, "eq", "in_")),
    "last_seen": FilterField(instant_key("e.last_seen"), _pick(_COMPARE, "lt", "gt")),
}
_MENTIONS = "EXISTS {{ (m)-[:MENTIONS]->(mentioned:Entity) WHERE {conditions} }}"


@dataclass(frozen=True)
class Predicate:
    """A Cypher boolean expression and the parameters it uses; empty text means no condition."""

    text: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


def parse_memory_where(data: Mapping[str, object] | None) -> MemoryWhere | None:
    return None if data is None else _parse(MemoryWhere, data, "where")


def parse_entity_where(data: Mapping[str, object] | None) -> EntityWhere | None:
    return None if data is None else _parse(EntityWhere, data, "where")


def _parse(model: type[_W], data: Mapping[str, object], label: str) -> _W:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        where = ".".join(map(str, (label, *first["loc"])))
        raise ValidationError(f"{where}: {first['msg']}") from e


def memory_predicate(where: MemoryWhere | None) -> Predicate:
    """The Cypher predicate (node `m`) for a memory filter."""
    return _Builder(MEMORY_FIELDS, MEMORY_FLAGS).build(where)


def entity_predicate(where: EntityWhere | None) -> Predicate:
    """The Cypher predicate (node `e`) for an entity filter."""
    return _Builder(ENTITY_FIELDS, {}).build(where)


class _Builder:
    def __init__(self, fields: Mapping[str, FilterField], flags: Mapping[str, str]) -> None:
        self.fields = fields
        self.flags = flags
        self.params: dict[str, Any] = {}
        self.conditions = 0

    def build(self, where: BaseModel | None) -> Predicate:
        atoms = self._atoms(where, 1) if where is not None else []
        return Predicate(" AND ".join(atoms), dict(self.params))

    def _atoms(self, where: BaseModel, depth: int) -> list[str]:
        """Conditions that hold together (to be ANDed), each safe to join with AND."""
        if depth > MAX_DEPTH:
            raise ValidationError(f"where: nested deeper than {MAX_DEPTH} levels")
        atoms: list[str] = []
        for name in type(where).model_fields:  # definition order keeps the output stable
            value = getattr(where, name)
            if value is None:
                continue
            if name == "and_":
                for child in value:
                    atoms.extend(self._atoms(child, depth + 1))
            elif name == "or_":
                atoms.extend(self._any_of([self._atoms(c, depth + 1) for c in value]))
            elif name == "not_":
                inner = self._atoms(value, depth + 1)
                atoms.extend([f"NOT ({' AND '.join(inner)})"] if inner else [])
            else:
                atoms.extend(self._field(name, value))
        return atoms

    @staticmethod
    def _any_of(alternatives: list[list[str]]) -> list[str]:
        alternatives = [a for a in alternatives if a]
        if len(alternatives) <= 1:
            return alternatives[0] if alternatives else []
        parts = [a[0] if len(a) == 1 else f"({' AND '.join(a)})" for a in alternatives]
        return [f"({' OR '.join(parts)})"]

    def _field(self, name: str, ops: BaseModel | bool) -> list[str]:
        if isinstance(ops, bool):
            if name not in self.flags:
                raise ValidationError(f"where: unknown field {name!r}")
            self._count()
            return [self.flags[name] if ops else f"NOT {self.flags[name]}"]
        spec = self.fields.get(name)
        if spec is None:
            raise ValidationError(f"where: unknown field {name!r}")
        conditions = []
        for op in type(ops).model_fields:
            value = getattr(ops, op)
            if value is None:
                continue
            if op not in spec.operators:
                raise ValidationError(f"where: {name} has no operator {op.rstrip('_')!r}")
            self._count()
            conditions.append(spec.operators[op].format(x=spec.expr, p=self._param(value)))
        if spec.mentioned and conditions:
            return [_MENTIONS.format(conditions=" AND ".join(conditions))]
        return conditions

    def _count(self) -> None:
        self.conditions += 1
        if self.conditions > MAX_CONDITIONS:
            raise ValidationError(f"where: more than {MAX_CONDITIONS} conditions")

    def _param(self, value: Any) -> str:
        name = f"w{len(self.params)}"
        # Every datetime field is compared through instant_key, in epoch microseconds.
        self.params[name] = epoch_micros(value) if isinstance(value, datetime) else value
        return f"${name}"
