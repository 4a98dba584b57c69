"""Entity linking without a database: one entity per thing, short forms, the gazetteer,
speakers as subjects, relation endpoints, legacy keys; and the names short forms come from."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.core.domain import Scope
from service.nlp.entities.directory import EntityDirectory
from service.nlp.entities.gazetteer import Gazetteer, batch_forms
from service.nlp.entities.link_rows import KnownEntity, LinkInput
from service.nlp.entities.linking import link
from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.entities.names import entity_key, short_forms
from service.nlp.relations.extractor import Endpoint, RelationMention, RelationType
from service.retrieval.query import relation_types

SCOPE = Scope(user_id="u")
AT = datetime(2026, 3, 2, 9, tzinfo=UTC)


def mention(text: str, source: str, label: EntityLabel = EntityLabel.ORG) -> EntityMention:
    start = source.index(text)
    return EntityMention(text, label, start, start + len(text), "test", 0.9)


def fact(memory_id: str, text: str, *mentions: EntityMention, **kwargs: object) -> LinkInput:
    return LinkInput(
        memory_id,
        text,
        str(kwargs.get("lang", "en")),
        "Alice",
        AT,
        list(mentions),
        list(kwargs.get("relations", [])),
    )  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("name", "kind", "expected"),
    [
        ("Acme Robotics", "ORG", ["acme"]),
        ("Finch Analytics", "ORG", ["finch"]),
        ("Jackson State", "ORG", []),  # "Jackson" is the town it is named for
        ("University of Washington", "ORG", ["uw"]),
        ("Zion National Park", "PLACE", ["zion"]),
        ("Rebecca Stone", "PERSON", ["rebecca", "becca", "becky", "reba"]),
        ("Paris", "PLACE", []),
        ("腾讯科技", "ORG", ["腾讯"]),
        ("阿里巴巴集团", "ORG", ["阿里巴巴", "阿里"]),
        ("浙江大学", "ORG", ["浙江", "浙大"]),
        ("杭州市", "PLACE", ["杭州"]),
        ("成都马拉松", "EVENT", ["成马"]),  # not 成都, the city
        ("江城大学附属医院", "ORG", ["江城医院"]),
        ("美的集团", "ORG", ["美的"]),
        ("比亚迪汽车", "ORG", ["比亚迪"]),
        ("招商银行", "ORG", ["招商", "招行"]),
        ("湖州丝绸大学", "ORG", ["湖州丝绸", "湖丝大", "丝大", "湖州丝大"]),
        ("青石镇瓷器大学", "ORG", ["青石镇瓷器", "青瓷大", "瓷大", "青石镇瓷大"]),
        ("滇南农林大学", "ORG", ["滇南农林", "滇农大", "农大", "滇南农大"]),
        ("中国农业银行", "ORG", ["中国农业", "中农行", "农行", "中国农行"]),
        ("上海交通大学", "ORG", ["上海交通", "上交大", "交大", "上海交大"]),
        ("华为Mate 60", "CONCEPT", ["mate 60"]),
        ("云杉互娱", "ORG", ["云杉"]),  # four characters, no suffix: the brand
        ("云杉花园", "PLACE", []),  # a place keeps its whole name
        ("塞尔达传说", "PRODUCT", ["塞尔达"]),  # a title by its first words
        ("王者荣耀", "PRODUCT", []),  # 王者 alone is a word of its own
        ("Uncle Ivo", "PERSON", ["ivo"]),  # a kin word or title is no first name
        ("Dr. Osei", "PERSON", ["osei"]),
        # an event by its kind's clipped word
        (
            "Ridgeley Blues Festival",
            "EVENT",
            ["ridgeley blues", "rbf", "ridgeley blues fest", "blues fest"],
        ),
        ("Harbourside Conference", "EVENT", ["harbourside", "harbourside conf"]),
        # the generic words an institution's name ends in
        ("Lakeview Regional Hospital", "ORG", ["lakeview", "lrh"]),
        ("Pinecrest Community College", "ORG", ["pinecrest", "pcc"]),
        # a name without its accents, as people type it
        ("Zürich", "PLACE", ["zurich"]),
        ("Andrés Ibáñez", "PERSON", ["andres ibanez", "andrés", "andres"]),
        ("千岛湖景区", "PLACE", ["千岛湖"]),  # not 千岛湖景, without 区 alone
        ("黄果树瀑布", "PLACE", ["黄果树"]),
    ],
)
def test_short_forms(name: str, kind: str, expected: list[str]) -> None:
    assert short_forms(name, kind) == expected


def test_a_chinese_person_is_called_by_given_name_family_name_and_title() -> None:
    forms = short_forms("王小明", "PERSON")
    assert forms[:6] == ["小明", "老王", "小王", "王哥", "王姐", "王叔"]
    assert {"明明", "阿明", "明哥", "明姐"} <= set(forms)
    assert {"王老师", "王总", "王主任"} <= set(forms)  # titles of nlp_models/zh_titles.txt


@pytest.mark.parametrize("name", ["崔主任", "王老师", "郑叔", "刘哥"])
def test_a_family_name_with_a_title_has_no_short_form(name: str) -> None:
    """崔主任 has no given name to shorten: 主任, 任任 or 哥哥 would name every 主任 and 哥."""
    assert short_forms(name, "PERSON") == []


def test_the_type_is_not_part_of_the_key_and_the_strongest_evidence_types_it() -> None:
    text_a, text_b = "Alice works at Acme Robotics.", "Acme Robotics is in Toronto."
    weak = EntityMention("Acme Robotics", EntityLabel.OTHER, 0, 13, "spacy:PROPN", 0.6)
    linked = link(
        SCOPE, [fact("m1", text_a, mention("Acme Robotics", text_a)), fact("m2", text_b, weak)], []
    )
    acme = [e for e in linked.entities if e.name == "Acme Robotics"]
    assert len(acme) == 1 and acme[0].type == "ORG"
    assert acme[0].key == entity_key(SCOPE, "acme robotics's")
    assert {m.key for m in linked.mentions if m.surface == "Acme Robotics"} == {acme[0].key}


def test_a_short_form_links_to_the_known_entity_and_says_so() -> None:
    known = KnownEntity(entity_key(SCOPE, "Halcyon Robotics"), "Halcyon Robotics", "ORG", 0.9)
    text = "Halcyon's headquarters are in Pittsburgh."
    linked = link(SCOPE, [fact("m1", text, mention("Halcyon", text))], [known])
    [row] = [m for m in linked.mentions if m.surface == "Halcyon"]
    assert (row.key, row.link) == (known.key, "short_form")
    [entity] = [e for e in linked.entities if e.key == known.key]
    assert "Halcyon" in entity.aliases and "halcyon" in entity.alias_keys


def test_a_full_name_links_to_the_person_it_shortens_not_to_a_namesake() -> None:
    father = KnownEntity(entity_key(SCOPE, "郑大海"), "郑大海", "PERSON", 0.9, ("老郑",))
    text = "我闺女郑悦也是那儿毕业的。"
    daughter = EntityMention("郑悦", EntityLabel.PERSON, 3, 5, "zh:name", 0.8)
    linked = link(SCOPE, [fact("m1", text, daughter, lang="zh")], [father])
    assert father.key not in {m.key for m in linked.mentions if m.surface == "郑悦"}
    ivo = KnownEntity(entity_key(SCOPE, "Ivo"), "Ivo", "PERSON", 0.9)
    text = "Uncle Ivo, when did you come to Chicago?"
    linked = link(SCOPE, [fact("m2", text, mention("Uncle Ivo", text, EntityLabel.PERSON))], [ivo])
    assert {m.key for m in linked.mentions if m.surface == "Uncle Ivo"} == {ivo.key}


def test_a_person_called_by_a_nickname_is_one_entity() -> None:
    # Nicknames from the nicknames package: those that begin as the name does.
    assert "doug" in short_forms("Douglas", "PERSON")
    assert "erin" not in short_forms("Aaron", "PERSON")  # a name of its own
    doug = KnownEntity(entity_key(SCOPE, "Doug"), "Doug", "PERSON", 0.9)
    text = "You're my only son-in-law, Douglas."
    said = mention("Douglas", text, EntityLabel.PERSON)
    linked = link(SCOPE, [fact("m1", text, said)], [doug])
    assert {m.key for m in linked.mentions if m.surface == "Douglas"} == {doug.key}
    nathan = KnownEntity(entity_key(SCOPE, "Nathan Ruiz"), "Nathan Ruiz", "PERSON", 0.9)
    text = "Nate still teaches eighth grade."
    linked = link(SCOPE, [fact("m2", text, mention("Nate", text, EntityLabel.PERSON))], [nathan])
    assert {m.key for m in linked.mentions if m.surface == "Nate"} == {nathan.key}


def test_a_place_is_not_the_short_form_of_an_organisation() -> None:
    university = KnownEntity(entity_key(SCOPE, "墨尔本大学"), "墨尔本大学", "ORG", 0.9)
    text = "墨尔本大学就在墨尔本市中心。"
    city = EntityMention("墨尔本", EntityLabel.PLACE, 7, 10, "zh:city", 0.8)  # a list of cities
    linked = link(SCOPE, [fact("m1", text, city, lang="zh")], [university])
    assert {e.name for e in linked.entities} >= {"墨尔本"}
    assert university.key not in {m.key for m in linked.mentions if m.surface == "墨尔本"}


def test_the_gazetteer_finds_known_names_ner_missed() -> None:
    forms = batch_forms([mention("Acme Robotics", "Acme Robotics")], ["Marcus"])
    gazetteer = Gazetteer(forms)
    found = gazetteer.find("Thanks marcus! ACME's office and Marcus's mark.", [])
    # A one-word name counts only capitalised; a possessive and another case still count.
    assert [(m.text, m.label) for m in found] == [
        ("ACME", EntityLabel.ORG),
        ("Marcus", EntityLabel.PERSON),
    ]
    assert gazetteer.find("Acme", [EntityMention("Acme", EntityLabel.ORG, 0, 4, "x", 1)]) == []


def test_first_person_mentions_the_speaker_as_subject() -> None:
    linked = link(
        SCOPE,
        [
            fact("m1", "We go way back."),
            fact("m2", "It rained."),
            fact("m3", "我在腾讯工作。", lang="zh"),
        ],
        [],
    )
    subjects = [(m.memory_id, m.surface, m.role) for m in linked.mentions]
    assert subjects == [("m1", "We", "subject"), ("m3", "我", "subject")]
    [alice] = [e for e in linked.entities if e.name == "Alice"]
    assert alice.type == "PERSON" and alice.key in linked.speakers
    # The speaker is kept even for memories that never mention her.
    assert linked.of({"m2"}).entities == [alice]


def test_relation_endpoints_become_mentions_and_junk_names_none() -> None:
    text = "My sister Emma studies at Carnegie Mellon."
    emma = Endpoint("Emma", EntityLabel.PERSON, 10, 14)
    cmu = mention("Carnegie Mellon", text)
    relations = [
        RelationMention(
            RelationType.FAMILY_OF, Endpoint("Alice", EntityLabel.PERSON), emma, "dep:kin", 0.8
        ),
        RelationMention(
            RelationType.STUDIES_AT,
            emma,
            Endpoint("Carnegie Mellon", EntityLabel.ORG, cmu.start, cmu.end),
            "dep:study",
            0.8,
        ),
        RelationMention(
            RelationType.USES,
            Endpoint("Alice", EntityLabel.PERSON),
            Endpoint("Yep", EntityLabel.OTHER),
            "dep:x",
            0.5,
        ),
    ]
    linked = link(SCOPE, [fact("m1", text, cmu, relations=relations)], [])
    names = {e.key: e.name for e in linked.entities}
    assert {(names[r.source_key], r.type, names[r.target_key]) for r in linked.relations} == {
        ("Alice", RelationType.FAMILY_OF, "Emma"),
        ("Emma", RelationType.STUDIES_AT, "Carnegie Mellon"),
    }
    assert "Yep" not in names.values()
    emma_rows = [m for m in linked.mentions if names[m.key] == "Emma"]
    assert emma_rows and {m.role for m in emma_rows} == {"relation"}


def _retyped(kind: RelationType, source: str, known_type: str, text: str) -> list[RelationType]:
    """The type a relation read as ``kind`` from ``source`` to Dayton is written with, once the
    scope knows ``source`` as ``known_type``."""
    known = KnownEntity(entity_key(SCOPE, source), source, known_type, 3.0)
    start, dayton = mention(source, text), mention("Dayton", text, EntityLabel.PLACE)
    read = RelationMention(
        kind,
        Endpoint(source, EntityLabel.PERSON, start.start, start.end),
        Endpoint("Dayton", EntityLabel.PLACE, dayton.start, dayton.end),
        "pattern:test",
        0.7,
    )
    linked = link(SCOPE, [fact("m1", text, start, dayton, relations=[read])], [known])
    return [r.type for r in linked.relations]


def test_a_home_whose_source_the_evidence_made_a_place_is_where_it_is() -> None:
    # Read while the name looked like a person's; the scope knows it as a place.
    text = "Millbrook Yards is out in Dayton."
    found = _retyped(RelationType.LIVES_IN, "Millbrook Yards", "PLACE", text)
    assert found == [RelationType.LOCATED_IN]


def test_where_a_person_is_is_their_home() -> None:
    # 老陈在顺德开了家店 reads a place of its subject; the subject is a person.
    found = _retyped(RelationType.LOCATED_IN, "Rosa", "PERSON", "Rosa opened a shop in Dayton.")
    assert found == [RelationType.LIVES_IN]


def test_legacy_type_keyed_entities_are_not_linked_to() -> None:
    legacy = KnownEntity("u\x1f\x1f\x1dORG\x1dacme", "Acme", "ORG", 0.9)
    text = "Acme hired me."
    linked = link(SCOPE, [fact("m1", text, mention("Acme", text))], [legacy])
    assert legacy.key not in {m.key for m in linked.mentions}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which city is the company Alice works for based in?", ("WORKS_AT", "LOCATED_IN")),
        ("Who is Marcus's sister?", ("FAMILY_OF",)),
        ("张伟的公司总部在哪个城市？", ("WORKS_AT", "LOCATED_IN")),
        ("How are you today?", ()),
    ],
)
def test_relation_words_of_a_question(question: str, expected: tuple[str, ...]) -> None:
    assert relation_types(question) == expected


def _said(memory_id: str, speaker: str, text: str, *mentions: EntityMention) -> LinkInput:
    return LinkInput(memory_id, text, "zh", speaker, AT, list(mentions))


def test_an_address_two_people_answer_to_names_the_one_who_replies() -> None:
    opening = "老孙，明天还出摊吗？"
    linked = link(
        SCOPE,
        [
            _said("m1", "郑立", opening, mention("老孙", opening, EntityLabel.PERSON)),
            _said("m2", "孙海平", "出，老地方见"),
            _said("m3", "孙小雨", "我也去帮忙"),
        ],
        [],
    )
    by_key = {e.key: e for e in linked.entities}
    addressed = next(m for m in linked.mentions if m.surface == "老孙")
    assert by_key[addressed.key].name == "孙海平"
    assert "老孙" not in {e.name for e in linked.entities}


def test_a_short_form_two_people_answer_to_stays_apart_outside_an_address() -> None:
    text = "昨天老孙说要出摊"
    linked = link(
        SCOPE,
        [
            _said("m1", "郑立", text, mention("老孙", text, EntityLabel.PERSON)),
            _said("m2", "孙海平", "出，老地方见"),
            _said("m3", "孙小雨", "我也去帮忙"),
        ],
        [],
    )
    assert "老孙" in {e.name for e in linked.entities}


def test_names_a_fact_says_are_one_are_one_entity() -> None:
    text = "Fitbit就是飞比，我一直戴着。"
    product = mention("Fitbit", text, EntityLabel.PRODUCT)
    linked = link(SCOPE, [fact("m1", text, product, mention("飞比", text), lang="zh")], [])
    [entity] = [e for e in linked.entities if e.name == "Fitbit"]
    assert "飞比" in entity.aliases
    assert {e.name for e in linked.entities} == {"Fitbit", "Alice"}


def test_a_name_before_a_possessive_is_no_other_name() -> None:
    text = "滨江就是杭州的一个区。"  # 杭州 owns 滨江, it is not called so
    mentions = [mention("滨江", text, EntityLabel.PLACE), mention("杭州", text, EntityLabel.PLACE)]
    linked = link(SCOPE, [fact("m1", text, *mentions, lang="zh")], [])
    assert {e.name for e in linked.entities} >= {"滨江", "杭州"}


def test_a_name_cut_at_its_hyphen_is_made_whole_by_a_known_name() -> None:
    gazetteer = Gazetteer(batch_forms([], ["Seo-yeon"]))
    text = "my gym buddy Seo-yeon is going pro"
    cut = EntityMention("Seo", EntityLabel.OTHER, 13, 16, "spacy:PERSON", 0.7)
    [whole] = gazetteer.widen(text, [cut])
    assert (whole.text, whole.end, whole.label) == ("Seo-yeon", 21, EntityLabel.PERSON)
    # A hyphenated word that is no known name stays as NER read it: "Google-owned".
    google = EntityMention("Google", EntityLabel.ORG, 0, 6, "spacy:ORG", 0.7)
    assert gazetteer.widen("Google-owned Waymo", [google]) == [google]


def test_part_of_a_name_the_batch_said_whole_is_made_whole() -> None:
    gazetteer = Gazetteer({"Kilnsey Run Club": EntityLabel.ORG, "Grand Canyon": EntityLabel.PLACE})
    text = "congrats! Kilnsey Run Club let me in"
    cut = EntityMention("Run Club", EntityLabel.OTHER, 18, 26, "spacy:ORG", 0.7)
    [whole] = gazetteer.widen(text, [cut])
    assert (whole.text, whole.start, whole.label) == ("Kilnsey Run Club", 10, EntityLabel.ORG)
    # an article is no part of a name, and a longer name holding another mention is not taken
    canyon = EntityMention("Grand Canyon", EntityLabel.PLACE, 13, 25, "spacy:LOC", 0.7)
    assert gazetteer.widen("we hiked the Grand Canyon", [canyon]) == [canyon]
    kilnsey = EntityMention("Kilnsey", EntityLabel.PLACE, 10, 17, "spacy:GPE", 0.7)
    assert gazetteer.widen(text, [kilnsey, cut]) == [kilnsey, cut]


def test_a_chinese_speaker_is_found_by_given_name() -> None:
    gazetteer = Gazetteer(batch_forms([], ["周文博"]))
    found = gazetteer.find("多亏文博帮忙。", [])
    assert [(m.text, m.label) for m in found] == [("文博", EntityLabel.PERSON)]


def _folded(*names: tuple[str, str], final: dict[str, str] | None = None) -> dict[str, str]:
    """fold_short_forms over drafts named and typed in order; ``final`` votes a type late."""
    directory = EntityDirectory(SCOPE)
    keys = {name: directory.link(name, label, 0.5, AT, votes=[]) for name, label in names}
    for name, label in (final or {}).items():
        directory.drafts[keys[name]].vote(label, 5.0)
    names_of = {key: name for name, key in keys.items()}
    return {names_of[a]: names_of[b] for a, b in directory.fold_short_forms().items()}


def test_a_short_form_is_folded_once_the_types_agree() -> None:
    # "Moonward Valley" read as a place claims no short form; the batch then made it a game.
    found = _folded(
        ("Moonward Valley", "PLACE"), ("Moonward", "PRODUCT"), final={"Moonward Valley": "PRODUCT"}
    )
    assert found == {"Moonward": "Moonward Valley"}


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ((("Rosa's Bakery", "ORG"), ("Rosa", "ORG")), {"Rosa": "Rosa's Bakery"}),  # its owner
        ((("Greta's Kitchen", "ORG"), ("Greta", "PERSON")), {}),  # a person, not the business
        ((("Bengaluru Comic Con", "EVENT"), ("Bengaluru", "PLACE")), {}),  # the city
    ],
)
def test_only_a_name_of_the_same_type_and_no_person_is_folded(
    names: tuple[tuple[str, str], ...], expected: dict[str, str]
) -> None:
    assert _folded(*names) == expected
