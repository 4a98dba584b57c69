"""ChineseEntityFinder on sentences written for these tests, and merge_mentions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from service.core.errors import ConfigurationError
from service.nlp.entities.chinese import ChineseEntityFinder, merge_mentions
from service.nlp.entities.chinese_lexicon import ChineseLexicon, load_context_rules, load_suffixes
from service.nlp.entities.patterns import EntityLabel, EntityMention


@pytest.fixture(scope="module")
def finder() -> ChineseEntityFinder:
    return ChineseEntityFinder()


def found(finder: ChineseEntityFinder, text: str) -> dict[str, EntityLabel]:
    mentions = finder.find(text)
    for m in mentions:
        assert text[m.start : m.end] == m.text
        assert 0 < m.confidence <= 1
    return {m.text: m.label for m in mentions}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("王芳昨天加班到很晚。", "王芳"),
        ("我同事周杰下个月要结婚了。", "周杰"),
        ("嗨，陈静！好久不见。", "陈静"),
        ("周三我跟欧阳娜娜一起去看电影。", "欧阳娜娜"),
        ("老李说他儿子考上了研究生。", "老李"),
        ("小美推荐我去那家店。", "小美"),
        ("我闺蜜林小雨在那边做运营。", "林小雨"),
        ("我姐夫宋建国在银行上班。", "宋建国"),
        ("周六我叫上老周和小刘一起去。", "老周"),
        ("周六我叫上老周和小刘一起去。", "小刘"),
        ("王医生说没什么大问题。", "王医生"),
        ("你可以问问我表哥林浩然。", "林浩然"),
        ("女儿龙欣怡说想学画画。", "龙欣怡"),
        ("昨晚詹姆斯一个人得了四十分。", "詹姆斯"),
    ],
)
def test_names_in_plain_sentences_are_people(
    finder: ChineseEntityFinder, text: str, name: str
) -> None:
    assert found(finder, text).get(name) == EntityLabel.PERSON


def test_a_character_glued_to_a_name_is_cut_off(finder: ChineseEntityFinder) -> None:
    # jieba's HMM reads 许婷刚 as one name.
    assert found(finder, "我妹妹许婷刚换了工作。").get("许婷") == EntityLabel.PERSON


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("王芳在北京协和医院当护士。", "北京协和医院"),
        ("他考上了复旦大学，全家都很高兴。", "复旦大学"),
        ("我在招商银行工作三年了。", "招商银行"),
        ("商汤科技明年要招很多人。", "商汤科技"),
        ("小米集团发布了新手机。", "小米集团"),
        ("我带猫去了瑞鹏宠物医院。", "瑞鹏宠物医院"),
        # A club named by a brand, what it does and 团 / 队 / 社 (江城 + 夜 + 跑团).
        ("我们江城夜跑团好几个都报上名了", "江城夜跑团"),
        ("我进了咱们学校的追光街舞社", "追光街舞社"),
        ("她是飞鸟话剧社的台柱子", "飞鸟话剧社"),
        ("我在星火志愿团做义工", "星火志愿团"),
        ("我在给蓝湾科技远程打工", "蓝湾科技"),  # 给: working for it, no part of its name
    ],
)
def test_organisations_with_a_suffix(finder: ChineseEntityFinder, text: str, name: str) -> None:
    assert found(finder, text).get(name) == EntityLabel.ORG


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我们周末去西湖边散步。", "西湖"),
        ("晚上在河坊街吃了小吃。", "河坊街"),
        ("他老家在乐山，离成都不远。", "乐山"),
        ("他住在中山路附近。", "中山路"),
        ("学校旁边有个玄武湖，风景很好。", "玄武湖"),
        ("春节我们打算自驾去桂林。", "桂林"),
        ("我去过丽江古城，还挺商业化的。", "丽江古城"),
        ("我顺便去大唐不夜城逛逛。", "大唐不夜城"),
        ("她家离大雁塔不远。", "大雁塔"),
        ("周末我们去迪士尼玩。", "迪士尼"),
        ("从深圳湾口岸过去很方便。", "深圳湾口岸"),
        ("周末去了南京博物馆，人很多。", "南京博物馆"),
        ("晚上我们去愚园路吃饭。", "愚园路"),
    ],
)
def test_places(finder: ChineseEntityFinder, text: str, name: str) -> None:
    assert found(finder, text).get(name) == EntityLabel.PLACE


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我买了一台MacBook Pro，打算装Ubuntu系统。", "MacBook Pro"),
        ("我买了一台MacBook Pro，打算装Ubuntu系统。", "Ubuntu系统"),
        ("他的索尼A7C拍夜景很清楚。", "索尼A7C"),
        ("我们组一直用Kubernetes部署。", "Kubernetes"),
        ("我也一直用pytorch，调试方便。", "pytorch"),
        ("我爸换了iPhone 15，还不太会用。", "iPhone 15"),
        ("不是，是vivo X100，夜景很清楚。", "vivo X100"),
        ("我表弟上个月提了一辆Model Y。", "Model Y"),
        ("我想买个iPad Air记笔记。", "iPad Air"),
        ("上周刚提了辆海豹C11。", "海豹C11"),  # a brand after a measure word
        ("我姐夫开了辆极光X7。", "极光X7"),  # even a common word (极光)
    ],
)
def test_latin_products(finder: ChineseEntityFinder, text: str, name: str) -> None:
    assert found(finder, text).get(name) == EntityLabel.PRODUCT


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("他们公司用飞书办公。", "飞书", EntityLabel.PRODUCT),
        ("你现在也用抖音吧？", "抖音", EntityLabel.PRODUCT),
        ("我们公司在用钉钉打卡。", "钉钉", EntityLabel.PRODUCT),
        ("我妈喜欢在拼多多上买东西。", "拼多多", EntityLabel.PRODUCT),
        ("出门前在高德上查一下路况。", "高德", EntityLabel.PRODUCT),
        ("明天开会我们用腾讯会议吧。", "腾讯会议", EntityLabel.PRODUCT),
        ("回头你加我微信。", "微信", EntityLabel.PRODUCT),
        ("我每个月在支付宝上定投。", "支付宝", EntityLabel.PRODUCT),
        ("最近在看《长安的荔枝》，挺好看。", "长安的荔枝", EntityLabel.PRODUCT),
        ("我朋友刚从字节跳动离职。", "字节跳动", EntityLabel.ORG),
        ("你之前不是在抖音组吗？", "抖音", EntityLabel.PRODUCT),
        ("他最近迷上了原神，天天熬夜。", "原神", EntityLabel.PRODUCT),
        ("京东方的总部在北京。", "京东方", EntityLabel.ORG),
        ("他去年从网易离职了。", "网易", EntityLabel.ORG),
        ("她在武汉华中科技大学读研。", "武汉华中科技大学", EntityLabel.ORG),
        ("我报名了成都马拉松，十月跑。", "成都马拉松", EntityLabel.EVENT),  # a kind of event
        ("我在科沃斯干了三年多。", "科沃斯", EntityLabel.ORG),  # 在 + a work verb
        ("她是货拉拉的HR，专门招司机。", "货拉拉", EntityLabel.ORG),  # 是X的 + a job
        ("上个月刚提了辆极氪，开着挺顺。", "极氪", EntityLabel.PRODUCT),  # bought, a measure word
    ],
)
def test_unknown_words_where_the_context_expects_a_name(
    finder: ChineseEntityFinder, text: str, name: str, label: EntityLabel
) -> None:
    assert found(finder, text).get(name) == label


@pytest.mark.parametrize(
    "text",
    [
        "哈哈，太好了！谢谢你，明天见！",
        "早上好！好的好的，没问题。",
        "嗯，然后呢？但是这个有点贵。",
        "恭喜恭喜，厉害了！",
        "我老公下周三回来，我妹妹明年毕业。",
        "我在一家游戏公司上班，用电脑写代码。",
        "你明白我的意思吗？这个城市很美丽。",
        "周末好！明天带孩子去动物园看熊猫。",
        "顾客都在抱怨，孙子也不爱吃，陈旧的做法得改。",
        "也许老师会来，黄金周人太多了。",
        "我在回家路上，等会儿去公园散步。",
        "他在一家外企上班，人挺老实的。",
        "测试一直在提bug，ok，我改。",
        "他说 see you every day，我也是。",
        "周末带孩子去公园玩滑梯，他迷上了打游戏。",
        "小区门口的保安说明天停水。",
        "哎呀，急死我了！笑死，可不是嘛。",
        "行行行，周六就周六！我先走了。",  # an answer said thrice
        "姥姥家那台电视还是我修的。",  # a relative's home
        "我们队今天赢了，社区志愿队也来了。",  # a team with no name
        "晚上去看话剧社演出。",  # 看话 is no brand
        "我报名了市马拉松志愿者。",  # jieba's 了市 opens no race
    ],
)
def test_junk_is_never_an_entity(finder: ChineseEntityFinder, text: str) -> None:
    assert found(finder, text) == {}


def test_a_street_suffix_inside_a_verb_ends_no_place(finder: ChineseEntityFinder) -> None:
    """去X逛街: 街 belongs to the verb 逛街, so X逛街 is no street."""
    assert not any(m.text.endswith("逛街") for m in finder.find("周末一般去金桂城逛街。"))


def test_mentions_do_not_overlap_and_the_longer_wins(finder: ChineseEntityFinder) -> None:
    mentions = finder.find("我在小红书上找了一家店，又用高德地图导航过去。")
    assert [m.text for m in mentions] == ["小红书", "高德地图"]


def test_only_a_place_takes_li_as_part_of_its_name(finder: ChineseEntityFinder) -> None:
    assert "余额宝" in found(finder, "我把钱都放在余额宝里了。")


def test_find_is_deterministic(finder: ChineseEntityFinder) -> None:
    text = "王芳在北京协和医院当护士，她老公在华为公司上班。"
    assert finder.find(text) == finder.find(text)


def mention(text: str, start: int, extractor: str) -> EntityMention:
    return EntityMention(text, EntityLabel.ORG, start, start + len(text), extractor, 0.9)


def test_merge_keeps_the_longer_of_overlapping_mentions() -> None:
    primary = [mention("腾讯", 2, "pattern"), mention("深圳", 10, "pattern")]
    extra = [mention("腾讯科技", 2, "jieba"), mention("北京", 20, "jieba")]
    merged = merge_mentions(primary, extra)
    assert [(m.text, m.extractor) for m in merged] == [
        ("腾讯科技", "jieba"),
        ("深圳", "pattern"),
        ("北京", "jieba"),
    ]


def test_merge_prefers_primary_between_equal_lengths() -> None:
    merged = merge_mentions([mention("华为", 0, "pattern")], [mention("华为", 0, "jieba")])
    assert [m.extractor for m in merged] == ["pattern"]
    shifted = merge_mentions([mention("为公", 1, "pattern")], [mention("华为", 0, "jieba")])
    assert [m.extractor for m in shifted] == ["pattern"]


def test_a_bad_suffix_line_names_the_file(tmp_path: Path) -> None:
    table = tmp_path / "suffixes.tsv"
    table.write_text("大学\tORG\tproper\n公司\tCOMPANY\tproper\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"suffixes\.tsv"):
        load_suffixes(table)


def test_a_bad_context_rule_names_the_file(tmp_path: Path) -> None:
    table = tmp_path / "rules.jsonl"
    table.write_text('{"id": "app", "label": "CONCEPT", "left": "用(", "right": "吧"}\n', "utf-8")
    with pytest.raises(ConfigurationError, match=r"rules\.jsonl"):
        load_context_rules(table)


def test_a_word_listed_as_not_an_entity_is_dropped(tmp_path: Path) -> None:
    lexicon = ChineseLexicon.load()
    stop = lexicon.not_entities | {"西湖"}
    finder = ChineseEntityFinder(dataclasses.replace(lexicon, not_entities=stop))
    assert "西湖" not in found(finder, "我们周末去西湖边散步。")


def test_a_place_in_a_phrase(finder: ChineseEntityFinder) -> None:
    """A city centre is the city's (柳州市中心 -> 柳州); a place before a style word describes
    a dish or an accent and names nothing (潮汕菜, 东北口音)."""
    assert found(finder, "我住在柳州市中心") == {"柳州": EntityLabel.PLACE}
    assert "潮汕" not in found(finder, "周末去吃潮汕菜吧")
    assert found(finder, "我去过柳州") == {"柳州": EntityLabel.PLACE}


def test_a_three_character_name_jieba_cut_short(finder: ChineseEntityFinder) -> None:
    """邱晓/nr 彤来/n: the given name's last character glued to the verb after it."""
    assert found(finder, "我朋友邱晓彤来了") == {"邱晓彤": EntityLabel.PERSON}
    assert found(finder, "王芳来了") == {"王芳": EntityLabel.PERSON}


