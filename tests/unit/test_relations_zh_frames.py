"""The Chinese relation frames over word classes (nlp_models/zh_relation_words.json), each on
sentences written for this test, not taken from any evaluation conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.core.errors import ConfigurationError
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.chinese_words import load_relation_words
from service.nlp.relations.extractor import RelationExtractor, RelationMention

L = EntityLabel


def find(
    finder: RelationExtractor, text: str, speaker: str = "王芳", **labels: EntityLabel
) -> set[tuple[str, str, str]]:
    """Relations of ``text`` with a mention of each name (searched in order)."""
    found, after = [], 0
    for name, label in labels.items():
        start = text.index(name, after)
        after = start + len(name)
        found.append(EntityMention(name, label, start, start + len(name), "test", 1.0))
    relations: list[RelationMention] = finder.find(text, "zh", found, speaker)
    return {(r.source.name, r.type.value, r.target.name) for r in relations}


FRAMES = [
    # 我们 + organisation / place / club: the speaker belongs to it or lives there
    ("我们京东今年也在招人。", {"京东": L.ORG}, ("王芳", "WORKS_AT", "京东")),
    ("我们青岛这两天一直下雨。", {"青岛": L.PLACE}, ("王芳", "LIVES_IN", "青岛")),
    ("我们星火读书社每周聚一次。", {"星火读书社": L.ORG}, ("王芳", "MEMBER_OF", "星火读书社")),
    # work verbs, durations, hiring
    ("我在海尔干了五年多了。", {"海尔": L.ORG}, ("王芳", "WORKS_AT", "海尔")),
    ("刚入职小鹏。", {"小鹏": L.ORG}, ("王芳", "WORKS_AT", "小鹏")),
    ("我进格力两年了。", {"格力": L.ORG}, ("王芳", "WORKS_AT", "格力")),
    ("我被平安银行录用了！", {"平安银行": L.ORG}, ("王芳", "WORKS_AT", "平安银行")),
    ("吴磊是中通的司机。", {"吴磊": L.PERSON, "中通": L.ORG}, ("吴磊", "WORKS_AT", "中通")),
    # residence
    ("我在昆明定居快十年了。", {"昆明": L.PLACE}, ("王芳", "LIVES_IN", "昆明")),
    ("搬到合肥三年了。", {"合肥": L.PLACE}, ("王芳", "LIVES_IN", "合肥")),
    ("我嫁到温州以后就没回过老家。", {"温州": L.PLACE}, ("王芳", "LIVES_IN", "温州")),
    ("鼓楼区我住了二十多年。", {"鼓楼区": L.PLACE}, ("王芳", "LIVES_IN", "鼓楼区")),
    ("我家在洛阳城郊。", {"洛阳": L.PLACE}, ("王芳", "LIVES_IN", "洛阳")),
    # where a thing is
    ("蔚来的上海分公司招人。", {"蔚来": L.ORG, "上海": L.PLACE}, ("蔚来", "LOCATED_IN", "上海")),
    (
        "苏州吴中那家味香面馆很有名。",
        {"吴中": L.PLACE, "味香面馆": L.ORG},
        ("味香面馆", "LOCATED_IN", "吴中"),
    ),
    ("福建晋江的鞋厂很多。", {"福建": L.PLACE, "晋江": L.PLACE}, ("晋江", "LOCATED_IN", "福建")),
    (
        "书博会每年秋天都在西安举办。",
        {"书博会": L.ORG, "西安": L.PLACE},
        ("书博会", "LOCATED_IN", "西安"),
    ),
    (
        "草莓音乐节是成都的老牌活动。",
        {"草莓音乐节": L.ORG, "成都": L.PLACE},
        ("草莓音乐节", "LOCATED_IN", "成都"),
    ),
    ("明德书店就开在南锣鼓巷里。", {"南锣鼓巷": L.PLACE}, ("明德书店", "LOCATED_IN", "南锣鼓巷")),
    ("宜家的仓库在廊坊。", {"宜家": L.ORG, "廊坊": L.PLACE}, ("宜家", "LOCATED_IN", "廊坊")),
    # creation, ownership
    ("面包房是我五年前开起来的。", {}, ("王芳", "CREATED", "面包房")),
    ("王者荣耀就是腾讯自己研发的。", {"腾讯": L.ORG}, ("腾讯", "CREATED", "王者荣耀")),
    ("上周刚提了辆问界M7。", {"问界M7": L.CONCEPT}, ("王芳", "OWNS", "问界M7")),
    ("家里刚添了台戴森吸尘器。", {"戴森": L.ORG}, ("王芳", "OWNS", "戴森")),
    ("我宿舍有台Switch。", {"Switch": L.CONCEPT}, ("王芳", "OWNS", "Switch")),
    (
        "那家悦来客栈就是老周的。",
        {"悦来客栈": L.ORG, "老周": L.PERSON},
        ("老周", "OWNS", "悦来客栈"),
    ),
    ("这家小面馆我开了八年了。", {"小面馆": L.ORG}, ("王芳", "OWNS", "小面馆")),
    # family and friends
    ("我小姨子孙悦下个月结婚。", {}, ("王芳", "FAMILY_OF", "孙悦")),
    ("我家闺女陈果今年上初中。", {}, ("王芳", "FAMILY_OF", "陈果")),
    ("杨帆是我羽毛球搭子。", {}, ("王芳", "FRIEND_OF", "杨帆")),
    # the one just named goes on as the subject
    ("这是我侄子刘洋，刚考上南开大学。", {"南开大学": L.ORG}, ("刘洋", "STUDIES_AT", "南开大学")),
    ("她考进了市青少年合唱团。", {}, None),
    ("邓超考进了少年宫合唱团。", {"邓超": L.PERSON}, ("邓超", "MEMBER_OF", "少年宫合唱团")),
    ("我是川大新闻专业的学生。", {}, ("王芳", "STUDIES_AT", "川大")),
    # visits, likes, uses
    ("去年国庆我去大理玩了一圈。", {"大理": L.PLACE}, ("王芳", "VISITED", "大理")),
    ("我前天刚逛完车展的新能源馆。", {"车展": L.ORG}, ("王芳", "VISITED", "车展")),
    ("我超爱你们山里红的果酱。", {}, ("王芳", "LIKES", "山里红")),
    ("我最爱唱邓丽君。", {"邓丽君": L.PERSON}, ("王芳", "LIKES", "邓丽君")),
    ("我记账还是用随手记。", {"随手记": L.CONCEPT}, ("王芳", "USES", "随手记")),
    ("我把店挂到美团上以后生意好多了。", {"美团": L.ORG}, ("王芳", "USES", "美团")),
]


@pytest.mark.parametrize(("text", "labels", "expected"), FRAMES)
def test_chinese_frame(
    finder: RelationExtractor,
    text: str,
    labels: dict[str, EntityLabel],
    expected: tuple[str, str, str] | None,
) -> None:
    found = find(finder, text, **labels)
    if expected is None:
        assert not any(t[0] in {"她", "王芳"} for t in found)
    else:
        assert expected in found


NOT_FRAMES = [
    ("我们北京见吧。", {"北京": L.PLACE}),  # a meeting place, not a home
    ("我打算明年去丽江玩。", {"丽江": L.PLACE}),  # a plan, no past word
    ("我用了好多年了。", {}),  # a duration is no tool
    ("我侄女以后要当医生。", {}),  # 以后 is no name
    ("你在海尔干了几年了？", {"海尔": L.ORG}),  # a question
]


@pytest.mark.parametrize(("text", "labels"), NOT_FRAMES)
def test_chinese_frame_does_not_fire(
    finder: RelationExtractor, text: str, labels: dict[str, EntityLabel]
) -> None:
    assert not any(
        source == "王芳" or target in {"以后", "好多年了"}
        for source, _, target in find(finder, text, **labels)
    )


def test_head_words_decide_the_type() -> None:
    words = load_relation_words()
    assert words.head_type("星火读书社") == "MEMBER_OF"
    assert words.head_type("南开大学") == "STUDIES_AT"
    assert words.head_type("美团") is None  # a two-character name is no X团


def test_a_bad_word_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "words.json"
    path.write_text('{"classes": {"kin": ["妹妹"]}}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="macro name"):
        load_relation_words(path)


def test_the_two_of_us_are_the_speaker_and_whom_they_answer(finder: RelationExtractor) -> None:
    for text in ("咱俩二十年老同学了，客气啥。", "我俩在南开当室友那会儿天天熬夜。"):
        relations = finder.find(text, "zh", [], "王芳", addressee="李娜")
        assert {(r.source.name, r.type.value, r.target.name) for r in relations} == {
            ("王芳", "FRIEND_OF", "李娜")
        }
        assert finder.find(text, "zh", [], "王芳") == []  # nobody answered: nothing


def test_a_department_is_no_employer(finder: RelationExtractor) -> None:
    """A department no mention names is a part of an employer: no WORKS_AT of its own; one
    after the employer's name in the same phrase gives the employer."""
    assert not any(r[1] == "WORKS_AT" for r in find(finder, "我现在在结算中心做审核。"))
    assert not any(r[1] == "WORKS_AT" for r in find(finder, "他在研发部做测试。"))
    assert find(finder, "我在蓝鲸银行结算中心做审核。", 蓝鲸银行=L.ORG) >= {
        ("王芳", "WORKS_AT", "蓝鲸银行")
    }
    # A club or a site is no department: 俱乐部 ends in 部.
    assert any(r[2] == "星海俱乐部" for r in find(finder, "我在星海俱乐部当教练。"))


