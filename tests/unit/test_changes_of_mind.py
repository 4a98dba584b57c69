"""Changes of mind (service/nlp/preferences/): each form of tests/data/changes_of_mind.jsonl,
English and Chinese, read from the words alone, and what the extractor makes of each pair."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.core.config import Settings
from service.core.domain import MessageIn
from service.nlp.entities.names import identity_form
from service.nlp.pipeline import Extractor, Fact
from service.nlp.preferences.lexicon import lexicon
from service.nlp.relations.extractor import RelationType

PAIRS_PATH = Path(__file__).resolve().parents[1] / "data" / "changes_of_mind.jsonl"
PAIRS = [json.loads(line) for line in PAIRS_PATH.read_text(encoding="utf-8").splitlines()]
SAID = datetime(2026, 9, 1, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def facts(extractor: Extractor, speaker: str, text: str) -> list[Fact]:
    [found] = extractor.extract([MessageIn(role="user", content=text, speaker=speaker)], [SAID])
    return found


def targets(found: list[Fact], *types: RelationType) -> set[str]:
    return {identity_form(r.target.name) for f in found for r in f.relations if r.type in types}


def test_the_set_covers_every_form_in_both_languages() -> None:
    forms = {(p["lang"], p["form"]) for p in PAIRS if p["form"]}
    english = {"stop", "no_longer", "not_anymore", "switch_from", "switch_to", "instead_of"}
    english |= {"instead", "off", "used_to"}
    chinese = {"no_longer", "not_any_more", "gave_up", "switch_to", "switch_from", "before_now"}
    assert forms == {("en", f"en_{f}") for f in english} | {("zh", f"zh_{f}") for f in chinese}
    for lang in ("en", "zh"):
        assert sum(1 for p in PAIRS if p["lang"] == lang and p["form"]) >= 20


@pytest.mark.parametrize("pair", PAIRS, ids=[p["id"] for p in PAIRS])
def test_the_change_is_read_with_what_it_retires_and_adopts(
    extractor: Extractor, pair: dict[str, object]
) -> None:
    [fact] = facts(extractor, str(pair["speaker"]), str(pair["after"]))
    change = fact.preferences.change
    if pair["form"] is None:
        assert change is None
        return
    assert change is not None
    assert change.rule == pair["form"]
    assert [i.name for i in change.retired] == pair["retired"]
    assert [i.name for i in change.adopted] == pair["adopted"]


@pytest.mark.parametrize("pair", [p for p in PAIRS if p["form"]], ids=lambda p: p["id"])
def test_what_came_before_states_the_thing_the_change_retires(
    extractor: Extractor, pair: dict[str, object]
) -> None:
    """The earlier statement gives a relation to what is retired (or to a thing of the adopted
    one's kind), so that the retirement has something to close."""
    before = facts(extractor, str(pair["speaker"]), str(pair["before"]))
    held = targets(before, RelationType.LIKES, RelationType.USES, RelationType.DOES)
    retired = {identity_form(str(name)) for name in pair["retired"]}  # type: ignore[attr-defined]
    assert retired <= held if retired else held


@pytest.mark.parametrize(
    ("speaker", "text", "dropped", "added"),
    [
        ("Rosa", "I used to love running, but my knees gave up on it", "running", None),
        ("Pia", "I'm off coffee, it's green tea for me now", "coffee", "green tea"),
        ("小李", "我现在不喝咖啡了，改喝绿茶。", "咖啡", "绿茶"),
        ("孙丽", "我以前爱打乒乓球，现在改打网球了。", "乒乓球", "网球"),
    ],
)
def test_a_change_likes_what_it_adopts_and_not_what_it_retires(
    extractor: Extractor, speaker: str, text: str, dropped: str, added: str | None
) -> None:
    found = facts(extractor, speaker, text)
    liked = targets(found, RelationType.LIKES, RelationType.USES, RelationType.DOES)
    assert dropped not in liked
    assert (added in liked) if added else not liked


@pytest.mark.parametrize(
    ("speaker", "text", "done"),
    [
        ("Ana", "I went climbing with Sam last Saturday.", {"climbing"}),
        ("Ana", "Went climbing again this morning.", {"climbing"}),
        ("Ana", "I had a latte with Mia before work.", {"coffee"}),
        ("Ana", "We played tennis on Sunday.", {"tennis"}),
        ("Ana", "I didn't go swimming today.", set()),
        ("Ana", "I'm going to go climbing tomorrow.", set()),
        ("Ana", "My brother went climbing on Sunday.", set()),
        ("Ana", "Do you like climbing?", set()),
        ("Ana", "I really enjoy drinking green tea in the evening.", set()),
        ("王芳", "今天又去攀岩了。", {"攀岩"}),
        ("王芳", "周末和朋友去爬山了。", {"徒步"}),
        ("王芳", "我今天喝了两杯咖啡。", {"咖啡"}),
        ("王芳", "好久没跑步了。", set()),
        ("王芳", "我明天想去游泳。", set()),
        ("王芳", "他昨天去攀岩了。", set()),
    ],
)
def test_things_done_are_the_speakers_and_done(
    extractor: Extractor, speaker: str, text: str, done: set[str]
) -> None:
    expected = {identity_form(name) for name in done}
    assert targets(facts(extractor, speaker, text), RelationType.DOES) == expected


@pytest.mark.parametrize("text", ["我超喜欢喜茶。", "我爱喝奈雪的茶。"])
def test_a_shop_named_after_an_item_keeps_its_name(extractor: Extractor, text: str) -> None:
    """喜茶 holds 茶 but is a tea shop: a LIKES of the name stays the name's."""
    [fact] = facts(extractor, "小李", text)
    liked = {r.target.name for r in fact.relations if r.type is RelationType.LIKES}
    assert liked & {"喜茶", "奈雪", "奈雪的茶"}, liked


def test_a_capitalised_word_inside_a_sentence_is_a_name_not_a_thing_done() -> None:
    """ "moved to Boulder": the town, not bouldering; "Juniper Yoga" a studio; a hobby
    opening a sentence and a product's one-word name stay items."""
    found = lexicon("en").find
    assert found("Nope, we moved to Boulder last year.") == []
    assert found("I go to Juniper Yoga on Fridays.") == []
    assert [s.item.name for s in found("I quit Instagram last week.")] == ["instagram"]
    assert [s.item.name for s in found("Climbing is my thing. We boulder on Tuesdays.")] == [
        "climbing",
        "climbing",
    ]
