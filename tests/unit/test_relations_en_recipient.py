"""Verbs of giving: the recipient owns what is given ("Sam got me X"), not the giver.
Made-up sentences, in no dev conversation; the speaker is "Ann"."""

from __future__ import annotations

import pytest
from spacy.language import Language

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.extractor import RelationExtractor
from tests.unit.test_relations import find_en

PERSON, PRODUCT = EntityLabel.PERSON, EntityLabel.PRODUCT


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("Halvard bought me a Kindle for my birthday", "Ann"),  # a dative recipient
        ("I bought Halvard a Kindle", "Halvard"),  # parsed as two objects
        ("I got a Kindle for Halvard", "Halvard"),  # "for" a person
        ("I got a Kindle for my birthday", "Ann"),  # "for" no one: the buyer
        ("Halvard gave me a Kindle", "Ann"),  # giving needs a recipient
    ],
)
def test_the_recipient_owns_what_is_given(
    finder: RelationExtractor, english: Language, text: str, owner: str
) -> None:
    # mentions in text order, as find_en looks them up
    names = sorted((n for n in ("Halvard", "Kindle") if n in text), key=text.index)
    labels = {n: PERSON if n == "Halvard" else PRODUCT for n in names}
    owners = {s for s, r, t in find_en(finder, english, text, **labels) if r == "OWNS"}
    assert owners == {owner}


def test_giving_without_a_recipient_gives_no_one_anything(
    finder: RelationExtractor, english: Language
) -> None:
    found = find_en(finder, english, "we gave a Kindle away at the fair", Kindle=PRODUCT)
    assert not {t for t in found if t[1] == "OWNS"}
