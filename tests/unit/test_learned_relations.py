"""The learned relation reader: its corpus, its model file, its features, its verdicts."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
from spacy.language import Language
from spacy.tokens import Doc

from scripts.train_relation_model import Example, load_examples
from service.nlp.entities.mentions import EntityLabel
from service.nlp.linear import LinearModel, corpus_path, digest, load_model
from service.nlp.relations import learned
from service.nlp.relations.chinese_pairs import Name
from service.nlp.relations.chinese_pairs import pairs as chinese_pairs
from service.nlp.relations.english_pairs import Anchor, pairs
from service.nlp.relations.extractor import RelationExtractor
from service.nlp.relations.learned import ADDRESSEE, NO_RELATION, SPEAKER, Pair, Party, stated
from service.nlp.relations.table import Endpoint
from tests.unit.test_relations import find_en, mentions

LANGS = ("en", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_the_model_was_trained_on_the_corpus_as_it_is(lang: str) -> None:
    """A corpus edited without running scripts/train_relation_model.py fails here."""
    assert load_model(lang).corpus_digest == digest(corpus_path(lang))


@pytest.mark.parametrize("lang", LANGS)
def test_every_corpus_relation_joins_the_speaker_or_a_named_entity(lang: str) -> None:
    examples = load_examples(lang)
    assert len({e.id for e in examples}) == len(examples)
    for example in examples:
        named = {surface for surface, _ in example.entities} | example.parties
        assert all(surface in example.text or surface in example.parties for surface in named)
        for source, _, target in example.relations:
            assert {source, target} <= named, example.id


def test_a_corpus_line_with_an_unknown_relation_type_is_refused() -> None:
    line = '{"id": "x", "speaker": "A", "text": "t", "entities": [], "relations": '
    line += '[["A", "KNOWS", "B"]]}'
    with pytest.raises(ValueError):
        Example.model_validate_json(line)


def english_features(
    nlp: Language, text: str, names: dict[str, str]
) -> dict[str | None, list[str]]:
    """Each source's features towards the last name (None: the speaker)."""
    doc = nlp(text)
    anchors = []
    for surface, kind in names.items():
        start = text.index(surface)
        span = doc.char_span(start, start + len(surface), alignment_mode="expand")
        assert span is not None
        anchors.append(Anchor(span.root, kind))
    last = len(anchors) - 1
    found = pairs(doc[:], anchors, speaker=True, addressee=True)
    surfaces = list(names)
    return {
        p.source.value if isinstance(p.source, Party) else surfaces[p.source]: p.features
        for p in found
        if p.target == last
    }


def test_english_features_name_the_governor_and_its_preposition(english: Language) -> None:
    features = english_features(
        english, "I clocked in at Ravelin Foods today", {"Ravelin Foods": "ORG"}
    )
    assert "governor=clock_at" in features["SPEAKER"]
    assert "types=SPEAKER>ORG" in features["SPEAKER"]


def test_english_features_say_when_the_clause_is_denied_or_asked(english: Language) -> None:
    denied = english_features(english, "I never worked at Ravelin Foods", {"Ravelin Foods": "ORG"})
    asked = english_features(
        english, "Do you still work at Ravelin Foods?", {"Ravelin Foods": "ORG"}
    )
    plain = english_features(english, "I worked at Ravelin Foods", {"Ravelin Foods": "ORG"})
    assert "clause=denied" in denied["SPEAKER"]
    assert "clause=question" in asked.get("SPEAKER", ["clause=question"])
    assert not {"clause=denied", "clause=not_asserted"} & set(plain["SPEAKER"])


def test_an_english_imperative_asks_and_states_nothing(english: Language) -> None:
    told = english_features(english, "Try the Blue Kettle sometime.", {"Blue Kettle": "ORG"})
    said = english_features(english, "Tried the Blue Kettle today.", {"Blue Kettle": "ORG"})
    assert "clause=imperative" in told["SPEAKER"]
    assert "clause=imperative" not in said["SPEAKER"]
    # Two sentences in one fact: the dropped speaker stands at the target's own sentence.
    two = english_features(
        english, "Loved it. Try the Blue Kettle sometime.", {"Blue Kettle": "ORG"}
    )
    assert "clause=imperative" in two["SPEAKER"]


def test_english_pairs_of_two_names_go_both_ways(english: Language) -> None:
    features = english_features(
        english, "Tomasz opened a bike shop in Dayton", {"Tomasz": "PERSON", "Dayton": "PLACE"}
    )
    assert "types=PERSON>PLACE" in features["Tomasz"]
    assert "on_path=open" in features["Tomasz"]


