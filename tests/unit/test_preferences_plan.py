"""What a batch's preferences write, decided without a database (service/ingest/preferences.py):
which relations a change of mind retires and how, and when things done become an inferred LIKES."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from service.core.config import Settings
from service.ingest.preferences import (
    Retirement,
    inferred_confidence,
    plan_inferences,
    plan_retirements,
)
from service.nlp.relations.extractor import RelationType
from service.store.writes import HeldRelation

T0 = datetime(2026, 9, 1, tzinfo=UTC)
CHANGED = T0 + timedelta(days=90)
CHANGE_TYPES = frozenset({RelationType.LIKES, RelationType.USES, RelationType.DOES})
SETTINGS = Settings()


def held(
    target: str,
    kind: RelationType = RelationType.LIKES,
    memory: str = "",
    inferred: bool = False,
    said_at: datetime = T0,
    day: date | None = None,
) -> HeldRelation:
    """Ana's relation to ``target`` (its name is its key)."""
    return HeldRelation(
        "ana", kind, target, target, memory or f"m-{target}", inferred, said_at, day
    )


def change(
    retired: tuple[str, ...] = (), adopted: tuple[str, ...] = (), kinds: tuple[str, ...] = ()
) -> Retirement:
    return Retirement("m-change", "ana", CHANGE_TYPES, retired, adopted, kinds, CHANGED, "changed")


def test_a_change_supersedes_stated_likes_and_closes_things_done_and_inferred() -> None:
    stored = [
        held("coffee"),
        held("coffee", RelationType.DOES, "m-latte", day=date(2026, 9, 3)),
        held("coffee", memory="m-habit", inferred=True),
        held("beer"),
    ]
    supersessions, closings = plan_retirements([change(retired=("coffee",))], stored)
    assert [(s.new_id, s.old_id, s.at) for s in supersessions] == [
        ("m-change", "m-coffee", CHANGED)
    ]
    assert {(c.type, c.memory_id) for c in closings} == {("DOES", "m-latte"), ("LIKES", "m-habit")}


def test_naming_only_the_new_thing_retires_the_things_of_its_kind() -> None:
    stored = [held("coffee"), held("tea"), held("green tea"), held("beer"), held("running")]
    supersessions, _ = plan_retirements(
        [change(adopted=("green tea",), kinds=("hot drink",))], stored
    )
    assert {s.old_id for s in supersessions} == {"m-coffee", "m-tea"}


def test_what_was_said_after_the_change_or_by_someone_else_stays() -> None:
    later = held("coffee", memory="m-later", said_at=CHANGED + timedelta(days=1))
    other = HeldRelation("ben", RelationType.LIKES, "coffee", "coffee", "m-ben", said_at=T0)
    own = held("coffee", memory="m-change")
    assert plan_retirements([change(retired=("coffee",))], [later, other, own]) == ([], [])


def test_a_dislike_retires_likes_only() -> None:
    dislike = Retirement(
        "m-hate", "ana", frozenset({RelationType.LIKES}), ("running",), (), (), CHANGED, "disliked"
    )
    stored = [held("running"), held("running", RelationType.DOES, "m-ran", day=date(2026, 9, 2))]
    supersessions, closings = plan_retirements([dislike], stored)
    assert [s.old_id for s in supersessions] == ["m-running"] and closings == []


def done(day: int, memory: str = "", target: str = "climbing") -> HeldRelation:
    when = date(2026, 9, 1) + timedelta(days=day)
    return held(target, RelationType.DOES, memory or f"m-{day}", day=when, said_at=T0)


def test_things_done_on_enough_separate_days_are_an_inferred_like() -> None:
    [found] = plan_inferences([done(0), done(7), done(7, "m-again"), done(14)], [], SETTINGS)
    assert (found.subject_key, found.target_key, found.days) == ("ana", "climbing", 3)
    assert {e.memory_id for e in found.evidence} == {"m-0", "m-7", "m-again", "m-14"}
    assert found.confidence == inferred_confidence(3, 14, SETTINGS)
    assert plan_inferences([done(0), done(0, "m-b"), done(0, "m-c")], [], SETTINGS) == []
    assert plan_inferences([done(0), done(7)], [], SETTINGS) == []


def test_a_stated_taste_wins_and_a_change_discounts_what_came_before() -> None:
    days = [done(0), done(7), done(14)]
    assert plan_inferences([*days, held("climbing")], [], SETTINGS) == []
    assert plan_inferences([*days, held("climbing", RelationType.DISLIKES)], [], SETTINGS) == []
    quit_ = change(retired=("climbing",))
    assert plan_inferences(days, [quit_], SETTINGS) == []


@pytest.mark.parametrize(
    ("days", "spread", "expected"),
    [(3, 6, 0.2429), (4, 56, 0.4825), (12, 90, 0.75), (3, 0, 0.2)],
)
def test_the_confidence_grows_with_the_count_and_the_spread(
    days: int, spread: int, expected: float
) -> None:
    assert inferred_confidence(days, spread, SETTINGS) == pytest.approx(expected, abs=1e-4)
