"""Subjects a Chinese clause gives by 你 or past an apposition, and rhetorical questions
(service/nlp/relations/chinese_subjects.py, discourse.second_person). Invented sentences; none
is from an evaluation conversation, and their names do not occur in the dev set."""

from __future__ import annotations

import pytest

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.chinese_grammar import ChineseGrammar
from service.nlp.relations.chinese_subjects import is_you, rhetorical
from service.nlp.relations.discourse import Conversation, second_person
from service.nlp.relations.extractor import RelationExtractor
from tests.mentions import mentions

L = EntityLabel
Triple = tuple[str, str, str]


@pytest.fixture(scope="module")
def extractor() -> RelationExtractor:
    return RelationExtractor()


def find(
    extractor: RelationExtractor, text: str, you: str | None, **labels: EntityLabel
) -> set[Triple]:
    context = Conversation(answers=you, you=you)
    found = extractor.find(text, "zh", mentions(text, labels), "王芳", conversation=context)
    return {(r.source.name, r.type.value, r.target.name) for r in found}


def test_you_is_the_vocative_or_the_other_of_two_speakers() -> None:
    two = [("王芳", "你最近忙吗"), ("赵鹏", "还行"), ("王芳", "赵鹏，你周末去哪了")]
    assert second_person(two) == ["赵鹏", "王芳", "赵鹏"]
    three = [("王芳", "你最近忙吗"), ("赵一鹏", "还行"), ("孙悦", "一鹏你也去了？")]
    assert second_person(three) == [None, None, "赵一鹏"]  # a given name as a vocative
    assert second_person([("王芳", "赵鹏说他也去")]) == [None]  # a subject, no address


YOU_STATED: list[tuple[str, dict[str, EntityLabel], Triple]] = [
    ("你去年不是去过桂林嘛，还记得那家米粉店吗", {"桂林": L.PLACE}, ("赵鹏", "VISITED", "桂林")),
    ("你在顺丰一直干到现在了", {"顺丰": L.ORG}, ("赵鹏", "WORKS_AT", "顺丰")),
    ("你不是在青岛住了五年吗", {"青岛": L.PLACE}, ("赵鹏", "LIVES_IN", "青岛")),
    ("你一直用钉钉吧", {"钉钉": L.PRODUCT}, ("赵鹏", "USES", "钉钉")),
    (
        "你表妹孙悦在厦门大学读书",
        {"孙悦": L.PERSON, "厦门大学": L.ORG},
        ("赵鹏", "FAMILY_OF", "孙悦"),
    ),
    ("孙悦是你表妹", {"孙悦": L.PERSON}, ("赵鹏", "FAMILY_OF", "孙悦")),
    ("你还在顺丰上班吗？", {"顺丰": L.ORG}, ("赵鹏", "WORKS_AT", "顺丰")),  # "still?": it was so
    ("你还住在青岛吗", {"青岛": L.PLACE}, ("赵鹏", "LIVES_IN", "青岛")),
    ("我是你哥！你得听我的。", {}, ("王芳", "FAMILY_OF", "赵鹏")),  # 我 and 你 as the pair
    ("你是我亲弟弟，我不帮你帮谁？", {}, ("赵鹏", "FAMILY_OF", "王芳")),
    ("认识二十年了，你就是我最好的朋友", {}, ("赵鹏", "FRIEND_OF", "王芳")),
    ("咱俩是亲姐妹，有什么不能说的", {}, ("王芳", "FAMILY_OF", "赵鹏")),
]


@pytest.mark.parametrize(("text", "labels", "expected"), YOU_STATED)
def test_you_is_whom_the_message_addresses(
    extractor: RelationExtractor, text: str, labels: dict[str, EntityLabel], expected: Triple
) -> None:
    assert expected in find(extractor, text, "赵鹏", **labels)


YOU_NOT_STATED: list[tuple[str, dict[str, EntityLabel]]] = [
    ("你是不是在网易上班？", {"网易": L.ORG}),  # a real question
    ("你去过桂林吗", {"桂林": L.PLACE}),
    ("你们在顺丰干了几年了", {"顺丰": L.ORG}),  # plural: not one person
    ("你不在顺丰干了", {"顺丰": L.ORG}),  # denied
]


@pytest.mark.parametrize(("text", "labels"), YOU_NOT_STATED)
def test_you_in_a_question_a_denial_or_plural_gives_nothing(
    extractor: RelationExtractor, text: str, labels: dict[str, EntityLabel]
) -> None:
    assert not {t for t in find(extractor, text, "赵鹏", **labels) if t[0] == "赵鹏"}


