"""Dashboard sorting and cursors: whitelisted sort keys turned into Cypher ORDER BY items and
the predicate that resumes after an opaque cursor (service.store.dashboard_queries).

Sort fields come only from the whitelists below; a cursor's values come back as parameters
($c0 …), checked against the sort's types and signature before they reach a query.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from service.core.errors import ValidationError
from service.store.filters import Predicate, instant_key

MAX_SORT_KEYS = 3


class SortDirection(StrEnum):
    ASC = "ASC"
    DESC = "DESC"


@dataclass(frozen=True)
class SortKey:
    field: str
    direction: SortDirection = SortDirection.ASC


@dataclass(frozen=True)
class SortField:
    """A sortable field: a null-free Cypher key for each direction (nulls always sort last)."""

    asc: str
    desc: str
    kind: type  # the Python type of the key, checked when a cursor comes back

    def key(self, direction: SortDirection) -> str:
        return self.asc if direction is SortDirection.ASC else self.desc


def _instant_sort(prop: str) -> SortField:
    # Datetimes sort as epoch microseconds: exact, comparable across zones, JSON-safe in cursors.
    key = instant_key(prop)
    return SortField(
        f"coalesce({key}, 9223372036854775807)", f"coalesce({key}, -9223372036854775807)", int
    )


MEMORY_SORT: Mapping[str, SortField] = {
    "said_at": _instant_sort("m.said_at"),
    "created_at": _instant_sort("m.created_at"),
    "valid_from": _instant_sort("m.valid_from"),
    "confidence": SortField(
        "coalesce(m.confidence, 1.0e308)", "coalesce(m.confidence, -1.0e308)", float
    ),
}
ENTITY_SORT: Mapping[str, SortField] = {
    "name": SortField("coalesce(e.name, '')", "coalesce(e.name, '')", str),
    "last_seen": _instant_sort("e.last_seen"),
    "mention_count": SortField("mention_count", "mention_count", int),
}


@dataclass(frozen=True)
class Ordering:
    """A whitelisted sort: the key list, the ORDER BY items, and the cursor predicate.

    The query computes `/*keys*/ AS sort_key`, orders by `order_by` (the unique id last, so the
    order is total) and resumes after a cursor with `after(cursor)`.
    """

    keys: str
    order_by: str
    signature: str
    kinds: tuple[type, ...]
    directions: tuple[SortDirection, ...]
    id_expr: str

    def after(self, cursor: str | None) -> Predicate:
        """Rows strictly after the cursor: lexicographic over (sort keys..., id ASC)."""
        if cursor is None:
            return Predicate()
        values = self._decode(cursor)
        exprs = [f"sort_key[{i}]" for i in range(len(self.kinds))] + [self.id_expr]
        directions = [*self.directions, SortDirection.ASC]
        terms = []
        for i, (expr, direction) in enumerate(zip(exprs, directions, strict=True)):
            equal = [f"{exprs[j]} = $c{j}" for j in range(i)]
            beyond = f"{expr} {'>' if direction is SortDirection.ASC else '<'} $c{i}"
            terms.append(" AND ".join([*equal, beyond]))
        text = " OR ".join(t if i == 0 else f"({t})" for i, t in enumerate(terms))
        return Predicate(text, {f"c{i}": v for i, v in enumerate(values)})

    def cursor(self, sort_key: Sequence[Any], node_id: str) -> str:
        """The opaque cursor of one row: its sort key values and id."""
        payload = json.dumps(
            {"s": self.signature, "k": [*sort_key, node_id]}, separators=(",", ":")
        )
        return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")

    def _decode(self, cursor: str) -> list[Any]:
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            payload = json.loads(raw)
            signature, values = payload["s"], payload["k"]
        except (binascii.Error, ValueError, TypeError, KeyError) as e:
            raise ValidationError("after: not a cursor from this API") from e
        if signature != self.signature:
            raise ValidationError("after: the cursor belongs to a different sort order")
        kinds = (*self.kinds, str)
        if not isinstance(values, list) or len(values) != len(kinds):
            raise ValidationError("after: not a cursor from this API")
        for value, kind in zip(values, kinds, strict=True):
            numeric = kind is float and isinstance(value, int)
            if isinstance(value, bool) or not (isinstance(value, kind) or numeric):
                raise ValidationError("after: not a cursor from this API")
            if not _packable(value):
                raise ValidationError("after: not a cursor from this API")
        return values


def _packable(value: Any) -> bool:
    """What the Bolt driver can send: 64-bit ints, text without lone surrogates."""
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, str):
        return not any("\ud800" <= c <= "\udfff" for c in value)
    return True


def memory_ordering(sort: Sequence[SortKey]) -> Ordering:
    return _ordering(sort or [SortKey("said_at", SortDirection.DESC)], MEMORY_SORT, "m.id")


def entity_ordering(sort: Sequence[SortKey]) -> Ordering:
    return _ordering(sort or [SortKey("name", SortDirection.ASC)], ENTITY_SORT, "e.key")


def _ordering(sort: Sequence[SortKey], fields: Mapping[str, SortField], id_expr: str) -> Ordering:
    if len(sort) > MAX_SORT_KEYS:
        raise ValidationError(f"sort: at most {MAX_SORT_KEYS} keys")
    if len({k.field for k in sort}) != len(sort):
        raise ValidationError("sort: a field appears twice")
    specs = []
    for key in sort:
        spec = fields.get(key.field)
        if spec is None:
            raise ValidationError(f"sort: cannot sort by {key.field!r}")
        specs.append(spec)
    directions = tuple(SortDirection(k.direction) for k in sort)
    exprs = [s.key(d) for s, d in zip(specs, directions, strict=True)]
    order = [f"sort_key[{i}] {d.value}" for i, d in enumerate(directions)]
    return Ordering(
        keys=f"[{', '.join(exprs)}]",
        order_by=", ".join([*order, f"{id_expr} ASC"]),
        signature=",".join(f"{k.field}:{d.value}" for k, d in zip(sort, directions, strict=True)),
        kinds=tuple(s.kind for s in specs),
        directions=directions,
        id_expr=id_expr,
    )
