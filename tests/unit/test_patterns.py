"""The pattern table and entity extraction, English and Chinese."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span

from service.core.errors import ConfigurationError
from service.embedding.manifest import resolve_model_path
from service.nlp.entities.patterns import (
    NER_LABELS,
    RULER_NAME,
    EntityExtractor,
    EntityLabel,
    EntityMention,
    PatternRow,
    casefold_name,
    detect_lang,
    load_patterns,
    load_stop_entities,
    trim_span,
    whole_name,
)

ROWS = {row.id: row for row in load_patterns()}
STOP = load_stop_entities()

# (row id, language, sentence, the entity the row must yield there)
CONTEXT_EXAMPLES = [
    ("en_my_name_is", "en", "Hi, my name is Melanie Smith and I paint.", "Melanie Smith"),
    ("en_my_name_is", "en", "My name's Tom.", "Tom"),
    ("en_call_me", "en", "Call me Ishmael.", "Ishmael"),
    ("en_i_am_name", "en", "Hi, I'm Melanie.", "Melanie"),
    ("en_i_am_name", "en", "I’m Caroline, nice to meet you.", "Caroline"),
    ("en_works_at", "en", "I work at the New York Times.", "New York Times"),
    ("en_works_at", "en", "They worked at OpenAI.", "OpenAI"),
    ("en_works_at", "en", "I worked for Goldman Sachs & Co before.", "Goldman Sachs & Co"),
    ("en_lives_in", "en", "My sister lives in San Francisco.", "San Francisco"),
    ("en_moved_to", "en", "We moved to Berlin last year.", "Berlin"),
    ("en_grew_up_in", "en", "I grew up in Ohio.", "Ohio"),
    ("en_i_am_from", "en", "I'm from the Netherlands.", "Netherlands"),
    ("en_uses_x", "en", "At work I use Figma every day.", "Figma"),
    ("en_uses_x", "en", "I'm learning Japanese.", "Japanese"),
    ("en_loves_x", "en", "I really enjoy Minecraft.", "Minecraft"),
    ("zh_my_name_is", "zh", "我叫李明，我在阿里巴巴集团工作。", "李明"),
    ("zh_my_name_is", "zh", "我的名字是欧阳娜娜。", "欧阳娜娜"),
    ("zh_my_name_is", "zh", "我叫Tom，来自美国。", "Tom"),
    ("zh_i_am_name", "zh", "大家好，我是张伟。", "张伟"),
    ("zh_person_says", "zh", "张伟说明天下雨", "张伟"),
    ("zh_person_says", "zh", "我朋友王小明觉得这个方案不错。", "王小明"),
    ("zh_person_says", "zh", "老王认为没问题。", "老王"),
    ("zh_org_company", "zh", "我从腾讯公司离职了。", "腾讯公司"),
    ("zh_org_company", "zh", "她去了华为技术有限公司。", "华为技术有限公司"),
    ("zh_org_tech", "zh", "我在大疆科技实习过。", "大疆科技"),
    ("zh_org_group", "zh", "我叫李明，我在阿里巴巴集团工作。", "阿里巴巴集团"),
    ("zh_org_latin_suffix", "zh", "我在Acme Inc工作。", "Acme Inc"),
    ("zh_place_major_city", "zh", "上个月我去了上海。", "上海"),
    ("zh_place_country", "zh", "他来自美国。", "美国"),
    ("zh_place_admin_area", "zh", "我住在北京市海淀区。", "北京市"),
    ("zh_place_admin_area", "zh", "她去杭州市出差。", "杭州市"),
    ("zh_place_admin_area", "zh", "他来自浙江省。", "浙江省"),
    ("zh_org_work_at", "zh", "去年我在Google工作。", "Google"),
    ("zh_org_work_at", "zh", "我在字节跳动上班。", "字节跳动"),
    ("zh_concept_verb_latin", "zh", "我喜欢用React框架", "React"),
    ("zh_concept_verb_latin", "zh", "我在学Node.js。", "Node.js"),
    ("zh_concept_verb_han", "zh", "我讨厌加班。", "加班"),
    ("zh_concept_verb_han", "zh", "我在学习机器学习。", "机器学习"),
    ("zh_concept_verb_han", "zh", "我可喜欢青鸟了。", "青鸟"),  # 了 closes the clause
    ("zh_concept_framework", "zh", "这个项目基于Django框架。", "Django"),
    ("zh_concept_language", "zh", "Go语言的并发很好写。", "Go"),
    ("zh_concept_tool", "zh", "Docker工具很方便。", "Docker"),
    ("zh_concept_library", "zh", "处理表格时pandas库最顺手。", "pandas"),
    ("zh_concept_known_tech", "zh", "数据库是PostgreSQL。", "PostgreSQL"),
    ("zh_relative_week", "zh", "下周去杭州。", "下周"),
    ("zh_relative_week", "zh", "下个星期三我们见面。", "下个星期三"),
    ("zh_relative_month", "zh", "上个月我去了上海。", "上个月"),
    ("zh_relative_year", "zh", "去年我换了工作。", "去年"),
    ("zh_year_month", "zh", "2024年5月我加入了新团队。", "2024年5月"),
    ("zh_month_day", "zh", "5月3日去深圳出差。", "5月3日"),
]

# Known-term rows (a phrase, or one token such as {"ORTH": "React"}) fire on the term in a
# neutral sentence; a sentence given here replaces the template.
TERM_TEMPLATES = {"en": "We talked about {} for a while.", "zh": "我们周末聊了聊{}的事。"}
TERM_SENTENCES = {"en_tech_ruby": "I write Ruby at work."}


def _term(row: PatternRow) -> str | None:
    if isinstance(row.pattern, str):
        return row.pattern
    if isinstance(row.pattern, list) and len(row.pattern) == 1:
        token = row.pattern[0]
        term = token.get("ORTH", token.get("LOWER"))
        return term if isinstance(term, str) else None
    return None


def _examples() -> list[tuple[str, str, str, str]]:
    examples = list(CONTEXT_EXAMPLES)
    for row in ROWS.values():
        term = _term(row)
        if term is not None:
            sentence = TERM_SENTENCES.get(row.id, TERM_TEMPLATES[row.lang].format(term))
            examples.append((row.id, row.lang, sentence, term))
    return examples


EXAMPLES = _examples()


@pytest.fixture(scope="module")
def extractor() -> EntityExtractor:
    return EntityExtractor(spacy.load(resolve_model_path("en_core_web_sm", "spacy")))


def _found(mentions: list[EntityMention]) -> set[tuple[str, str]]:
    return {(m.text, m.label) for m in mentions}


def _write_rows(path: Path, rows: Sequence[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


# The table


def test_every_row_has_a_firing_example() -> None:
    covered = {row_id for row_id, *_ in EXAMPLES}
    assert set(ROWS) - covered == set()
    assert set(TERM_SENTENCES) <= set(ROWS)


def test_table_covers_both_languages_and_every_label() -> None:
    for lang in ("en", "zh"):
        labels = {row.label for row in ROWS.values() if row.lang == lang}
        assert labels >= {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE}
        assert EntityLabel.CONCEPT in labels
    assert any(row.label == EntityLabel.TEMPORAL for row in ROWS.values())


@pytest.mark.parametrize(("row_id", "lang", "sentence", "expected"), EXAMPLES)
def test_row_fires_on_its_example(
    extractor: EntityExtractor, row_id: str, lang: str, sentence: str, expected: str
) -> None:
    mentions = extractor.extract(sentence, lang)
    fired = {(m.text, m.label) for m in mentions if m.extractor == f"pattern:{row_id}"}
    assert (expected, ROWS[row_id].label) in fired, mentions


# Chinese, the classic forms


def test_chinese_name_and_company(extractor: EntityExtractor) -> None:
    found = _found(extractor.extract("我叫李明，我在阿里巴巴集团工作。", "zh"))
    assert found == {("李明", EntityLabel.PERSON), ("阿里巴巴集团", EntityLabel.ORG)}


def test_chinese_framework_yields_the_name_alone(extractor: EntityExtractor) -> None:
    assert _found(extractor.extract("我喜欢用React框架", "zh")) == {("React", EntityLabel.PRODUCT)}


def test_chinese_speaker_and_no_entity_for_tomorrow(extractor: EntityExtractor) -> None:
    mentions = extractor.extract("张伟说明天下雨", "zh")
    assert _found(mentions) == {("张伟", EntityLabel.PERSON)}


@pytest.mark.parametrize(
    "sentence",
    [
        "我去超市买菜。",
        "他在这家公司上班。",
        "我是学生。",
        "和他说了。",
        "马上说吧。",
    ],
)
def test_chinese_everyday_sentences_yield_nothing(
    extractor: EntityExtractor, sentence: str
) -> None:
    assert extractor.extract(sentence, "zh") == []


# English


def test_spacy_labels_map_to_ours(extractor: EntityExtractor) -> None:
    mentions = extractor.extract("Barack Obama visited Microsoft in Seattle.", "en")
    assert {(m.text, m.label, m.extractor) for m in mentions} == {
        ("Barack Obama", EntityLabel.PERSON, "spacy:PERSON"),
        ("Microsoft", EntityLabel.ORG, "spacy:ORG"),
        ("Seattle", EntityLabel.PLACE, "spacy:GPE"),
    }
    assert all(m.confidence == 0.85 for m in mentions)


@pytest.mark.parametrize(("ner_label", "ours"), [*NER_LABELS.items(), ("CARDINAL", None)])
def test_every_ner_label_maps_or_drops(
    extractor: EntityExtractor, ner_label: str, ours: EntityLabel | None
) -> None:
    doc = extractor.english.make_doc("Blue Harbour was there")
    doc.ents = [Span(doc, 0, 2, label=ner_label)]
    mentions = extractor.extract_doc(doc)
    assert [m.label for m in mentions] == ([] if ours is None else [ours])


def test_a_proper_noun_hung_elsewhere_before_a_club_is_its_first_word(
    extractor: EntityExtractor,
) -> None:
    # The small parser made "Kilnsey" a preposition of "founded", and NER read "Run Club".
    words = ["Deb", "founded", "Kilnsey", "Run", "Club", "in", "2019"]
    pos = ["PROPN", "VERB", "PROPN", "PROPN", "PROPN", "ADP", "NUM"]
    deps = ["nsubj", "ROOT", "prep", "compound", "pobj", "prep", "pobj"]
    heads = [1, 1, 1, 4, 2, 1, 5]
    doc = Doc(extractor.english.vocab, words=words, pos=pos, deps=deps, heads=heads)
    assert whole_name(Span(doc, 3, 5)).text == "Kilnsey Run Club"
    # the subject before a name is no part of it: "Deb Run Club" is not read
    assert whole_name(Span(doc, 0, 1)).text == "Deb"
    subject = Doc(
        extractor.english.vocab,
        words=["Deb", "Run", "Club"],
        pos=["PROPN", "PROPN", "PROPN"],
        deps=["nsubj", "compound", "ROOT"],
        heads=[2, 2, 2],
    )
    assert whole_name(Span(subject, 1, 3)).text == "Run Club"


def test_numbers_money_and_percentages_are_dropped(extractor: EntityExtractor) -> None:
    doc = extractor.english("I have three cats, 20 dollars and it is 50 percent done.")
    assert {ent.label_ for ent in doc.ents} & {"CARDINAL", "MONEY", "PERCENT"}
    assert extractor.extract_doc(doc) == []


def test_pattern_wins_over_overlapping_ner(extractor: EntityExtractor) -> None:
    # NER reads OpenAI as a place and keeps "the" in the newspaper's name.
    mentions = extractor.extract("They worked at OpenAI. I work at the New York Times.", "en")
    assert {(m.text, m.label, m.extractor) for m in mentions} == {
        ("OpenAI", EntityLabel.ORG, "pattern:en_works_at"),
        ("New York Times", EntityLabel.ORG, "pattern:en_works_at"),
    }


def test_progressive_verb_is_not_a_hobby(extractor: EntityExtractor) -> None:
    assert extractor.extract("I'm running late.", "en") == []
    assert _found(extractor.extract("I love running.", "en")) == {("running", "CONCEPT")}


def test_a_hobby_word_inside_a_capitalised_name_is_part_of_it(extractor: EntityExtractor) -> None:
    names = _found(extractor.extract("Noor designed the logo for Juniper Yoga.", "en"))
    assert ("Juniper Yoga", "OTHER") in names and ("Yoga", "CONCEPT") not in names
    assert _found(extractor.extract("Yoga is my thing.", "en")) == {("Yoga", "CONCEPT")}
    names = _found(extractor.extract("Ama is part of the Brooklyn Running Club.", "en"))
    assert ("Running", "CONCEPT") not in names


def test_no_name_holds_a_lower_case_verb(extractor: EntityExtractor) -> None:
    doc = extractor.english("Wren loves Arsenal.")
    doc.ents = [Span(doc, 0, 3, label="ORG")]  # NER's one name over the verb
    assert [m.text for m in extractor.extract_doc(doc)] == ["Wren", "Arsenal"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Tickets BOOKED, hotel sorted, see you in Ghent.", {"Ghent"}),
        ("The parcel says FRAGILE and came crushed.", set()),
        ("SHUT UP Priyanka, no way!", {"Priyanka"}),
        # Acronyms, and a shouted noun that may be a brand's name in capitals, stay.
        ("My cousin drives for UPS now.", {"UPS"}),
        ("I interned at the NHS in Leeds.", {"NHS", "Leeds"}),
    ],
)
def test_shouted_words_are_no_names(extractor: EntityExtractor, text: str, kept: set[str]) -> None:
    assert {m.text for m in extractor.extract(text, "en")} >= kept
    assert {m.text for m in extractor.extract(text, "en")} <= kept


def test_shouted_words_at_a_names_edge_are_cut_off(extractor: EntityExtractor) -> None:
    doc = extractor.english("Bags PACKED, passport ready, Nkechi is driving us.")
    doc.ents = [Span(doc, 0, 2, label="PERSON"), Span(doc, 6, 7, label="PERSON")]
    assert "PACKED" not in {t for m in extractor.extract_doc(doc) for t in m.text.split()}
    doc = extractor.english("We got the KEYS COLLECTED today")
    doc.ents = [Span(doc, 3, 5, label="ORG")]  # the whole shout: nothing, not "KEYS"
    assert extractor.extract_doc(doc) == []


def test_lower_case_go_and_a_person_called_ruby_are_not_tools(extractor: EntityExtractor) -> None:
    mentions = extractor.extract("Ruby said we should go. Go home now.", "en")
    assert all(m.label != EntityLabel.CONCEPT for m in mentions)


def test_a_lower_case_common_word_is_no_name(extractor: EntityExtractor) -> None:
    # NER's "bin" of "a chilly bin" takes an article; a lower-case tool's name takes none.
    doc = extractor.english("I'll bring Wei and a chilly bin")
    doc.ents = [Span(doc, len(doc) - 1, len(doc), label="ORG")]
    assert "bin" not in {m.text for m in extractor.extract_doc(doc)}
    doc = extractor.english("I mostly use pandas for the cleaning")
    doc.ents = [Span(doc, 3, 4, label="PRODUCT")]
    assert [m.text for m in extractor.extract_doc(doc)] == ["pandas"]


def test_possessive_is_stripped(extractor: EntityExtractor) -> None:
    doc = extractor.english.make_doc("Melanie's painting sold.")
    doc.ents = [Span(doc, 0, 2, label="PERSON")]  # "Melanie 's", as NER sometimes has it
    (mention,) = extractor.extract_doc(doc)
    assert (mention.text, mention.start, mention.end) == ("Melanie", 0, 7)
    found = _found(extractor.extract("Melanie's painting was sold in Paris.", "en"))
    assert ("Melanie", EntityLabel.PERSON) in found


@pytest.mark.parametrize(
    ("text", "trimmed"),
    [
        ('"FastAPI"', "FastAPI"),
        ("Melanie’s", "Melanie"),
        ("(Django).", "Django"),
        ("C#", "C#"),
        ("C++,", "C++"),
        ("the New York Times", "New York Times"),
        ("The Hague", "The Hague"),
        ("《三体》", "三体"),
        ("'s", "s"),
    ],
)
def test_trim_span(text: str, trimmed: str) -> None:
    start, end = trim_span(text, 0, len(text))
    assert text[start:end] == trimmed


def test_pipe_then_extract_doc_matches_extract(extractor: EntityExtractor) -> None:
    texts = [sentence for _, lang, sentence, _ in CONTEXT_EXAMPLES if lang == "en"]
    docs = list(extractor.english.pipe(texts, batch_size=8))
    assert [extractor.extract_doc(doc) for doc in docs] == [
        extractor.extract(text, "en") for text in texts
    ]
    doc = docs[0]  # callers still get sentences and noun chunks from the same parse
    assert len(list(doc.sents)) >= 1 and list(doc.noun_chunks)


def test_ruler_sits_right_after_ner_and_is_replaced_not_duplicated(
    extractor: EntityExtractor,
) -> None:
    names = extractor.english.pipe_names
    assert names.index(RULER_NAME) == names.index("ner") + 1
    EntityExtractor(extractor.english)
    assert extractor.english.pipe_names.count(RULER_NAME) == 1


# Both languages


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Hey! Thanks, lol. I told you that yesterday, okay? Everyone knows something.", "en"),
        ("Today she met Melanie's brother at Google, haha.", "en"),
        ("我们今天然后明天他们什么，这个那个怎么为什么。", "zh"),
        ("我叫李明，“我”在北京市工作，明天去上海。", "zh"),
    ],
)
def test_offsets_slice_the_original_text_and_stop_entities_never_come_out(
    extractor: EntityExtractor, text: str, lang: str
) -> None:
    for mention in extractor.extract(text, lang):
        assert text[mention.start : mention.end] == mention.text
        assert casefold_name(mention.text) not in STOP


def test_offsets_slice_every_example(extractor: EntityExtractor) -> None:
    for _, lang, sentence, _ in EXAMPLES:
        for mention in extractor.extract(sentence, lang):
            assert sentence[mention.start : mention.end] == mention.text
            assert casefold_name(mention.text) not in STOP


def test_stop_entity_from_ner_is_dropped(extractor: EntityExtractor) -> None:
    doc = extractor.english("I went hiking yesterday.")
    assert "yesterday" in {ent.text for ent in doc.ents}
    assert [m.text for m in extractor.extract_doc(doc)] == ["hiking"]


def test_stop_entity_from_a_pattern_is_dropped(tmp_path: Path) -> None:
    rows = [
        {"id": "t_today", "label": "TEMPORAL", "lang": "en", "pattern": "today"},
        {"id": "t_chess", "label": "CONCEPT", "lang": "en", "pattern": "chess", "confidence": 0.5},
        {"id": "t_we", "label": "PERSON", "lang": "zh", "pattern": "我们"},
    ]
    stop = tmp_path / "stop.txt"
    stop.write_text("# comment\nTODAY\n我们\n", "utf-8")
    extractor = EntityExtractor(spacy.blank("en"), _write_rows(tmp_path / "p.jsonl", rows), stop)
    assert extractor.english.pipe_names == [RULER_NAME]
    mentions = extractor.extract("Today we played chess.", "en")
    assert mentions == [EntityMention("chess", EntityLabel.CONCEPT, 16, 21, "pattern:t_chess", 0.5)]
    assert extractor.extract("我们下棋。", "zh") == []


def test_each_language_runs_only_its_own_pipeline(extractor: EntityExtractor) -> None:
    # The Chinese recogniser may read Latin words as names; spaCy's English NER never runs.
    found = extractor.extract("Barack Obama lives in Paris.", "zh")
    assert not [m for m in found if m.extractor.startswith("spacy:")]
    assert extractor.extract("我叫李明", "en") == []


def test_unknown_language_is_refused(extractor: EntityExtractor) -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        extractor.extract("Bonjour", "fr")


def test_chinese_pipeline_has_sentences(extractor: EntityExtractor) -> None:
    doc = extractor.chinese("我叫李明。我在北京工作！")
    assert [s.text for s in doc.sents] == ["我叫李明。", "我在北京工作！"]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("我喜欢用React框架", "zh"),
        ("I went to 北京", "zh"),  # 2 of 9 letters
        ("abcdefgh北京", "zh"),  # exactly 20%
        ("abcdefghi北京", "en"),  # 2 of 11
        ("I love 北京 and Shanghai", "en"),
        ("Melanie is painting again", "en"),
        ("", "en"),
        ("12:30 !!", "en"),
    ],
)
def test_detect_lang(text: str, lang: str) -> None:
    assert detect_lang(text) == lang


# Loading


GOOD_ROW = {"id": "ok_row", "label": "CONCEPT", "lang": "en", "pattern": "chess"}


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ('{"id": "x", "label": "CONCEPT", "lang": "en", "pattern": "chess"', "JSON"),
        ({**GOOD_ROW, "id": "x", "label": "ANIMAL"}, "label"),
        ({**GOOD_ROW, "id": "x", "lang": "fr"}, "lang"),
        ({**GOOD_ROW, "id": "Bad Id"}, "id"),
        ({**GOOD_ROW, "id": "x", "pattern": "  "}, "blank"),
        ({**GOOD_ROW, "id": "x", "pattern": {"regex": "(unclosed"}}, "invalid regex"),
        ({**GOOD_ROW, "id": "x", "pattern": [{"LOWERCASE": "x"}]}, "invalid token pattern"),
        ({**GOOD_ROW, "id": "x", "lang": "zh", "pattern": [{"ORTH": "x"}]}, "for English"),
        ({**GOOD_ROW, "id": "x", "pattern": [{"ORTH": "x"}], "ent": [0, 2]}, "outside"),
        ({**GOOD_ROW, "id": "x", "ent": [0, 1]}, "token patterns only"),
        ({**GOOD_ROW, "id": "x", "confidence": 1.5}, "confidence"),
        ({**GOOD_ROW, "id": "x", "note": "extra"}, "note"),
        (GOOD_ROW, "already used on line 1"),
    ],
)
def test_malformed_row_names_its_line(
    tmp_path: Path, bad: str | dict[str, object], reason: str
) -> None:
    line = bad if isinstance(bad, str) else json.dumps(bad)
    path = tmp_path / "patterns.jsonl"
    path.write_text(f"{json.dumps(GOOD_ROW)}\n\n{line}\n", "utf-8")
    with pytest.raises(ConfigurationError, match=f"patterns.jsonl:3: .*{reason}"):
        load_patterns(path)


def test_missing_files_raise_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_patterns(tmp_path / "none.jsonl")
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_stop_entities(tmp_path / "none.txt")


def test_stop_list_has_the_everyday_words() -> None:
    words = "这个 那个 什么 今天 明天 然后 但是 因为 所以 我们 你们 他们 我 你 他 她 它 这 那 哪"
    english = "i me you he she it we they this that today tomorrow yesterday something lol ok"
    assert set(f"{words} 怎么 为什么 {english}".split()) <= STOP
    assert not any(entry.startswith("#") for entry in STOP)


def test_empty_table_runs_quietly(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    stop = tmp_path / "stop.txt"
    stop.write_text("", "utf-8")
    nlp: Language = spacy.blank("en")
    extractor = EntityExtractor(nlp, _write_rows(tmp_path / "p.jsonl", []), stop)
    assert extractor.extract("Nothing to see here.", "en") == []
    assert extractor.extract("这里没有什么。", "zh") == []
    assert not [w for w in recwarn if "W036" in str(w.message)]


def test_a_possessive_business_name_is_one_name(extractor: EntityExtractor) -> None:
    found = _found(extractor.extract("I signed the lease for Marta's Bakery today.", "en"))
    assert any(name == "Marta's Bakery" for name, _ in found)


def test_a_name_cut_short_by_ner_takes_its_compound_nouns(extractor: EntityExtractor) -> None:
    found = _found(extractor.extract("As a Harbour Choir member I get free tickets.", "en"))
    assert any(name == "Harbour Choir" for name, _ in found)


def test_a_hyphenated_name_is_one_name(extractor: EntityExtractor) -> None:
    found = _found(extractor.extract("yep, I integrated T-Wallet myself last week", "en"))
    assert any(name == "T-Wallet" for name, _ in found)


def test_a_name_does_not_end_in_a_lower_case_word() -> None:
    import spacy
    from spacy.tokens import Doc

    from service.nlp.entities.patterns import whole_name

    words = ["we", "stream", "on", "Twitchy", "every", "night"]
    doc = Doc(spacy.blank("en").vocab, words=words)
    assert whole_name(doc[3:5]).text == "Twitchy"


def test_an_emoji_at_a_names_edge_is_no_part_of_it(extractor: EntityExtractor) -> None:
    surfaces = [m.text for m in extractor.extract("The new shop takes over Dunedin 📚", "en")]
    assert "Dunedin" in surfaces
    assert not any("📚" in s for s in surfaces)


def test_a_verb_opening_the_sentence_is_no_part_of_the_name_after_it(
    extractor: EntityExtractor,
) -> None:
    surfaces = [m.text for m in extractor.extract("Meet Ravi, my cousin from Pune.", "en")]
    assert "Ravi" in surfaces and "Meet Ravi" not in surfaces
    kept = [m.text for m in extractor.extract("Mark Twain wrote it in Hartford.", "en")]
    assert "Mark Twain" in kept  # a given name that is also a verb stays


@pytest.mark.parametrize(
    ("text", "name", "whole"),
    [
        ("Visiting Lisbon was the highlight of my year.", "Lisbon", "Visiting Lisbon"),
        ("Leaving Denver was hard.", "Denver", "Leaving Denver"),
        ("Meeting Priya changed everything.", "Priya", "Meeting Priya"),
    ],
)
def test_an_ing_verb_opening_the_sentence_is_no_part_of_the_name(
    extractor: EntityExtractor, text: str, name: str, whole: str
) -> None:
    surfaces = [m.text for m in extractor.extract(text, "en")]
    assert whole not in surfaces and name in surfaces


def test_a_name_that_opens_with_an_ing_word_stays_whole(extractor: EntityExtractor) -> None:
    surfaces = [m.text for m in extractor.extract("Rolling Stones tickets sold out.", "en")]
    assert "Rolling Stones" in surfaces  # "stones" is neither a given name nor a place


def test_from_one_name_to_another_is_two(extractor: EntityExtractor) -> None:
    """NER reads "from Trello to Notion" as one name; the range holds two."""
    texts = {m.text for m in extractor.extract("Our team switched from Trello to Notion.", "en")}
    assert {"Trello", "Notion"} <= texts and "Trello to Notion" not in texts


def test_a_verb_that_introduces_someone_is_no_part_of_their_name(
    extractor: EntityExtractor,
) -> None:
    doc = extractor.english("Meet Kwabena, my brother-in-law.")
    doc.ents = [Span(doc, 0, 2, label="PERSON")]  # as NER reads an unknown name after it
    assert [m.text for m in extractor.extract_doc(doc)] == ["Kwabena"]


@pytest.mark.parametrize("text", ["Smart man.", "Big news, everyone!", "Nice try, Dev."])
def test_an_opening_adjective_before_its_noun_is_no_name(
    extractor: EntityExtractor, text: str
) -> None:
    surfaces = {m.text for m in extractor.extract(text, "en")}
    assert not surfaces & {"Smart", "Big", "Nice"}, surfaces


def test_a_known_name_opening_a_sentence_before_a_noun_stays(extractor: EntityExtractor) -> None:
    assert "Royal Mail" in {m.text for m in extractor.extract("Royal Mail lost it.", "en")}
