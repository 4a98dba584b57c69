"""The dashboard filter, sort and cursor builders: exact Cypher, parameters, and refusals."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from service.core.errors import ValidationError
from service.store import catalog, filters
from service.store.catalog import and_, fill_markers
from service.store.filters import (
    EntityWhere,
    MemoryWhere,
    Predicate,
    entity_predicate,
    memory_predicate,
    parse_entity_where,
    parse_memory_where,
)
from service.store.ordering import SortDirection, SortKey, entity_ordering, memory_ordering

MARCH = datetime(2024, 3, 1, tzinfo=UTC)
MARCH_US = 1_709_251_200_000_000  # MARCH in epoch microseconds
SAID_AT = "m.said_at.epochMillis * 1000 + m.said_at.microsecond % 1000"
INJECTIONS = ["') OR 1=1 //", "` MATCH (n) DETACH DELETE n", "x}) RETURN 1; MATCH (n) DELETE n"]


def where(data: dict[str, Any]) -> Predicate:
    parsed = parse_memory_where(data)
    assert parsed is not None
    return memory_predicate(parsed)


def test_a_small_filter_emits_exactly_this_cypher() -> None:
    built = where({"text": {"contains": "Boston"}, "speaker": {"in": ["Alice", "Bob"]}})
    assert built.text == "toLower(m.text) CONTAINS toLower($w0) AND m.speaker IN $w1"
    assert built.params == {"w0": "Boston", "w1": ["Alice", "Bob"]}


def test_and_or_not_nest_with_parentheses_where_precedence_needs_them() -> None:
    built = where(
        {
            "speaker": {"eq": "Alice"},
            "OR": [
                {"text": {"starts_with": "I"}, "lang": {"eq": "en"}},
                {"said_at": {"lt": MARCH}},
            ],
            "NOT": {"confidence": {"gte": 0.9}},
            "AND": [{"valid_from": {"gt": MARCH}}],
        }
    )
    assert built.text == (
        "m.valid_from.epochMillis * 1000 + m.valid_from.microsecond % 1000 > $w0"
        f" AND ((m.text STARTS WITH $w1 AND m.lang = $w2) OR {SAID_AT} < $w3)"
        " AND NOT (m.confidence >= $w4)"
        " AND m.speaker = $w5"
    )
    assert built.params == {
        "w0": MARCH_US,
        "w1": "I",
        "w2": "en",
        "w3": MARCH_US,
        "w4": 0.9,
        "w5": "Alice",
    }


def test_entity_fields_test_the_mentioned_entities() -> None:
    built = where({"entity_type": {"in": ["ORG", "PLACE"]}, "entity_name": {"contains": "goo"}})
    assert built.text == (
        "EXISTS { (m)-[:MENTIONS]->(mentioned:Entity) WHERE mentioned.type IN $w0 }"
        " AND EXISTS { (m)-[:MENTIONS]->(mentioned:Entity)"
        " WHERE toLower(mentioned.name) CONTAINS toLower($w1) }"
    )


def test_current_flag() -> None:
    assert where({"current": True}).text == (
        "(m.invalidated_at IS NULL OR coalesce(m.invalidated_at > $as_of, false))"
    )
    assert where({"current": False}).text.startswith("NOT (m.invalidated_at IS NULL")


def test_datetimes_compare_as_instants_in_epoch_microseconds() -> None:
    assert where({"said_at": {"eq": MARCH}}).text == f"{SAID_AT} = $w0"
    assert where({"said_at": {"eq": MARCH}}).params == {"w0": MARCH_US}
    plus8 = datetime(2024, 3, 1, 8, tzinfo=timezone(timedelta(hours=8)))  # the same instant
    assert where({"said_at": {"gte": plus8}}).params == {"w0": MARCH_US}
    naive = datetime(2024, 3, 1)  # taken as UTC
    assert where({"said_at": {"gte": naive}}).params == {"w0": MARCH_US}
    assert filters.epoch_micros(datetime(1969, 12, 31, 23, 59, 59, 500_000, UTC)) == -500_000
    assert filters.epoch_micros(MARCH + timedelta(microseconds=7)) == MARCH_US + 7


def test_entity_filter() -> None:
    parsed = parse_entity_where(
        {
            "OR": [{"name": {"starts_with": "Go"}}, {"type": {"in": ["ORG"]}}],
            "last_seen": {"gt": MARCH},
        }
    )
    assert parsed is not None
    built = entity_predicate(parsed)
    assert built.text == (
        "(e.name STARTS WITH $w0 OR e.type IN $w1)"
        " AND e.last_seen.epochMillis * 1000 + e.last_seen.microsecond % 1000 > $w2"
    )


@pytest.mark.parametrize("attack", INJECTIONS)
def test_injection_attempts_stay_parameters(attack: str) -> None:
    built = where(
        {
            "text": {"contains": attack, "in": [attack]},
            "speaker": {"eq": attack},
            "OR": [{"entity_name": {"eq": attack}}, {"lang": {"eq": attack}}],
        }
    )
    assert attack not in built.text and "DELETE" not in built.text and "1=1" not in built.text
    assert list(built.params.values()).count(attack) == 4
    assert [attack] in built.params.values()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"txt": {"eq": "x"}}, "txt"),
        ({"text": {"regex": ".*"}}, "regex"),
        ({"confidence": {"eq": 0.5}}, "eq"),  # confidence has no eq
        ({"lang": {"contains": "e"}}, "contains"),
        ({"OR": [{"speaker": {"starts_with": "A"}}]}, "starts_with"),
        ({"text": {"eq": "x" * (filters.MAX_VALUE_CHARS + 1)}}, "at most"),
        ({"text": {"in": ["x"] * (filters.MAX_LIST + 1)}}, "at most"),
        ({"m.text = '' OR 1=1 //": {"eq": "x"}}, "Extra inputs"),
    ],
)
def test_unknown_fields_and_operators_are_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_memory_where(data)


def test_the_builder_only_knows_whitelisted_fields() -> None:
    # Defence in depth: a model field missing from the whitelist is refused, not emitted.
    only_text = {"text": filters.MEMORY_FIELDS["text"]}
    with pytest.raises(ValidationError, match="unknown field 'speaker'"):
        filters._Builder(only_text, {}).build(MemoryWhere.model_validate({"speaker": {"eq": "x"}}))
    no_eq = {"text": filters.FilterField("m.text", {"contains": "toLower({x}) = {p}"})}
    with pytest.raises(ValidationError, match="no operator 'eq'"):
        filters._Builder(no_eq, {}).build(MemoryWhere.model_validate({"text": {"eq": "x"}}))


def nested(depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {"text": {"eq": "x"}}
    for _ in range(depth - 1):
        data = {"NOT": data}
    return data


def test_depth_and_condition_count_are_bounded() -> None:
    assert where(nested(filters.MAX_DEPTH)).text.count("NOT") == filters.MAX_DEPTH - 1
    with pytest.raises(ValidationError, match="deeper than 5"):
        where(nested(filters.MAX_DEPTH + 1))
    many = [{"text": {"eq": str(i)}} for i in range(filters.MAX_CONDITIONS)]
    assert len(where({"AND": many}).params) == filters.MAX_CONDITIONS
    with pytest.raises(ValidationError, match="more than 50 conditions"):
        where({"AND": many, "speaker": {"eq": "x"}})


def test_empty_filters_add_no_condition() -> None:
    assert where({}).text == "" and memory_predicate(None) == Predicate()
    assert where({"AND": [], "OR": [], "NOT": {}, "text": {}}).text == ""
    assert where({"OR": [{}, {"text": {"eq": "x"}}]}).text == "m.text = $w0"
    assert entity_predicate(EntityWhere()).text == ""


def test_sort_keys_order_by_and_cursor_predicate() -> None:
    default = memory_ordering([])
    assert default.keys == f"[coalesce({SAID_AT}, -9223372036854775807)]"
    assert default.order_by == "sort_key[0] DESC, m.id ASC"
    resume = default.after(default.cursor([1_700_000_000_000_000], "mem-1"))
    assert resume.text == "sort_key[0] < $c0 OR (sort_key[0] = $c0 AND m.id > $c1)"
    assert resume.params == {"c0": 1_700_000_000_000_000, "c1": "mem-1"}

    two = memory_ordering(
        [SortKey("confidence", SortDirection.DESC), SortKey("valid_from", SortDirection.ASC)]
    )
    assert two.keys.startswith("[coalesce(m.confidence, -1.0e308), coalesce(m.valid_from")
    assert two.keys.endswith("9223372036854775807)]")  # nulls last when ascending too
    assert two.order_by == "sort_key[0] DESC, sort_key[1] ASC, m.id ASC"
    assert two.after(two.cursor([0.9, 5], "x")).text == (
        "sort_key[0] < $c0 OR (sort_key[0] = $c0 AND sort_key[1] > $c1)"
        " OR (sort_key[0] = $c0 AND sort_key[1] = $c1 AND m.id > $c2)"
    )
    entities = entity_ordering([SortKey("mention_count", SortDirection.DESC)])
    assert entities.keys == "[mention_count]"
    assert entities.order_by == "sort_key[0] DESC, e.key ASC"
    assert default.after(None) == Predicate()


@pytest.mark.parametrize(
    "sort, message",
    [
        ([SortKey("text")], "cannot sort by 'text'"),
        ([SortKey("m.id; MATCH (n) DELETE n")], "cannot sort by"),
        ([SortKey("said_at"), SortKey("said_at", SortDirection.DESC)], "appears twice"),
        ([SortKey(f) for f in ["said_at", "created_at", "valid_from", "confidence"]], "at most"),
    ],
)
def test_bad_sorts_are_refused(sort: list[SortKey], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        memory_ordering(sort)


def test_cursors_are_checked_before_use() -> None:
    ordering = memory_ordering([])
    other = memory_ordering([SortKey("created_at", SortDirection.ASC)])
    with pytest.raises(ValidationError, match="different sort order"):
        ordering.after(other.cursor([1], "x"))
    forged = [
        "not base64 at all!!",
        ordering.cursor(["') OR 1=1 //"], "x"),  # a string where a number belongs
        ordering.cursor([1, 2], "x"),  # too many values
        ordering.cursor([True], "x"),
        ordering.cursor([1], 7),  # type: ignore[arg-type]
    ]
    for cursor in forged:
        with pytest.raises(ValidationError, match="not a cursor"):
            ordering.after(cursor)


def test_fill_markers_puts_builder_output_in_place() -> None:
    cypher = "MATCH (m) WHERE m.x = 1 /*where*/ RETURN m ORDER BY /*order*/"
    filled = fill_markers(cypher, {"where": and_("m.y = $w0"), "order": "m.id ASC"})
    assert filled == "MATCH (m) WHERE m.x = 1  AND (m.y = $w0) RETURN m ORDER BY m.id ASC"
    assert fill_markers(cypher, {"where": and_(""), "order": "m.id"}).startswith(
        "MATCH (m) WHERE m.x = 1  RETURN"
    )
    with pytest.raises(ValueError, match="do not match"):
        fill_markers(cypher, {"where": ""})
    with pytest.raises(ValueError, match="do not match"):
        fill_markers(cypher, {"where": "", "order": "m.id", "extra": ""})
    for smuggled in ["m.id // rest", "m.id; MATCH (n) DELETE n", "m.id /* x */"]:
        with pytest.raises(ValueError, match="delimiter"):
            fill_markers(cypher, {"where": "", "order": smuggled})


@pytest.mark.parametrize("name", ["list_memories", "list_entities"])
def test_dashboard_queries_carry_exactly_the_markers_the_store_fills(name: str) -> None:
    text = catalog.query(name)
    assert sorted(set(re.findall(r"/\*([a-z_]+)\*/", text))) == ["after", "keys", "order", "where"]