def test_a_name_the_parser_made_a_second_subject_is_what_the_clause_is_about(
    english: Language,
) -> None:
    """The small parser reads "my bro Oskar is at X" with two subjects, bro and Oskar."""
    words = ["my", "bro", "Oskar", "is", "at", "Brandvik", "College"]
    doc = Doc(
        english.vocab,
        words=words,
        heads=[1, 3, 3, 3, 3, 6, 4],
        deps=["poss", "nsubj", "nsubj", "ROOT", "prep", "compound", "pobj"],
        pos=["PRON", "NOUN", "PROPN", "AUX", "ADP", "PROPN", "PROPN"],
        lemmas=["my", "bro", "Oskar", "be", "at", "Brandvik", "College"],
    )
    anchors = [Anchor(doc[2], "PERSON"), Anchor(doc[6], "ORG")]
    (pair,) = [p for p in pairs(doc[:], anchors, False, False) if p.source == 0]
    assert pair.asserted


def test_chinese_features_read_other_names_as_their_type() -> None:
    text = "我在宁德时代上班"
    names = [Name(text.index("宁德时代"), text.index("宁德时代") + 4, "ORG")]
    (pair,) = chinese_pairs(text, names, speaker=True, addressee=False)
    assert pair.source is Party.SPEAKER
    assert "after1=上班" in pair.features
    assert "between=在" in pair.features
    two = [Name(0, 3, "PERSON"), Name(4, 6, "ORG"), Name(7, 9, "PLACE")]
    found = chinese_pairs("李卫东在海信的青岛分部", two, speaker=False, addressee=False)
    person_place = next(p for p in found if (p.source, p.target) == (0, 2))
    assert "between=<ORG>" in person_place.features
    assert not any("海信" in f for f in person_place.features)


def test_chinese_features_say_when_the_clause_is_denied_or_planned() -> None:
    text = "我没在海信干过"
    (denied,) = chinese_pairs(text, [Name(3, 5, "ORG")], speaker=True, addressee=False)
    text = "我打算去成都"
    (planned,) = chinese_pairs(text, [Name(4, 6, "PLACE")], speaker=True, addressee=False)
    assert "clause=denied" in denied.features
    assert "clause=planned" in planned.features


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("我在杭州天天加班，哪有空回家", False),  # 哪 asks in another clause
        ("你在杭州上班，对吧？", False),  # a tag question confirms
        ("你在杭州上班吗？", True),
        ("你是不是在杭州上班", True),
        ("周末忙吗，还在杭州上班？", True),
    ],
)
def test_a_chinese_question_asks_in_its_own_clause(text: str, asked: bool) -> None:
    start = text.index("杭州")
    found = chinese_pairs(text, [Name(start, start + 2, "PLACE")], speaker=True, addressee=True)
    assert found
    assert all(("clause=question" in pair.features) is asked for pair in found)


def test_a_name_opening_the_clause_leaves_no_dropped_speaker_before_its_target() -> None:
    def speaker_pairs(text: str, first: str, kind: str) -> list[Pair]:
        at, place = text.index(first), text.index("溪口")
        names = [Name(at, at + len(first), kind), Name(place, place + 2, "PLACE")]
        found = chinese_pairs(text, names, speaker=True, addressee=False)
        return [p for p in found if p.source is Party.SPEAKER and p.target == 1]

    assert speaker_pairs("对，蓝鲸书屋就开在溪口", "蓝鲸书屋", "ORG") == []
    assert speaker_pairs("对，孙浩在溪口上班", "孙浩", "PERSON") == []
    assert speaker_pairs("跟孙浩去了趟溪口", "孙浩", "PERSON")  # a companion: 我 dropped


def model() -> LinearModel:
    return LinearModel(
        classes=(NO_RELATION, "WORKS_AT"),
        intercept=(0.0, 0.0),
        weights={"governor=work_at": ((1, 2.0),), "clause=denied": ((0, 3.0),)},
        threshold=0.5,
        corpus_digest="",
    )


def test_the_model_sums_the_weights_of_the_features_present() -> None:
    guess = model().best(["governor=work_at", "governor=work_at"])  # a feature counts once
    assert guess.label == "WORKS_AT"
    assert guess.probability == pytest.approx(1 / (1 + math.exp(-2)))
    assert model().best(["governor=work_at", "clause=denied"]).label == NO_RELATION
    assert model().best(["never=seen"]).label == NO_RELATION  # a tie: the first class
    only_none = model().best(["governor=work_at"], lambda label: label == NO_RELATION)
    assert only_none.label == NO_RELATION


def test_the_learned_reader_states_what_no_row_reads(finder: RelationExtractor) -> None:
    """The thing first, the owner and the verb after it: no row reads that order."""
    text = "这辆理想L6是我上个月提的。"
    found = finder.find(text, "zh", mentions(text, 理想L6=EntityLabel.PRODUCT), "王芳")
    stated = {(r.source.name, r.type.value, r.target.name, r.extractor) for r in found}
    assert stated == {("王芳", "OWNS", "理想L6", "learned:zh")}


def test_it_stands_for_the_one_thing_named_before(
    finder: RelationExtractor, english: Language
) -> None:
    """A sentence of its own whose subject is "it": no row reads it, the model reads it as the
    organisation the sentence before named."""
    text = "My cousin keeps the accounts for Larchmont Veterinary. It's over in Bemidji."
    labels = mentions(text, Larchmont_Veterinary=EntityLabel.ORG, Bemidji=EntityLabel.PLACE)
    found = finder.find(text, "en", labels, "Ann", english(text)[:])
    stated = {(r.source.name, r.type.value, r.target.name, r.extractor) for r in found}
    assert ("Larchmont Veterinary", "LOCATED_IN", "Bemidji", "learned:en") in stated
    assert all(r.source.name != r.target.name for r in found)