def test_a_phrase_is_no_name(finder: RelationExtractor) -> None:
    """A kin's "name" with a verb and a time word in it, or a named subject run on into its
    verb, is no endpoint (sentences made up)."""
    names = {r.target.name for r in finder.find("我爸退休前是市二中的老师。", "zh", [], "王芳")}
    assert "退休前" not in names
    found = find(finder, "邓超毕业以后留在了厦门。", 邓超=L.PERSON, 厦门=L.PLACE)
    assert not any(source == "邓超毕业" for source, _, _ in found)


def test_a_duration_is_no_place_and_a_clause_of_time_no_subject() -> None:
    extractor = RelationExtractor()
    text = "我在苏州住了六年了，毕业后留在了苏州。"
    start = text.index("苏州")
    city = EntityMention("苏州", EntityLabel.PLACE, start, start + 2, "test", 0.9)
    again = text.index("苏州", start + 1)
    city2 = EntityMention("苏州", EntityLabel.PLACE, again, again + 2, "test", 0.9)
    found = {
        (r.source.name, r.type.value, r.target.name)
        for r in extractor.find(text, "zh", [city, city2], "王芳")
    }
    assert ("王芳", "LIVES_IN", "苏州") in found
    assert not {t for s, _, t in found if t == "六年"}
    assert not {s for s, _, _ in found if "毕业" in s}


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        # a target starts at a name, not inside it
        ("我最爱喝茶百道。", {"茶百道": EntityLabel.ORG}, ("王芳", "LIKES", "茶百道")),
        # a place, then what one does there: the place, not a school named 广州读大学
        ("我后来去了厦门读大学。", {"厦门": EntityLabel.PLACE}, ("王芳", "VISITED", "厦门")),
    ],
)
def test_a_target_is_the_name_it_overlaps(
    text: str, labels: dict[str, EntityLabel], expected: tuple[str, str, str]
) -> None:
    said = []
    for name, label in labels.items():
        start = text.index(name)
        said.append(EntityMention(name, label, start, start + len(name), "test", 0.9))
    found = {
        (r.source.name, r.type.value, r.target.name)
        for r in RelationExtractor().find(text, "zh", said, "王芳")
    }
    assert expected in found
    assert all(not target.startswith(("这", "那")) for _, _, target in found)


def test_a_demonstrative_names_nothing() -> None:
    found = RelationExtractor().find("这家面包房是我五年前开起来的。", "zh", [], "王芳")
    assert not [r for r in found if r.target.name.startswith("这")]


def test_a_named_owner_before_that_and_a_measure_word_owns_the_product(
    finder: RelationExtractor,
) -> None:
    """韩冰那块卡西欧, 他那台大疆: a rule reads it, not only the learned reader's guess."""
    text = "韩冰那块卡西欧走得真准。"
    mentions = [
        EntityMention("韩冰", EntityLabel.PERSON, 0, 2, "test", 1.0),
        EntityMention("卡西欧", EntityLabel.PRODUCT, 4, 7, "test", 1.0),
    ]
    found = finder.find(text, "zh", mentions, "王芳")
    assert any(
        (r.source.name, r.type.value, r.target.name) == ("韩冰", "OWNS", "卡西欧")
        and r.extractor.startswith("pattern:")
        for r in found
    ), found