def test_you_without_an_addressee_is_nobody(extractor: RelationExtractor) -> None:
    assert not find(extractor, "你在顺丰一直干到现在了", None, 顺丰=L.ORG)


def test_rhetorical_question() -> None:
    assert rhetorical("你不是来过桂林嘛")
    assert rhetorical("他不是在顺丰上班吗？")
    assert not rhetorical("你是不是在顺丰上班吗")
    assert not rhetorical("我不是在顺丰上班")
    assert rhetorical("你还在顺丰上班吗")
    assert not rhetorical("你在顺丰上班吗")
    assert not rhetorical("你还是在顺丰上班")  # a statement: no question to read
    assert is_you("你去年冬天不是")
    assert not is_you("你们")
    assert not is_you("你妈")


def test_the_subject_goes_on_past_an_apposition(extractor: RelationExtractor) -> None:
    found = find(extractor, "陶然，我表弟，刚考上浙江大学", None, 陶然=L.PERSON, 浙江大学=L.ORG)
    assert ("陶然", "STUDIES_AT", "浙江大学") in found
    assert ("王芳", "STUDIES_AT", "浙江大学") not in found


def test_a_discourse_you_is_no_subject_for_the_next_clause(extractor: RelationExtractor) -> None:
    found = find(extractor, "你猜怎么着，上周入职了蓝鲸科技", "赵鹏", 蓝鲸科技=L.ORG)
    assert ("赵鹏", "WORKS_AT", "蓝鲸科技") not in found
    assert ("王芳", "WORKS_AT", "蓝鲸科技") in found


def test_an_unnamed_kin_opening_the_fact_is_not_the_speaker(extractor: RelationExtractor) -> None:
    text = "我老公在蓝鲸科技，天天加班，上个月还去了趟惠州"
    found = find(extractor, text, None, 蓝鲸科技=L.ORG, 惠州=L.PLACE)
    assert not {t for t in found if t[0] == "王芳" and t[1] != "FAMILY_OF"}


def test_a_companion_is_no_subject(extractor: RelationExtractor) -> None:
    found = find(extractor, "和老公一起去的惠州，顺便逛了西湖", None, 惠州=L.PLACE, 西湖=L.PLACE)
    assert ("王芳", "VISITED", "惠州") in found


def test_a_person_at_an_organisation_is_there_as_its_member(extractor: RelationExtractor) -> None:
    found = find(
        extractor, "去年在蓝鲸科技实习过，现在在青柠数据", None, 蓝鲸科技=L.ORG, 青柠数据=L.ORG
    )
    assert ("王芳", "WORKS_AT", "青柠数据") in found
    assert ("王芳", "LIVES_IN", "青柠数据") not in found


TOPIC_NO_SUBJECT: list[tuple[str, dict[str, EntityLabel], Triple | None]] = [
    ("这次兰州马拉松跑得太爽了", {"兰州马拉松": L.EVENT}, ("王芳", "VISITED", "兰州马拉松")),
    ("七里河区住了大半辈子", {"七里河区": L.PLACE}, ("王芳", "LIVES_IN", "七里河区")),
    ("七里河区住了很多老人", {"七里河区": L.PLACE}, None),  # a noun after the verb: others
    ("敦煌我去过两次", {"敦煌": L.PLACE}, ("王芳", "VISITED", "敦煌")),
    ("敦煌去过两次，挺美的", {"敦煌": L.PLACE}, ("王芳", "VISITED", "敦煌")),
    ("敦煌我没去过", {"敦煌": L.PLACE}, None),  # denied
]


@pytest.mark.parametrize(("text", "labels", "expected"), TOPIC_NO_SUBJECT)
def test_a_topic_with_its_subject_left_out(
    text: str, labels: dict[str, EntityLabel], expected: Triple | None
) -> None:
    found = ChineseGrammar().find(text, mentions(text, labels), "王芳")
    triples = {(r.source.name, r.type.value, r.target.name) for r in found}
    assert triples == ({expected} if expected else set())


WORK_PHRASES: list[tuple[str, dict[str, EntityLabel]]] = [
    ("我目前就职于青柠数据", {"青柠数据": L.ORG}),
    ("我给青柠数据打工三年了", {"青柠数据": L.ORG}),
    ("我是青柠数据研发部的工程师", {"青柠数据": L.ORG}),
]


@pytest.mark.parametrize(("text", "labels"), WORK_PHRASES)
def test_work_verbs_with_a_preposition_or_于(text: str, labels: dict[str, EntityLabel]) -> None:
    found = ChineseGrammar().find(text, mentions(text, labels), "王芳")
    assert ("王芳", "WORKS_AT", "青柠数据") in {
        (r.source.name, r.type.value, r.target.name) for r in found
    }