@pytest.mark.parametrize(
    ("text", "labels", "unsaid"),
    [
        # the table's rows list "quit" as undoing a job
        ("i quit my job at Pelican Freight", {"Pelican_Freight": EntityLabel.ORG}, "WORKS_AT"),
        # the clause's words of liking point the other way
        (
            "Jo says Kestrel Bank is awful",
            {"Jo": EntityLabel.PERSON, "Kestrel_Bank": EntityLabel.ORG},
            "LIKES",
        ),
        # praise of something else is no like of the place (no word of liking points to it)
        ("Tavira has great pottery classes.", {"Tavira": EntityLabel.PLACE}, "LIKES"),
        # the clause the target is in has a subject of its own
        (
            "Lena met Omar, and she works at Brindle Bank now.",
            {
                "Lena": EntityLabel.PERSON,
                "Omar": EntityLabel.PERSON,
                "Brindle_Bank": EntityLabel.ORG,
            },
            "WORKS_AT",
        ),
        # nobody studies at a business, whatever the model guesses
        ("I got a letter from Harbor Bank.", {"Harbor_Bank": EntityLabel.ORG}, "STUDIES_AT"),
        ("I work out at Ironside Gym.", {"Ironside_Gym": EntityLabel.ORG}, "STUDIES_AT"),
    ],
)
def test_the_learned_reader_keeps_to_what_the_clause_says(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    unsaid: str,
) -> None:
    assert not any(kind == unsaid for _, kind, _ in find_en(finder, english, text, **labels))


def always(label: str) -> LinearModel:
    """A model that reads ``label`` into every pair."""
    return LinearModel(
        classes=(NO_RELATION, label),
        intercept=(0.0, 5.0),
        weights={},
        threshold=0.5,
        corpus_digest="",
    )


BO, ANA = Endpoint("Bo", EntityLabel.PERSON), Endpoint("Ana", EntityLabel.PERSON)
SPEAKER_TO_ADDRESSEE = Pair(Party.SPEAKER, Party.ADDRESSEE, [], SPEAKER, ADDRESSEE)


@pytest.mark.parametrize(
    ("lang", "kind", "said", "tied"),
    [
        ("en", "FAMILY_OF", "stop it, you'll make me cry", False),
        ("en", "FAMILY_OF", "stop it sis, you'll make me cry", True),
        ("en", "FAMILY_OF", "my abuela says hi", True),  # tie_words.json: kin of other tongues
        ("en", "FRIEND_OF", "I'll still review your drafts", False),
        ("en", "FRIEND_OF", "I've known you since year 7", True),
        ("zh", "FAMILY_OF", "我记得你在比亚迪做电池", False),
        ("zh", "FAMILY_OF", "我家那口子天天念叨你", True),
        ("zh", "FAMILY_OF", "三姑你好", True),  # KIN_RANKED
        ("zh", "FRIEND_OF", "我跟你想去夜市摆个摊", False),
        ("zh", "FRIEND_OF", "你是我高中最铁的哥们", True),
    ],
)
def test_a_learned_tie_needs_a_word_of_one(
    monkeypatch: pytest.MonkeyPatch, lang: str, kind: str, said: str, tied: bool
) -> None:
    """Without the gate a model reads a family tie into "stop it, you'll make me cry"."""
    monkeypatch.setattr(learned, "load_model", lambda _: always(kind))
    parties = {Party.SPEAKER: BO, Party.ADDRESSEE: ANA}
    found = stated(lang, said, [SPEAKER_TO_ADDRESSEE], [], parties)
    assert [r.type.value for r in found] == ([kind] if tied else [])


@pytest.mark.parametrize(("kind", "owned"), [("PERSON", False), ("PRODUCT", True)])
def test_nobody_owns_a_person(monkeypatch: pytest.MonkeyPatch, kind: str, owned: bool) -> None:
    monkeypatch.setattr(learned, "load_model", lambda _: always("OWNS"))
    pair = Pair(Party.SPEAKER, 0, [], SPEAKER, kind)
    name = Endpoint("Ines", EntityLabel(kind), 0, 4)
    found = stated("en", "Ines, I'll fix it", [pair], [name], {Party.SPEAKER: BO})
    assert [r.type.value for r in found] == (["OWNS"] if owned else [])


def test_probabilities_are_the_same_in_every_process() -> None:
    """The sum runs in the features' order, not a set's, which moves with PYTHONHASHSEED."""
    program = (
        "from service.nlp.linear import load_model\n"
        "model = load_model('en')\n"
        "features = [f'{k}={v}' for k in 'abcdefghij' for v in range(40)]\n"
        "features += list(model.weights)[:400]\n"
        "print(repr(model.probabilities(features)))\n"
    )
    printed = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "7", "123")
    }
    assert len(printed) == 1
