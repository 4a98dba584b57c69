"""Names a relation row read whole where the mentions hold only their parts
(service/nlp/entities/row_names.py). Made-up sentences; none is from a dev conversation."""

from __future__ import annotations

import pytest

from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.entities.row_names import EXTRACTOR, widened
from service.nlp.relations.table import Endpoint, RelationMention, RelationType


def mention(text: str, name: str, label: EntityLabel = EntityLabel.ORG) -> EntityMention:
    start = text.index(name)
    return EntityMention(name, label, start, start + len(name), "spacy:ORG", 0.8)


def read(text: str, name: str, extractor: str = "dep:en_name_in") -> RelationMention:
    start = text.index(name)
    return RelationMention(
        RelationType.LOCATED_IN,
        Endpoint(name, EntityLabel.ORG, start, start + len(name)),
        Endpoint("Deptford", EntityLabel.PLACE, 0, 1),
        extractor,
        0.6,
    )


@pytest.mark.parametrize(
    ("text", "cut", "whole", "lang"),
    [
        ("yep, Marlow Legal Aid, over in Deptford", ["Marlow Legal"], "Marlow Legal Aid", "en"),
        ("we ran with the Ashby Running Club", ["Ashby", "Running"], "Ashby Running Club", "en"),
        ("她是江南大学附属第二医院的护士", ["江南大学"], "江南大学附属第二医院", "zh"),
    ],
)
def test_the_mentions_give_way_to_the_name_a_row_read_whole(
    text: str, cut: list[str], whole: str, lang: str
) -> None:
    found = widened(text, lang, [mention(text, c) for c in cut], [read(text, whole)])
    assert [(m.text, m.extractor) for m in found] == [(whole, EXTRACTOR)]
    assert found[0].label is EntityLabel.ORG


@pytest.mark.parametrize(
    ("text", "cut", "whole", "lang", "extractor"),
    [
        ("Grandma Rosa lives in Deptford", "Rosa", "Grandma Rosa", "en", "dep:en_live_in"),
        ("the Marlow clinic in Deptford", "Marlow", "Marlow clinic", "en", "dep:en_name_in"),
        ("格力总部在珠海", "格力", "格力总部", "zh", "pattern:zh_thing_in"),  # a part of it
        (
            "yep, Marlow Legal Aid, over there",
            "Marlow Legal",
            "Marlow Legal Aid",
            "en",
            "learned:en",
        ),
    ],
)
def test_no_name_is_made_of_a_title_a_common_word_a_part_or_the_model(
    text: str, cut: str, whole: str, lang: str, extractor: str
) -> None:
    mentions = [mention(text, cut)]
    assert widened(text, lang, mentions, [read(text, whole, extractor)]) == mentions
