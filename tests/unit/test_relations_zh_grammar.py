"""The Chinese relation grammar (service/nlp/relations/chinese_grammar.py, frames in
nlp_models/zh_grammar.json): each frame on sentences written for this test, with words between
subject, verb and object that the regex rows do not spell out; none is from an evaluation
conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.core.errors import ConfigurationError
from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.chinese_grammar import ChineseGrammar
from service.nlp.relations.chinese_grammar_table import load_grammar
from service.nlp.relations.discourse import Conversation
from service.nlp.relations.extractor import RelationExtractor
from tests.mentions import mentions

L = EntityLabel


@pytest.fixture(scope="module")
def grammar() -> ChineseGrammar:
    return ChineseGrammar()


def find(grammar: ChineseGrammar, text: str, **labels: EntityLabel) -> set[tuple[str, str, str]]:
    relations = grammar.find(text, mentions(text, labels), "王芳")
    return {(r.source.name, r.type.value, r.target.name) for r in relations}


FRAMES = [
    # 在 + organisation + filler + work verb
    ("我在联想前前后后干了六年。", {"联想": L.ORG}, ("王芳", "WORKS_AT", "联想")),
    ("老孙在顺丰一直当调度员。", {"老孙": L.PERSON, "顺丰": L.ORG}, ("老孙", "WORKS_AT", "顺丰")),
    ("我在青山医院骨科连着值了三天班。", {"青山医院": L.ORG}, ("王芳", "WORKS_AT", "青山医院")),
    ("我在美团的总部搬砖。", {"美团": L.ORG}, ("王芳", "WORKS_AT", "美团")),
    (
        "周越在麦当劳管一家门店。",
        {"周越": L.PERSON, "麦当劳": L.ORG},
        ("周越", "WORKS_AT", "麦当劳"),
    ),
    ("我在宁波公交开了十几年车。", {"宁波公交": L.ORG}, ("王芳", "WORKS_AT", "宁波公交")),
    # 在 + school + filler + study verb
    (
        "小伟现在在厦门大学读大三。",
        {"小伟": L.PERSON, "厦门大学": L.ORG},
        ("小伟", "STUDIES_AT", "厦门大学"),
    ),
    ("我以前在南开中学念了三年。", {"南开中学": L.ORG}, ("王芳", "STUDIES_AT", "南开中学")),
    # 在 + place + filler + settle verb
    ("我在大理已经生活了五年。", {"大理": L.PLACE}, ("王芳", "LIVES_IN", "大理")),
    # verb + filler + object
    ("上个月才正式入职了字节。", {"字节": L.ORG}, ("王芳", "WORKS_AT", "字节")),
    ("我们去年就搬到了珠海。", {"珠海": L.PLACE}, ("王芳", "LIVES_IN", "珠海")),
    ("前天终于提了一辆新的Model Y。", {"Model Y": L.PRODUCT}, ("王芳", "OWNS", "Model Y")),
    (
        "周周去年加入了市里的青松足球队。",
        {"周周": L.PERSON, "青松足球队": L.ORG},
        ("周周", "MEMBER_OF", "青松足球队"),
    ),
    (
        "何琳今年考上了四川大学。",
        {"何琳": L.PERSON, "四川大学": L.ORG},
        ("何琳", "STUDIES_AT", "四川大学"),
    ),
    ("五一我们一家三口去了趟洛阳。", {"洛阳": L.PLACE}, ("王芳", "VISITED", "洛阳")),
    # 是 + organisation + 的 + role / student / member
    ("刘洋是德邦的一名司机。", {"刘洋": L.PERSON, "德邦": L.ORG}, ("刘洋", "WORKS_AT", "德邦")),
    ("我是北师大的研究生。", {"北师大": L.ORG}, ("王芳", "STUDIES_AT", "北师大")),
    (
        "阿杰是晨风乐队的鼓手。",
        {"阿杰": L.PERSON, "晨风乐队": L.ORG},
        ("阿杰", "MEMBER_OF", "晨风乐队"),
    ),
    # organisation + site + filler + sited verb + place
    ("小米的总部现在设在北京。", {"小米": L.ORG, "北京": L.PLACE}, ("小米", "LOCATED_IN", "北京")),
    ("联影的工厂位于常州。", {"联影": L.ORG, "常州": L.PLACE}, ("联影", "LOCATED_IN", "常州")),
    ("东湖就在武汉市区。", {"东湖": L.PLACE, "武汉": L.PLACE}, ("东湖", "LOCATED_IN", "武汉")),
    # a place, then an organisation in it
    (
        "我常去成都的蜀香面馆。",
        {"成都": L.PLACE, "蜀香面馆": L.ORG},
        ("蜀香面馆", "LOCATED_IN", "成都"),
    ),
    (
        "绍兴老城区那家鲁镇酒家很好吃。",
        {"绍兴": L.PLACE, "鲁镇酒家": L.ORG},
        ("鲁镇酒家", "LOCATED_IN", "绍兴"),
    ),
    # the target first: 这家X我干了…, Y我住了…
    ("滨江区我前后住了七八年。", {"滨江区": L.PLACE}, ("王芳", "LIVES_IN", "滨江区")),
    ("那家宏达物流我干了两年多。", {"宏达物流": L.ORG}, ("王芳", "WORKS_AT", "宏达物流")),
    # 他/她: the one person named before
    (
        "我表妹苏晴也来了，她在携程做客服。",
        {"苏晴": L.PERSON, "携程": L.ORG},
        ("苏晴", "WORKS_AT", "携程"),
    ),
    # a topic with its 的-phrase first: the school's course, then the subject
    ("复旦大学的夜校我读了两年。", {"复旦大学": L.ORG}, ("王芳", "STUDIES_AT", "复旦大学")),
    # a school year after 在 + school
    (
        "小伟在育英小学上三年级。",
        {"小伟": L.PERSON, "育英小学": L.ORG},
        ("小伟", "STUDIES_AT", "育英小学"),
    ),
    # a pronoun, a demonstrative and a measure word: what the one named owns
    (
        "我同事周宁也来了，他那辆比亚迪是新的。",
        {"周宁": L.PERSON, "比亚迪": L.PRODUCT},
        ("周宁", "OWNS", "比亚迪"),
    ),
    ("我那台华硕还能再用两年。", {"华硕": L.PRODUCT}, ("王芳", "OWNS", "华硕")),
    # a dropped subject continues the last clause's
    (
        "葛明去年毕业，然后在京东干了一年。",
        {"葛明": L.PERSON, "京东": L.ORG},
        ("葛明", "WORKS_AT", "京东"),
    ),
]


@pytest.mark.parametrize(("text", "labels", "expected"), FRAMES)
def test_frame(
    grammar: ChineseGrammar,
    text: str,
    labels: dict[str, EntityLabel],
    expected: tuple[str, str, str],
) -> None:
    assert expected in find(grammar, text, **labels)


NOT_STATED = [
    ("你在腾讯上班吗？", {"腾讯": L.ORG}),  # asked
    ("我没在阿里干过。", {"阿里": L.ORG}),  # denied
    ("我打算下个月搬到杭州。", {"杭州": L.PLACE}),  # planned
    ("我表哥在华为上班。", {"华为": L.ORG}),  # someone unnamed
    ("他在网易做运营。", {"网易": L.ORG}),  # a pronoun with nobody named
    ("韩梅和李雷都来了，他在网易做运营。", {"韩梅": L.PERSON, "李雷": L.PERSON, "网易": L.ORG}),
    ("我在杭州上班。", {"杭州": L.PLACE}),  # a place is no employer
    ("我在星巴克买了杯咖啡。", {"星巴克": L.ORG}),  # no work verb
    ("我在商场里看见一家新开的优衣库。", {"优衣库": L.ORG}),  # words that are not filler
    ("你那台华硕还能用吗", {"华硕": L.PRODUCT}),  # someone else's, and asked
]


@pytest.mark.parametrize(("text", "labels"), NOT_STATED)
def test_not_stated(grammar: ChineseGrammar, text: str, labels: dict[str, EntityLabel]) -> None:
    assert not find(grammar, text, **labels)


def test_filler(grammar: ChineseGrammar) -> None:
    assert grammar.filler("")
    assert grammar.filler("了三年")
    assert grammar.filler("一直")
    assert not grammar.filler("买了")
    assert not grammar.filler("，")


def test_clauses_split_at_connectives(grammar: ChineseGrammar) -> None:
    text = "我在京东干过，但是现在在家"
    assert [text[a:b] for a, b in grammar.clauses(text)] == ["我在京东干过", "，", "但是现在在家"]


def test_found_by_row_and_grammar_is_one() -> None:
    text = "我在海尔工作。"
    found = RelationExtractor().find(text, "zh", mentions(text, {"海尔": L.ORG}), "王芳")
    assert [(r.source.name, r.type.value, r.target.name) for r in found] == [
        ("王芳", "WORKS_AT", "海尔")
    ]


def test_unknown_class_is_a_configuration_error(tmp_path: Path) -> None:
    bad = tmp_path / "zh_grammar.json"
    frame = '{"id": "x", "shape": "verb", "type": "OWNS", "classes": ["NOPE"], "targets": ["ORG"]'
    bad.write_text(
        '{"filler_tags": [], "filler_words": [], "max_filler": 3, "clause_breaks": ["但是"],'
        f' "frames": [{frame}, "confidence": 0.7}}]}}',
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError, match="NOPE"):
        load_grammar.__wrapped__(bad)


def test_a_pronoun_alone_in_its_fact_is_the_one_named_just_before() -> None:
    grammar = ChineseGrammar()
    text = "他那台戴尔是真耐用。"
    said = mentions(text, {"戴尔": L.PRODUCT})
    context = Conversation(answers="李娜", recent=("赵鹏", "孙悦"), current=("赵鹏",))
    found = {
        (r.source.name, r.type.value, r.target.name)
        for r in grammar.find(text, said, "王芳", context)
    }
    assert ("赵鹏", "OWNS", "戴尔") in found
    # two people named lately and none in the message: nobody
    context = Conversation(answers="李娜", recent=("赵鹏", "孙悦"))
    assert not grammar.find(text, said, "王芳", context)


def test_a_pronoun_after_an_unnamed_kin_is_not_someone_named_earlier() -> None:
    grammar = ChineseGrammar()
    text = "我女朋友也在，她在华润做会计。"
    said = mentions(text, {"华润": L.ORG})
    context = Conversation(answers="李娜", recent=("赵鹏",), current=("赵鹏",))
    assert not grammar.find(text, said, "王芳", context)
