"""Names the small English model does not know, parsed as names it does
(service/nlp/entities/stand_ins.py), and the clauses around them.

Made-up sentences; none of their names is in graph-dev.json.
"""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.entities.stand_ins import disguise, given_names, restored, speaker_words
from service.nlp.pipeline import Extractor
from tests.conversations import relations


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_a_speakers_name_is_replaced_by_one_of_the_same_length() -> None:
    shown = disguise("Oisin's renting a flat in Leeds, ask Oisin", speaker_words(["Oisin"]))
    assert len(shown.text) == len(shown.original)
    assert "Oisin" not in shown.text
    assert [shown.original[a:b] for a, b in shown.spans] == ["Oisin", "Oisin"]


def test_a_word_of_a_longer_name_is_left_alone() -> None:
    words = frozenset({"Oisin", "Mario"})
    assert disguise("I play Mario Kart with Oisin", words).spans == ((23, 28),)
    # a reaction before the name is no part of it
    assert disguise("Hey Oisin, you up?", words).spans == ((4, 9),)


def test_common_words_and_the_calendar_are_no_stand_in() -> None:
    assert speaker_words(["Will", "May Chen"]) == frozenset({"Chen"})
    found = given_names(["Hey Thu, Rose and Kiran met on Mon"])
    assert "Kiran" in found
    assert not {"Hey", "Thu", "Rose", "Mon"} & found


def test_the_restored_doc_has_the_original_text_and_the_parse(extractor: Extractor) -> None:
    text = "Oisin works at Larchfield Mills."
    shown = disguise(text, speaker_words(["Oisin"]))
    doc = restored(extractor.entities.english(shown.text), shown)
    assert doc.text == text
    name = doc[0]
    assert (name.text, name.lemma_, name.pos_, name.dep_) == ("Oisin", "Oisin", "PROPN", "nsubj")
    assert ("Oisin", "PERSON") in {(e.text, e.label_) for e in doc.ents}


def test_an_unknown_speakers_name_is_read_as_a_person(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [("Aoife", "morning all"), ("Brigid", "Aoife's renting a box room in Drumcondra now")],
    )
    # read as a place's name, Aoife was LOCATED_IN Drumcondra
    assert ("Aoife", "LIVES_IN", "Drumcondra") in found
    assert not {r for r in found if r[0] == "Brigid"}


def test_a_clause_before_a_dreaming_verb_is_still_said(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [("Brigid", "we got back from four days in Porto, I'm still dreaming about the tarts")],
    )
    assert ("Brigid", "VISITED", "Porto") in found


def test_a_wish_is_still_no_fact(extractor: Extractor) -> None:
    found = relations(extractor, [("Brigid", "I wish I lived in Porto.")])
    assert not {r for r in found if r[1] == "LIVES_IN"}


def test_a_chinese_supposition_with_ba_gives_no_job(extractor: Extractor) -> None:
    found = relations(extractor, [("吴桐", "工商银行多稳定啊，工行杭州分行待遇也不差吧")])
    assert not {r for r in found if r[1] == "WORKS_AT"}
