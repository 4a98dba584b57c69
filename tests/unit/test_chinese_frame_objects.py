"""Frame objects (service/nlp/entities/chinese_frames.py, nlp_models/zh_frame_objects.json): a
name the entity finder missed becomes a mention where a frame holds it as its object, typed by
the frame. Every sentence is written for this test; none is from an evaluation conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.core.errors import ConfigurationError
from service.nlp.entities.chinese import ChineseEntityFinder, merge_mentions
from service.nlp.entities.chinese_frames import FrameObjects, load_frame_objects
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.extractor import RelationExtractor

L = EntityLabel


@pytest.fixture(scope="module")
def finder() -> ChineseEntityFinder:
    return ChineseEntityFinder()


@pytest.fixture(scope="module")
def frames(finder: ChineseEntityFinder) -> FrameObjects:
    return FrameObjects(finder.word_counts)


def mentions(finder: ChineseEntityFinder, frames: FrameObjects, text: str) -> list[EntityMention]:
    """As EntityExtractor.extract reads Chinese: found, retyped by frames, frame objects."""
    words = finder.tokens(text)
    known = frames.retyped(text, words, finder.find(text))
    return merge_mentions(known, frames.find(text, words, known))


def names(finder: ChineseEntityFinder, frames: FrameObjects, text: str) -> dict[str, EntityLabel]:
    return {m.text: m.label for m in mentions(finder, frames, text)}


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        # 在 + object + work / study / live verb
        ("我在青松一中上班，教物理。", "青松一中", L.ORG),
        ("我表弟在华师大附中上学。", "华师大附中", L.ORG),
        # verb + object
        ("我女儿加入了红星舞蹈团，每周排练。", "红星舞蹈团", L.ORG),
        ("我毕业于南山外国语学校。", "南山外国语学校", L.ORG),
        ("上个月我们搬到了梅溪湖，离公司近。", "梅溪湖", L.PLACE),
        ("上周末我逛了万象城，人超多。", "万象城", L.PLACE),
        # a name-ending word types the object over the frame (音乐节: an event)
        ("我去年去了草莓音乐节，现场太嗨了。", "草莓音乐节", L.EVENT),
        # 是 + object + 的 + role
        ("她是星河幼儿园的老师。", "星河幼儿园", L.ORG),
        ("我们是绿野徒步社的成员。", "绿野徒步社", L.ORG),
    ],
)
def test_a_frame_object_becomes_a_mention(
    finder: ChineseEntityFinder,
    frames: FrameObjects,
    text: str,
    name: str,
    label: EntityLabel,
) -> None:
    assert names(finder, frames, text).get(name) is label


@pytest.mark.parametrize(
    "text",
    [
        "我在公司上班，挺累的。",  # a common noun alone
        "我在新公司上班。",  # a kind of company
        "我在家上班。",
        "我在这家店当店员。",  # a demonstrative
        "我用手机拍的。",
        "我昨天去了那边。",
        "我在他那儿住了三天。",  # a pronoun
        "我买了一些水果。",
        "我是今年的新生。",  # a time word
        "我们搬到了楼上。",
    ],
)
def test_no_object_that_is_no_name(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str
) -> None:
    proposed = frames.find(text, finder.tokens(text), finder.find(text))
    assert proposed == []


def test_a_known_mention_is_kept_when_the_object_adds_no_name_ending_word(
    finder: ChineseEntityFinder, frames: FrameObjects
) -> None:
    # 北京 is a place; 北京分部 is where the speaker works, not a new name
    assert "北京分部" not in names(finder, frames, "我在北京分部上班。")


def test_the_object_links_the_frame_relation() -> None:
    """The relation grammar finds the relation once the object is a mention."""
    finder, extractor = ChineseEntityFinder(), RelationExtractor()
    frames = FrameObjects(finder.word_counts)
    text = "我上个月加入了红星舞蹈团。"
    found = extractor.find(text, "zh", mentions(finder, frames, text), "王芳")
    assert ("王芳", "MEMBER_OF", "红星舞蹈团") in {
        (r.source.name, r.type.value, r.target.name) for r in found
    }


def test_a_frame_naming_an_unknown_class_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "frames.json"
    table.write_text(
        '{"filler": "", "verb_filler": "", "max_chars": 8, "ends": [], "frames": [{"id": "x",'
        ' "shape": "after", "classes": ["NO_SUCH_CLASS"], "label": "ORG", "confidence": 0.5}]}',
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError, match="NO_SUCH_CLASS"):
        load_frame_objects(table)


def test_a_frame_retypes_a_mention_jieba_only_guessed(
    finder: ChineseEntityFinder, frames: FrameObjects
) -> None:
    text = "我表姐在墨大读研。"  # jieba tags 墨大 a place; 在X读研 says a school
    known = finder.find(text)
    retyped = {m.text: m.label for m in frames.retyped(text, finder.tokens(text), known)}
    assert retyped.get("墨大") is L.ORG


def test_a_place_ending_outweighs_jieba_organisation_tag(finder: ChineseEntityFinder) -> None:
    assert {m.text: m.label for m in finder.find("西工区我住了很多年。")}.get("西工区") is L.PLACE


def relations(text: str, speaker: str = "王芳") -> set[tuple[str, str, str]]:
    finder, extractor = ChineseEntityFinder(), RelationExtractor()
    frames = FrameObjects(finder.word_counts)
    found = extractor.find(text, "zh", mentions(finder, frames, text), speaker)
    return {(r.source.name, r.type.value, r.target.name) for r in found}


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("老韩前年创立了云岭科技。", ("老韩", "CREATED", "云岭科技")),
        ("我去年开了一家青木书店。", ("王芳", "OWNS", "青木书店")),
    ],
)
def test_create_and_open_frames(text: str, relation: tuple[str, str, str]) -> None:
    assert relation in relations(text)


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("我女儿加入了红星舞蹈团。", "加入"),  # a verb after a kin word is no name
        ("我姐嫁到了苏州。", "嫁到"),
        ("研究生在浙大，本科在川大。", "研究生"),  # a common noun is no subject
        ("去年我去云南玩了一趟。", "一趟"),  # a count is no place
    ],
)
def test_no_relation_names_a_verb_a_kind_or_a_count(text: str, bad: str) -> None:
    assert not any(bad in (s, t) for s, _, t in relations(text))


def test_an_unnamed_kin_subject_is_not_the_speaker() -> None:
    """我姐嫁到了苏州: the sister lives there, not the speaker."""
    assert ("王芳", "LIVES_IN", "苏州") not in relations("我姐嫁到了苏州。")


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("我主要靠闲鱼赚点零花钱。", ("王芳", "USES", "闲鱼")),  # 靠 + a product: uses it
        # 十几个 is a count, not a question
        ("我们飞鸟乐队就十几个人。", ("王芳", "MEMBER_OF", "飞鸟乐队")),
        ("这家青山民宿我开了三年。", ("王芳", "OWNS", "青山民宿")),  # the shop first, then 我开了
    ],
)
def test_rely_on_counts_and_topic_own(text: str, relation: tuple[str, str, str]) -> None:
    assert relation in relations(text)


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("我现在住在翠湖花园。", "翠湖花园", L.PLACE),
        ("周末去了一趟云杉民宿。", "云杉民宿", L.ORG),
    ],
)
def test_venue_endings_join_the_name_before_them(
    finder: ChineseEntityFinder, text: str, name: str, label: EntityLabel
) -> None:
    assert {m.text: m.label for m in finder.find(text)}.get(name) is label


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("我们搬到了林溪镇。", "林溪镇", L.PLACE),  # jieba reads a person; 搬到 names a place
        ("我们搬到了高新区。", "高新区", L.PLACE),  # not 了高新区
    ],
)
def test_place_frames_over_name_guesses(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str, name: str, label: EntityLabel
) -> None:
    assert names(finder, frames, text).get(name) is label


def test_a_target_mention_cut_short_by_the_next_word() -> None:
    """每年在北京办: the place is 北京, not 北京办."""
    assert ("星光音乐节", "LOCATED_IN", "北京") in relations("星光音乐节每年在北京办。")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("下个月我们全家去鼓浪屿玩。", "鼓浪屿"),  # 去 + a rare noun + 玩: a place
        ("明天去万象城吃饭。", "万象城"),
    ],
)
def test_go_somewhere_to_play(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str, name: str
) -> None:
    assert names(finder, frames, text).get(name) is L.PLACE


@pytest.mark.parametrize("text", ["我们去医院看病。", "我下午去公司看看。", "我去食堂吃饭。"])
def test_go_to_a_common_place_names_nothing(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str
) -> None:
    assert frames.find(text, finder.tokens(text), finder.find(text)) == []


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("我表妹林可可去年结婚了。", "林可可", L.PERSON),  # a doubled given name
        ("我们去了西瓜音乐节。", "西瓜音乐节", L.EVENT),  # a common noun before 音乐节
    ],
)
def test_doubled_given_names_and_festivals(
    finder: ChineseEntityFinder, text: str, name: str, label: EntityLabel
) -> None:
    assert {m.text: m.label for m in finder.find(text)}.get(name) is label


def test_a_kin_with_a_doubled_given_name() -> None:
    assert ("王芳", "FAMILY_OF", "林可可") in relations("我表妹林可可去年结婚了。")


def test_a_doubled_adverb_is_no_name(finder: ChineseEntityFinder) -> None:
    assert not finder.find("王常常来这儿。")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我自己开了家花店，叫半夏花坊，生意还行。", "半夏花坊"),
        ("我们公司叫优品汇，做跨境电商。", "优品汇"),
        ("我在一家工作室上班，叫飞跃视觉。", "飞跃视觉"),  # a name after 叫, a verb first
        ("我加入了一个读书会叫青螺。", "青螺"),  # a club
        ("我加入了一个跑团叫夜跑侠。", "夜跑侠"),  # 夜, tagged a time, inside a given name
        ("他在老家开了个农家乐叫竹林小院。", "竹林小院"),  # what one opens; 竹林 is part of it
    ],
)
def test_what_a_shop_or_firm_is_called(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str, name: str
) -> None:
    assert names(finder, frames, text).get(name) is L.ORG


def test_what_an_app_is_called(finder: ChineseEntityFinder, frames: FrameObjects) -> None:
    """叫 + the name, to the clause's end, whatever its words (记 of 记一笔 is a verb)."""
    text = "他写了一个记账小程序，叫记一笔。"
    assert names(finder, frames, text).get("记一笔") is L.PRODUCT


@pytest.mark.parametrize("text", ["我家狗叫豆豆。", "那家店叫什么来着？"])
def test_called_after_no_shop_or_a_question_names_no_organisation(
    finder: ChineseEntityFinder, frames: FrameObjects, text: str
) -> None:
    assert frames.find(text, finder.tokens(text), finder.find(text)) == []


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        (
            "我们全家去年搬到了扬州。",
            ("王芳", "LIVES_IN", "扬州"),
        ),  # the household is the speaker's
        ("我和陈磊认识十年了。", ("王芳", "FRIEND_OF", "陈磊")),  # known for years: friends
    ],
)
def test_household_subject_and_known_for_years(text: str, relation: tuple[str, str, str]) -> None:
    assert relation in relations(text)


def test_a_number_after_know_is_no_friend() -> None:
    assert not any("二十" in t for _, _, t in relations("我跟小美认识快二十年了。"))


def test_an_event_named_first_then_what_the_speaker_did_there() -> None:
    """这次 + an event + 我跑了: the speaker was there."""
    assert ("王芳", "VISITED", "杭州马拉松") in relations("这次杭州马拉松我跑了全程。")
