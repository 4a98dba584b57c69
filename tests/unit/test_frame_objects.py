"""A relation frame's object that no extractor marked becomes a mention, typed by the frame.

Made-up sentences; none of their names is in graph-dev.json. The speaker is "Ann".
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from spacy.language import Language

from service.core.config import Settings
from service.core.domain import MessageIn
from service.nlp.entities.frame_objects import FRAME_CONFIDENCE, frame_mentions
from service.nlp.entities.mentions import TypeVote
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.entities.type_evidence import TypeEvidence, load_type_evidence
from service.nlp.pipeline import Extractor
from service.nlp.relations.extractor import (
    Endpoint,
    RelationExtractor,
    RelationMention,
    RelationType,
)
from tests.unit.test_relations import find_en, triples

L = EntityLabel


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def _ner(text: str, name: str, label: EntityLabel, tag: str) -> EntityMention:
    start = text.index(name)
    return EntityMention(name, label, start, start + len(name), f"spacy:{tag}", 0.85)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a capitalised word inside a sentence that the tagger reads as a common noun
        ("still grinding at Thistle over here", ("Ann", "WORKS_AT", "Thistle")),
        # an acronym before the noun that carries the relation
        ("my KSU dissertation is due friday", ("Ann", "STUDIES_AT", "KSU")),
        # a brand with a model number
        ("these days I use a Vexor KX-40 for practice", ("Ann", "USES", "Vexor KX-40")),
    ],
)
def test_a_name_shaped_object_is_an_endpoint_without_a_mention(
    finder: RelationExtractor, english: Language, text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in find_en(finder, english, text)


@pytest.mark.parametrize(
    "text",
    [
        "Honestly I work at home most days.",  # sentence-initial capital, lower-case object
        "I keep losing my notes AGAIN at work",  # a shouted word is no acronym
    ],
)
def test_words_that_only_look_like_names_are_no_endpoints(
    finder: RelationExtractor, english: Language, text: str
) -> None:
    found = find_en(finder, english, text)
    assert not {t for t in found if t[2] in {"Honestly", "AGAIN", "home"}}


def _relation(kind: RelationType, name: str, text: str) -> RelationMention:
    start = text.index(name)
    target = Endpoint(name, L.OTHER, start, start + len(name))
    return RelationMention(kind, Endpoint("Ann", L.PERSON), target, "dep:test_row", 0.8)


def test_frame_objects_are_mentions_typed_by_their_frame() -> None:
    text = "grinding at Thistle, living in Marrowby, coding with Quenta"
    relations = [
        _relation(RelationType.WORKS_AT, "Thistle", text),
        _relation(RelationType.LIVES_IN, "Marrowby", text),
        _relation(RelationType.USES, "Quenta", text),
    ]
    found = frame_mentions(text, relations, [], load_type_evidence())
    assert [(m.text, m.label, m.extractor) for m in found] == [
        ("Thistle", L.ORG, "frame:test_row"),
        ("Marrowby", L.PLACE, "frame:test_row"),
        ("Quenta", L.PRODUCT, "frame:test_row"),
    ]
    assert all(m.confidence == FRAME_CONFIDENCE for m in found)


def test_no_proposal_over_a_mention_a_speaker_a_stop_or_kin_word_or_an_untyped_frame() -> None:
    text = "Thistle and Bo and Cheers and Mum and Quenta"
    relations = [
        _relation(RelationType.WORKS_AT, "Thistle", text),  # already a mention
        _relation(RelationType.USES, "Bo", text),  # the speaker's name
        _relation(RelationType.VISITED, "Cheers", text),  # a stop entity
        _relation(RelationType.VISITED, "Mum", text),  # a kin word
        _relation(RelationType.LIKES, "Quenta", text),  # LIKES says nothing of a type
    ]
    marked = [_ner(text, "Thistle", L.ORG, "ORG")]
    assert frame_mentions(text, relations, marked, load_type_evidence(), ["Bo"]) == []


def test_a_product_frame_retypes_a_name_ner_called_a_person(
    finder: RelationExtractor, english: Language
) -> None:
    text = "Rhea swears by Quillo for her mixes"
    sentence = english(text)[:]
    marked = [_ner(text, "Rhea", L.PERSON, "PERSON"), _ner(text, "Quillo", L.PERSON, "PERSON")]
    found = finder.find(text, "en", marked, "Ann", sentence)
    uses = [r for r in found if r.type is RelationType.USES]
    assert [(r.source.name, r.target.name, r.target.label) for r in uses] == [
        ("Rhea", "Quillo", L.PRODUCT)
    ]


def test_a_coding_frame_retypes_a_place_guess_but_working_in_a_place_stays(
    finder: RelationExtractor, english: Language
) -> None:
    coding = "I mostly code in Velk these days"
    sentence = english(coding)[:]
    found = finder.find(coding, "en", [_ner(coding, "Velk", L.PLACE, "GPE")], "Ann", sentence)
    assert ("Ann", "USES", "Velk") in triples(found)
    working = "I work in Dunmere these days"
    sentence = english(working)[:]
    found = finder.find(working, "en", [_ner(working, "Dunmere", L.PLACE, "GPE")], "Ann", sentence)
    assert ("Ann", "USES", "Dunmere") not in triples(found)


def test_a_proposed_name_is_found_again_in_the_batch(extractor: Extractor) -> None:
    messages = [
        MessageIn(speaker="Ann", content="meanwhile still grinding at Thistle over here"),
        MessageIn(speaker="Bo", content="Thistle is the accounting software company, right?"),
    ]
    at = [datetime(2026, 3, 1, tzinfo=UTC)] * 2
    first, second = extractor.extract(messages, at)
    proposed = [m for f in first for m in f.mentions if m.text == "Thistle"]
    assert [(m.label, m.voted_label) for m in proposed] == [(L.ORG, L.ORG)]
    assert ("Ann", "WORKS_AT", "Thistle") in {
        (r.source.name, r.type.value, r.target.name) for f in first for r in f.relations
    }
    assert any(m.text == "Thistle" for f in second for m in f.mentions)


def test_a_given_name_ner_calls_an_organisation_lives_somewhere(
    finder: RelationExtractor, english: Language
) -> None:
    text = "Wren grew up in Kessock but lives in Dunmere now"
    given = TypeVote(L.PERSON, 0.8, "gazetteer:given_name")
    wren = replace(_ner(text, "Wren", L.ORG, "ORG"), votes=(given,))
    dunmere = _ner(text, "Dunmere", L.PLACE, "GPE")
    found = finder.find(text, "en", [wren, dunmere], "Ann", english(text)[:])
    assert ("Wren", "LIVES_IN", "Dunmere") in triples(found)
    assert ("Wren", "LOCATED_IN", "Dunmere") not in triples(found)


def test_the_weaker_of_two_frames_typing_one_name_gives_way(
    finder: RelationExtractor, english: Language
) -> None:
    text = "I'm in my KSU lecture rn"
    found = finder.find(text, "en", [_ner(text, "KSU", L.ORG, "ORG")], "Ann", english(text)[:])
    assert ("Ann", "STUDIES_AT", "KSU") in triples(found)
    assert ("Ann", "USES", "KSU") not in triples(found)


def test_no_tool_is_proposed_after_a_place_preposition() -> None:
    text = "she manages a team in Brevik"
    relations = [_relation(RelationType.USES, "Brevik", text)]
    assert frame_mentions(text, relations, [], load_type_evidence()) == []


def test_a_named_noun_of_another_kind_is_no_tool(
    finder: RelationExtractor, english: Language
) -> None:
    text = "Rhea runs a bakery called Sourloaf"
    found = find_en(finder, english, text, Rhea=L.PERSON, Sourloaf=L.ORG)
    assert ("Rhea", "USES", "Sourloaf") not in found
    app = "I use an app called Tidemark for budgeting"
    assert ("Ann", "USES", "Tidemark") in find_en(finder, english, app, Tidemark=L.ORG)


def test_a_tool_preposition_retypes_a_place_guess(
    finder: RelationExtractor, english: Language
) -> None:
    text = "I've been on Quorra for ages"
    found = finder.find(text, "en", [_ner(text, "Quorra", L.PLACE, "LOC")], "Ann", english(text)[:])
    assert [(r.type, r.target.label) for r in found if r.target.name == "Quorra"] == [
        (RelationType.USES, L.PRODUCT)
    ]


def test_playing_for_an_organisation_is_membership(
    finder: RelationExtractor, english: Language
) -> None:
    text = "my partner Jonah plays for Ashcombe Rovers on Sundays"
    found = find_en(finder, english, text, Jonah=L.PERSON, Ashcombe_Rovers=L.ORG)
    assert ("Jonah", "MEMBER_OF", "Ashcombe Rovers") in found
    alone = "Jonah plays with Marnie on Sundays"
    assert not {
        t
        for t in find_en(finder, english, alone, Jonah=L.PERSON, Marnie=L.PERSON)
        if t[1] == "MEMBER_OF"
    }


def test_a_name_before_a_verb_read_as_a_plural_noun_is_the_subject(
    finder: RelationExtractor, english: Language
) -> None:
    text = "Omar studies at Kellerby"
    found = find_en(finder, english, text, Omar=L.PERSON, Kellerby=L.ORG)
    assert ("Omar", "STUDIES_AT", "Kellerby") in found
    assert ("Ann", "STUDIES_AT", "Kellerby") not in found


def test_weekdays_and_shouted_words_are_no_mentions(extractor: Extractor) -> None:
    messages = [
        MessageIn(speaker="Ann", content="the app crashed AGAIN, I lost my notes"),
        MessageIn(speaker="Bo", content="my aunt Wilhelmina still swims every Sunday"),
    ]
    at = [datetime(2026, 3, 1, tzinfo=UTC)] * 2
    names = {m.text for facts in extractor.extract(messages, at) for f in facts for m in f.mentions}
    assert "AGAIN" not in names
    assert "Sunday" not in names
    assert "Wilhelmina" in names


def test_a_name_before_an_is_read_as_a_possessive_is_the_subject(
    finder: RelationExtractor, english: Language
) -> None:
    text = "Jonah's obsessed with Wordle lol"
    found = find_en(finder, english, text, Jonah=L.PERSON, Wordle=L.ORG)
    assert ("Jonah", "LIKES", "Wordle") in found
    assert ("Ann", "LIKES", "Wordle") not in found


def test_it_may_stand_for_a_name_only_ner_calls_a_person(
    finder: RelationExtractor, english: Language
) -> None:
    text = "I hate Quibble so much, but we use it for everything"
    quibble = _ner(text, "Quibble", L.PERSON, "PERSON")
    found = finder.find(text, "en", [quibble], "Ann", english(text)[:])
    assert ("Ann", "USES", "Quibble") in triples(found)
    named = "I met Marnie at the gym and I like her a lot"
    marnie = replace(
        _ner(named, "Marnie", L.PERSON, "PERSON"),
        votes=(TypeVote(L.PERSON, 0.8, "gazetteer:given_name"),),
    )
    assert ("Ann", "LIKES", "Marnie") in triples(
        finder.find(named, "en", [marnie], "Ann", english(named)[:])
    )


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("my aunt runs a bakery called Crumbhaven in town", "Crumbhaven", L.ORG),
        ("I found an app called Tallywick for budgets", "Tallywick", L.PRODUCT),
    ],
)
def test_the_noun_a_name_is_called_votes_its_kind(
    english: Language, text: str, name: str, label: EntityLabel
) -> None:
    doc = english(text)
    start = text.index(name)
    span = doc.char_span(start, start + len(name))
    assert span is not None
    votes = TypeEvidence().english(span)
    assert label in {v.label for v in votes if v.why.startswith("frame:called_")}


def test_chat_slang_opening_a_sentence_is_no_mention(extractor: Extractor) -> None:
    messages = [MessageIn(speaker="Ann", content="Bet, I'll bring the snacks. IDK about drinks")]
    at = [datetime(2026, 3, 1, tzinfo=UTC)]
    names = {m.text for facts in extractor.extract(messages, at) for f in facts for m in f.mentions}
    assert not names & {"Bet", "IDK"}


def test_more_trades_are_jobs(finder: RelationExtractor, english: Language) -> None:
    text = "my wife, Odile, is a vet at Pawsworth Clinic"
    found = find_en(finder, english, text, Odile=L.PERSON, Pawsworth_Clinic=L.ORG)
    assert ("Odile", "WORKS_AT", "Pawsworth Clinic") in found


def test_the_before_a_name_ner_calls_a_person_votes_against_a_person(
    english: Language,
) -> None:
    text = "we spent three hours in the Brambleton yesterday"
    doc = english(text)
    start = text.index("Brambleton")
    span = doc.char_span(start, start + len("Brambleton"))
    assert span is not None
    for token in span:  # as NER often tags an unknown venue
        token.ent_type_ = "PERSON"
    votes = TypeEvidence().english(span)
    assert ("frame:the_name", L.ORG) in {(v.why, v.label) for v in votes}
