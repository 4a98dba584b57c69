"""A profile's grouping and the pairing of changes, from statements as the store reads them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.core.domain import StoredMemory
from service.profile.changes import pair_changes
from service.profile.facts import group_profile
from service.profile.model import ChangeType, FactKind
from service.store.graph_queries import EntityNode
from service.store.profile_queries import FactRow

JAN, MAR, APR = (datetime(2026, m, d, 9, tzinfo=UTC) for m, d in ((1, 10), (3, 14), (4, 2)))


def memory(memory_id: str, said: datetime, text: str = "") -> StoredMemory:
    return StoredMemory(id=memory_id, text=text or memory_id, said_at=said)


def relation(kind: str, value: str, memory_id: str, since: datetime, **more: Any) -> FactRow:
    other = EntityNode(name=value, type="OTHER", key=f"u\x1f{value.lower()}")
    return FactRow(
        relation=kind,
        subject=more.pop("subject", "Sam"),
        value=value,
        other=other,
        since=since,
        memory_ids=[memory_id],
        memories=[memory(memory_id, since)],
        confidence=more.pop("confidence", 0.8),
        **more,
    )


def slot(name: str, value: str, memory_id: str, since: datetime, **more: Any) -> FactRow:
    return FactRow(
        slot=name,
        subject=more.pop("subject", "Sam"),
        value=value,
        since=since,
        memory_ids=[memory_id],
        memories=[memory(memory_id, since)],
        confidence=0.9,
        **more,
    )


# --- profile ------------------------------------------------------------------------------------


def test_a_relation_and_a_slot_of_one_memory_are_one_fact() -> None:
    groups = group_profile(
        [relation("LIVES_IN", "Berlin", "m2", MAR), slot("lives_in", "berlin", "m2", MAR)], 5
    )
    [lives] = groups
    [fact] = lives.facts
    assert (lives.kind, lives.label) == (FactKind.LIVES_IN, "lives in")
    assert (fact.value, fact.relation, fact.slot) == ("Berlin", "LIVES_IN", "lives_in")
    assert fact.entity is not None and fact.entity.name == "Berlin"
    assert fact.evidence_count == 1 and [m.id for m in fact.evidence] == ["m2"]
    assert (fact.since, fact.confidence, fact.inferred) == (MAR, 0.9, False)


def test_a_fact_said_twice_is_one_fact_since_its_first_saying() -> None:
    rows = [relation("LIKES", "Radiohead", "m1", JAN), relation("LIKES", "radiohead", "m3", APR)]
    [fact] = group_profile(rows, 1)[0].facts
    assert fact.since == JAN and fact.evidence_count == 2
    assert [m.id for m in fact.evidence] == ["m3"]  # the newest, within the cap


def test_groups_follow_the_profile_order_and_leave_events_out() -> None:
    rows = [
        relation("VISITED", "Paris", "m1", JAN),
        relation("LIKES", "Radiohead", "m2", JAN),
        slot("favourite_book", "Dune", "m3", JAN),
        slot("job", "firmware engineer", "m4", JAN),
        relation("WORKS_AT", "Acme", "m4", JAN),
        slot("pet_name", "Rex", "m5", JAN),
    ]
    groups = group_profile(rows, 5)
    assert [g.kind for g in groups] == [
        FactKind.WORKS_AT,
        FactKind.JOB,
        FactKind.LIKES,
        FactKind.FAVOURITES,
        FactKind.OTHER,
    ]
    favourite = groups[3].facts[0]
    assert (favourite.detail, favourite.value) == ("book", "Dune")
    assert groups[4].facts[0].detail == "pet name"


def test_an_inferred_fact_stated_outright_too_is_explicit() -> None:
    inferred = relation("LIKES", "climbing", "m1", JAN, inferred=True, confidence=0.6)
    alone = group_profile([inferred], 5)[0].facts[0]
    assert alone.inferred is True and alone.confidence == 0.6
    said = relation("LIKES", "Climbing", "m2", MAR, confidence=0.8)
    both = group_profile([inferred, said], 5)[0].facts[0]
    assert both.inferred is False and both.confidence == 0.8 and both.since == JAN


def test_newest_facts_first_within_a_kind() -> None:
    rows = [relation("USES", "Notion", "m1", JAN), relation("USES", "Figma", "m2", MAR)]
    assert [f.value for f in group_profile(rows, 5)[0].facts] == ["Figma", "Notion"]


# --- changes ------------------------------------------------------------------------------------

LISBON = [
    relation("LIVES_IN", "Lisbon", "m1", JAN, ended=MAR, successors=["m2"]),
    slot("lives_in", "Lisbon", "m1", JAN, ended=MAR, successors=["m2"]),
]
BERLIN = [relation("LIVES_IN", "Berlin", "m2", MAR), slot("lives_in", "Berlin", "m2", MAR)]


def test_a_superseded_fact_pairs_with_what_replaced_it() -> None:
    [change] = pair_changes(LISBON + BERLIN, datetime(2026, 3, 1, tzinfo=UTC), None)
    assert change.type is ChangeType.SUPERSEDED and change.kind is FactKind.LIVES_IN
    assert change.before is not None and change.after is not None
    assert (change.before.value, change.after.value, change.at) == ("Lisbon", "Berlin", MAR)
    assert [m.id for m in change.before.memories] == ["m1"]
    assert (change.relation, change.slot) == ("LIVES_IN", "lives_in")
    assert change.summary == "Sam: lives in Lisbon → Berlin, 2026-03-14"


def test_a_window_holding_both_statements_starts_the_first_and_supersedes_it() -> None:
    found = pair_changes(LISBON + BERLIN, None, None)
    assert [(c.type, c.at) for c in found] == [
        (ChangeType.STARTED, JAN),
        (ChangeType.SUPERSEDED, MAR),
    ]
    assert found[0].summary == "Sam: lives in Lisbon (started), 2026-01-10"


def test_a_window_before_the_change_holds_only_the_start() -> None:
    found = pair_changes(LISBON + BERLIN, None, datetime(2026, 2, 1, tzinfo=UTC))
    assert [(c.type, c.after.value if c.after else None) for c in found] == [
        (ChangeType.STARTED, "Lisbon")
    ]


def test_a_change_of_mind_pairs_by_instant_without_a_supersedes_edge() -> None:
    rows = [
        relation("LIKES", "coffee", "m1", JAN, ended=MAR),
        relation("LIKES", "green tea", "m2", MAR),
        relation("LIKES", "jazz", "m3", MAR),  # a like of another subject would not pair
    ]
    found = pair_changes(rows, MAR, APR)
    superseded = [c for c in found if c.type is ChangeType.SUPERSEDED]
    assert len(superseded) == 1 and superseded[0].before is not None
    assert superseded[0].before.value == "coffee"
    assert {c.after.value for c in found if c.after} == {"green tea", "jazz"}


def test_an_inferred_side_says_so_in_the_summary() -> None:
    climbing = relation("LIKES", "climbing", "m1", JAN, inferred=True, ended=MAR)
    [started, ended] = pair_changes([climbing], None, None)
    assert started.summary == "Sam: likes climbing (started, inferred), 2026-01-10"
    assert ended.summary == "Sam: likes climbing (ended, inferred), 2026-03-14"
    [changed] = pair_changes([climbing, relation("LIKES", "yoga", "m2", MAR)], MAR, None)
    assert changed.summary == "Sam: likes climbing (inferred) → yoga, 2026-03-14"


def test_a_fact_retired_with_nothing_in_its_place_ended() -> None:
    [change] = pair_changes([relation("LIKES", "running", "m1", JAN, ended=MAR)], MAR, None)
    assert change.type is ChangeType.ENDED and change.after is None
    assert change.summary == "Sam: likes running (ended), 2026-03-14"


def test_another_subjects_fact_does_not_replace_it() -> None:
    rows = [
        relation("LIVES_IN", "Lisbon", "m1", JAN, ended=MAR),
        relation("LIVES_IN", "Berlin", "m2", MAR, subject="Ana"),
    ]
    found = pair_changes(rows, MAR, None)
    assert {(c.type, c.subject) for c in found} == {
        (ChangeType.ENDED, "Sam"),
        (ChangeType.STARTED, "Ana"),
    }


def test_a_fact_said_again_while_it_stood_has_not_started() -> None:
    rows = [relation("USES", "Notion", "m1", JAN), relation("USES", "Notion", "m2", MAR)]
    rows[1] = rows[1].model_copy(update={"restated": True})
    assert [c.at for c in pair_changes(rows, None, None)] == [JAN]


def test_a_favourite_that_is_also_a_like_changes_once_as_the_favourite() -> None:
    rows = [
        slot("favourite_book", "Dune", "m1", JAN, ended=APR, successors=["m2"]),
        relation("LIKES", "Dune", "m1", JAN, ended=APR),
        slot("favourite_book", "Middlemarch", "m2", APR),
        relation("LIKES", "Middlemarch", "m2", APR),
    ]
    [change] = pair_changes(rows, MAR, None)
    assert (change.kind, change.detail) == (FactKind.FAVOURITES, "book")
    assert change.slot == "favourite_book"
    assert change.summary == "Sam: favourite book Dune → Middlemarch, 2026-04-02"


def test_two_memories_of_the_old_value_replaced_at_once_are_one_change() -> None:
    rows = [
        relation("LIVES_IN", "Lisbon", "m0", JAN, ended=MAR, successors=["m2"]),
        relation("LIVES_IN", "Lisbon", "m1", datetime(2026, 2, 1, tzinfo=UTC), ended=MAR),
        *BERLIN,
    ]
    [change] = pair_changes(rows, MAR, None)
    assert change.before is not None
    assert sorted(m.id for m in change.before.memories) == ["m0", "m1"]


def test_a_time_neo4j_keeps_in_a_named_zone_is_read_as_its_instant() -> None:
    # An inferred LIKES' `since` is a time read back from Neo4j: toString() names its zone.
    row = FactRow.model_validate(
        {"subject": "Sam", "value": "climbing", "since": "2024-06-01T09:01:00Z[UTC]"}
    )
    assert row.since == datetime(2024, 6, 1, 9, 1, tzinfo=UTC)
