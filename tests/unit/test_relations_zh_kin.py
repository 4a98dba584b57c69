"""Kin and friends said with a copula, 跟/和 + 是, or an apposition, with words qualifying the
noun, and a bare kin noun standing for the person named with it before
(service/nlp/relations/chinese_kin.py). Invented sentences; none is from an evaluation
conversation, and their names do not occur in the dev set."""

from __future__ import annotations

import pytest

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.chinese_kin import KinStatements, Said, kin_named, kin_subject
from service.nlp.relations.discourse import Conversation, Kin
from service.nlp.relations.extractor import RelationExtractor
from tests.mentions import mentions

L = EntityLabel
Triple = tuple[str, str, str]


KIN_STATED: list[tuple[str, dict[str, EntityLabel], Triple]] = [
    ("陶然是我亲哥，在比亚迪上班", {"陶然": L.PERSON}, ("王芳", "FAMILY_OF", "陶然")),
    ("钱多多跟我是高中同学", {"钱多多": L.PERSON}, ("王芳", "FRIEND_OF", "钱多多")),
    ("钱多多是我认识十几年的老朋友了", {"钱多多": L.PERSON}, ("王芳", "FRIEND_OF", "钱多多")),
    ("我的好闺蜜钱多多下周结婚", {"钱多多": L.PERSON}, ("王芳", "FRIEND_OF", "钱多多")),
    ("这是我妹，陶然", {"陶然": L.PERSON}, ("王芳", "FAMILY_OF", "陶然")),
    ("陶然，我表弟，刚考上浙大", {"陶然": L.PERSON}, ("王芳", "FAMILY_OF", "陶然")),
    ("陶然是孙悦的亲姐姐", {"陶然": L.PERSON, "孙悦": L.PERSON}, ("孙悦", "FAMILY_OF", "陶然")),
    ("陶然是你表哥吧", {"陶然": L.PERSON}, ("赵鹏", "FAMILY_OF", "陶然")),
]


@pytest.mark.parametrize(("text", "labels", "expected"), KIN_STATED)
def test_kin_and_friends_with_a_qualifier_or_a_comma(
    text: str, labels: dict[str, EntityLabel], expected: Triple
) -> None:
    found = KinStatements().find(text, mentions(text, labels), Said("王芳", "赵鹏"))
    assert expected in {(r.source.name, r.type.value, r.target.name) for r in found}


KIN_NOT_STATED: list[tuple[str, dict[str, EntityLabel]]] = [
    ("陶然是我朋友的儿子", {"陶然": L.PERSON}),  # someone else's kin
    ("陶然不是我表哥", {"陶然": L.PERSON}),  # denied
    ("陶然是你表哥吗？", {"陶然": L.PERSON}),  # asked
    ("陶然是我们的老师", {"陶然": L.PERSON}),  # no kin or friend noun
    ("陶然是我哥的同事", {"陶然": L.PERSON}),  # the noun does not end the phrase
]


@pytest.mark.parametrize(("text", "labels"), KIN_NOT_STATED)
def test_no_kin_from_another_noun_a_denial_or_a_question(
    text: str, labels: dict[str, EntityLabel]
) -> None:
    assert not KinStatements().find(text, mentions(text, labels), Said("王芳", "赵鹏"))


def test_a_bare_kin_noun_is_the_person_named_with_it_before() -> None:
    extractor = RelationExtractor()
    first = "我表哥陶然下个月结婚"
    said = mentions(first, {"陶然": L.PERSON})
    relations = extractor.find(first, "zh", said, "王芳")
    known = kin_named(first, relations)
    assert known == [Kin("王芳", "表哥", "陶然")]
    later = "我表哥在蓝鲸科技上班，去年在惠州买了房"
    context = Conversation(kin=tuple(known))
    found = extractor.find(
        later,
        "zh",
        mentions(later, {"蓝鲸科技": L.ORG, "惠州": L.PLACE}),
        "王芳",
        conversation=context,
    )
    triples = {(r.source.name, r.type.value, r.target.name) for r in found}
    assert {("陶然", "WORKS_AT", "蓝鲸科技"), ("陶然", "LIVES_IN", "惠州")} <= triples
    # someone else's 表哥, or a 表哥 never named: nobody
    assert kin_subject("我表哥", "赵鹏", context) is None
    assert kin_subject("我表姐", "王芳", context) is None


def test_kin_named_after_the_name() -> None:
    text = "钱多多是我大学室友"
    relations = KinStatements().find(text, mentions(text, {"钱多多": L.PERSON}), Said("王芳", None))
    assert kin_named(text, relations) == [Kin("王芳", "室友", "钱多多")]