def test_a_relation_verb_jieba_tags_as_a_name_is_none(finder: ChineseEntityFinder) -> None:
    """长大/ns, 扎根/ns: verbs of zh_relation_words.json, not places (sentences made up)."""
    for text in ("她从小在厦门长大。", "他们一家在贵阳扎根了。"):
        assert all(m.text not in ("长大", "扎根") for m in finder.find(text))


@pytest.mark.parametrize("text", ["我最喜欢绵阳的青禾火锅。", "楼下新开了家青禾米线。"])
def test_a_brand_before_a_dish_is_a_restaurant(finder: ChineseEntityFinder, text: str) -> None:
    names = found(finder, text)
    assert any(
        name.startswith("青禾") and label is EntityLabel.ORG for name, label in names.items()
    )


def test_a_town_before_a_dish_is_no_restaurant(finder: ChineseEntityFinder) -> None:
    """桂林米粉, 重庆火锅: a town's dish, not a shop's name."""
    assert "桂林米粉" not in found(finder, "桂林米粉真好吃。")


def test_a_clause_before_an_organisation_word_is_no_brand(finder: ChineseEntityFinder) -> None:
    names = found(finder, "他在昆山开了个公司，做模具。")
    assert not [name for name in names if "开了" in name]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("街口那家志强茶行开了二十年。", "志强茶行"),  # a shop by its owner's name
        ("我老婆在杭州移动上班。", "杭州移动"),  # a city's utility
        ("他在宁波公交开了十年车。", "宁波公交"),
    ],
)
def test_shops_and_utilities_are_organisations(
    finder: ChineseEntityFinder, text: str, name: str
) -> None:
    assert found(finder, text).get(name) == EntityLabel.ORG


def test_a_measure_word_does_not_open_a_name(finder: ChineseEntityFinder) -> None:
    assert "台大" not in found(finder, "他买了台大疆无人机。")
    assert found(finder, "她在台大读研究所。").get("台大") is not None


@pytest.mark.parametrize("text", ["瓷厂遗址在宜兴城东，离车站不远", "我家在市区，她家在郊区那一带"])
def test_where_in_a_place_is_no_place(finder: ChineseEntityFinder, text: str) -> None:
    assert not {"城东", "市区", "郊区", "一带"} & set(found(finder, text))


def test_a_group_is_not_joined_to_a_name_over_shi_or_a_common_noun(
    finder: ChineseEntityFinder,
) -> None:
    """陈晨是学校合唱团的: 是 is no group's doing, and 学校 says whose choir, names none."""
    names = found(finder, "陈晨是学校合唱团的。")
    assert names == {"陈晨": EntityLabel.PERSON}, names
    assert found(finder, "我参加了山城夜跑团。") == {"山城夜跑团": EntityLabel.ORG}
