"""The learned Chinese name reader: its model file, its decoding and what the finder keeps.

The sentences are made up for these tests: no corpus message or evaluation conversation says
them.
"""

from __future__ import annotations

import pytest

from service.nlp.entities.chinese import LEARNED, ChineseEntityFinder
from service.nlp.entities.chinese_names import MODEL_NAME, OUTSIDE, Span, spans
from service.nlp.entities.mentions import EntityLabel
from service.nlp.linear import Guess, corpus_path, digest, load_model


@pytest.fixture(scope="module")
def finder() -> ChineseEntityFinder:
    return ChineseEntityFinder()


def found(finder: ChineseEntityFinder, text: str) -> dict[str, tuple[EntityLabel, str]]:
    return {m.text: (m.label, m.extractor) for m in finder.find(text)}


def test_the_name_model_was_trained_on_the_corpus_as_it_is() -> None:
    assert load_model(MODEL_NAME).corpus_digest == digest(corpus_path("zh"))


def test_a_labelling_becomes_names_with_their_least_sure_character() -> None:
    labels = ["B-PERSON", "I-PERSON", OUTSIDE, "I-PLACE", "I-PLACE", "B-ORG", "B-ORG", "I-ORG"]
    sure = [0.9, 0.7, 0.99, 0.8, 0.95, 0.6, 0.9, 0.85]
    guesses = [Guess(label, p) for label, p in zip(labels, sure, strict=True)]
    assert spans(guesses) == [
        Span(0, 2, "PERSON", 0.7),
        Span(3, 5, "PLACE", 0.8),  # an I- after O begins a name too
        Span(5, 6, "ORG", 0.6),
        Span(6, 8, "ORG", 0.85),
    ]


def test_names_the_rules_miss_are_read_by_the_model(finder: ChineseEntityFinder) -> None:
    names = found(finder, "我表姐符晓燕去年搬到了海口，在一家做电池的公司上班")
    assert names["符晓燕"] == (EntityLabel.PERSON, LEARNED)
    assert names["海口"] == (EntityLabel.PLACE, LEARNED)  # a city jieba tags as a locative
    assert found(finder, "我们老板盘下了路口那家云记烧腊")["云记烧腊"] == (EntityLabel.ORG, LEARNED)


def test_a_title_or_kin_word_after_a_learned_name_is_not_part_of_it(
    finder: ChineseEntityFinder,
) -> None:
    names = found(finder, "周末跟晓燕姐去爬山了")
    assert "晓燕" in names and "晓燕姐" not in names


@pytest.mark.parametrize(
    "text", ["我在一小时车程外的镇上教书", "国庆我们去了趟黄山", "王常常来这儿。"]
)
def test_times_holidays_and_adverbs_are_no_learned_names(
    finder: ChineseEntityFinder, text: str
) -> None:
    assert all(extractor != LEARNED for _, extractor in found(finder, text).values())


def test_the_rules_names_win_over_the_models(finder: ChineseEntityFinder) -> None:
    names = found(finder, "她在浙江大学读研")
    assert names["浙江大学"][1] != LEARNED


def test_a_field_of_study_is_no_learned_name(finder: ChineseEntityFinder) -> None:
    for text in ("我是滇农大园艺学专业的学生", "这边的材料科学专业真的不错"):
        assert not any("专业" in n or n.endswith("学") for n in found(finder, text)), text


def test_a_verb_phrase_after_a_modal_is_no_learned_name(finder: ChineseEntityFinder) -> None:
    """那叫会过日子: 会 opens something done, which the model read as a name after 叫."""
    assert "会过日子" not in found(finder, "小芸那叫会过日子！")
