"""An organisation said again by "this" or "that" and a noun (named_before.py). Made-up
lines; no name is in an evaluation set."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from service.nlp.relations.named_before import reference, restated
from tests.conversations import relations


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("I worked at that bakery for two summers.", "en", "I worked at X for two summers."),
        ("I've made eggs at this little diner for years.", "en", "I've made eggs at X for years."),
        ("我表哥就在这家公司上班。", "zh", "我表哥就在X上班。"),
        ("那个学校挺难进的", "zh", "X挺难进的"),
    ],
)
def test_the_noun_gives_way_to_the_name(text: str, lang: str, said: str) -> None:
    found = reference(text, lang)
    assert found is not None
    assert restated(text, found, "X") == said


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Our company is hiring.", "en"),  # ours: an employer, or not the one just named
        ("That's a bakery thing.", "en"),
        ("我们公司在裁员。", "zh"),
        ("这家店叫鹿角咖啡。", "zh"),  # a name follows
    ],
)
def test_no_reference_without_this_or_that(text: str, lang: str) -> None:
    assert reference(text, lang) is None


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_this_noun_is_the_one_organisation_named_just_before(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Nia", "Have you tried Harbor Street Bakery yet?"),
            ("Omar", "Tried it? I worked at that bakery for two summers."),
        ],
    )
    assert ("Omar", "WORKS_AT", "Harbor Street Bakery") in found, found
    found = relations(
        extractor, [("李娜", "你知道星辰科技吗？"), ("王磊", "我表哥刘洋就在这家公司上班。")]
    )
    assert ("刘洋", "WORKS_AT", "星辰科技") in found, found


def test_of_two_organisations_the_noun_means_neither(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Nia", "Harbor Street Bakery and Crumb Collective are both hiring."),
            ("Omar", "I worked at that bakery for two summers."),
        ],
    )
    assert not any(source == "Omar" for source, _, _ in found), found
