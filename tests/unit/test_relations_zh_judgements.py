"""Liking and disliking said with slang judgements and verbs of taking to or giving up
(the 'verdict' and 'ba' shapes of nlp_models/zh_grammar.json, classes LIKE_SLANG,
DISLIKE_SLANG, LIKE_SLANG_VERB, DROP_VERB of zh_relation_words.json). Invented sentences; none
is from an evaluation conversation, and their names do not occur in the dev set."""

from __future__ import annotations

import pytest

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.chinese_grammar import ChineseGrammar
from service.nlp.relations.extractor import RelationExtractor
from tests.mentions import mentions

L = EntityLabel
Triple = tuple[str, str, str]


@pytest.fixture(scope="module")
def grammar() -> ChineseGrammar:
    return ChineseGrammar()


def find(grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel]) -> set[Triple]:
    return {
        (r.source.name, r.type.value, r.target.name)
        for r in grammar.find(text, mentions(text, labels), "王芳")
    }


STATED: list[tuple[str, dict[str, EntityLabel], Triple]] = [
    ("星露谷真的yyds", {"星露谷": L.PRODUCT}, ("王芳", "LIKES", "星露谷")),
    ("双截龙才是国产单机天花板", {"双截龙": L.PRODUCT}, ("王芳", "LIKES", "双截龙")),
    ("鹿角巷的奶茶真香", {"鹿角巷": L.ORG}, ("王芳", "LIKES", "鹿角巷")),
    ("鹿角巷简直是神作", {"鹿角巷": L.ORG}, ("王芳", "LIKES", "鹿角巷")),
    ("得物客服太坑了", {"得物": L.PRODUCT}, ("王芳", "DISLIKES", "得物")),
    ("青桔单车真的拉胯", {"青桔单车": L.PRODUCT}, ("王芳", "DISLIKES", "青桔单车")),
    ("上周就卸载了得物", {"得物": L.PRODUCT}, ("王芳", "DISLIKES", "得物")),
    ("我昨天把得物卸载了", {"得物": L.PRODUCT}, ("王芳", "DISLIKES", "得物")),
    ("我吹爆星露谷", {"星露谷": L.PRODUCT}, ("王芳", "LIKES", "星露谷")),
    ("陶然说星露谷yyds", {"陶然": L.PERSON, "星露谷": L.PRODUCT}, ("陶然", "LIKES", "星露谷")),
    ("星露谷是我的最爱", {"星露谷": L.PRODUCT}, ("王芳", "LIKES", "星露谷")),
    ("星露谷太好玩了", {"星露谷": L.PRODUCT}, ("王芳", "LIKES", "星露谷")),
    ("得物真的太难用了", {"得物": L.PRODUCT}, ("王芳", "DISLIKES", "得物")),
    ("上个月跑了兰州马拉松", {"兰州马拉松": L.EVENT}, ("王芳", "VISITED", "兰州马拉松")),
]


@pytest.mark.parametrize(("text", "labels", "expected"), STATED)
def test_slang_judgements_and_verbs(
    grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel], expected: Triple
) -> None:
    assert expected in find(grammar, text, labels)


NOT_STATED: list[tuple[str, dict[str, EntityLabel]]] = [
    ("星露谷不香吗？", {"星露谷": L.PRODUCT}),  # asked
    ("得物一点都不坑", {"得物": L.PRODUCT}),  # denied
    ("得物和淘宝比，价格太坑了", {"得物": L.PRODUCT, "淘宝": L.PRODUCT}),  # too far, another name
    ("我打算卸载得物", {"得物": L.PRODUCT}),  # planned
    ("陶然真的yyds", {"陶然": L.PERSON}),  # praise of a person is no liking of a thing
]


@pytest.mark.parametrize(("text", "labels"), NOT_STATED)
def test_no_judgement_asked_denied_planned_or_too_far(
    grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel]
) -> None:
    assert not {t for t in find(grammar, text, labels) if t[1] in ("LIKES", "DISLIKES")}


def test_in_before_an_action_places_nothing() -> None:
    text = "最近在玩星露谷"
    found = RelationExtractor().find(text, "zh", mentions(text, {"星露谷": L.PRODUCT}), "王芳")
    assert not [r for r in found if r.type.value in ("LIVES_IN", "LOCATED_IN")]


LEFT_OUT: list[tuple[str, dict[str, EntityLabel], Triple]] = [
    ("青城山就在都江堰边上，我前年路过过", {"青城山": L.PLACE}, ("王芳", "VISITED", "青城山")),
    ("昨天试了鹿角巷，真香", {"鹿角巷": L.ORG}, ("王芳", "LIKES", "鹿角巷")),
    ("每天都在刷星露谷，玩了两年还是真爱", {"星露谷": L.PRODUCT}, ("王芳", "LIKES", "星露谷")),
    ("得物用了半年，上周卸载了", {"得物": L.PRODUCT}, ("王芳", "DISLIKES", "得物")),
]


@pytest.mark.parametrize(("text", "labels", "expected"), LEFT_OUT)
def test_a_verb_ending_its_clause_takes_the_object_said_before(
    grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel], expected: Triple
) -> None:
    assert expected in find(grammar, text, labels)


LEFT_OUT_NOT_STATED: list[tuple[str, dict[str, EntityLabel]]] = [
    ("我前年路过过", {}),  # nothing said before
    ("陶然人很好，真的绝绝子", {"陶然": L.PERSON}),  # a person is no object of these frames
    ("青城山就在都江堰边上，我没路过过", {"青城山": L.PLACE}),  # denied
    ("得物用了半年，打算下周卸载", {"得物": L.PRODUCT}),  # planned
]


@pytest.mark.parametrize(("text", "labels"), LEFT_OUT_NOT_STATED)
def test_no_object_carried_to_nothing_a_person_a_denial_or_a_plan(
    grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel]
) -> None:
    found = find(grammar, text, labels)
    assert not {t for t in found if t[1] in ("LIKES", "DISLIKES", "VISITED")}
