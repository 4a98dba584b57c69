"""A named tool that does something for the speaker is the speaker's (english_frames.py,
``tool_subject``). Made-up sentences, in no dev conversation; the speaker is "Ann"."""

from __future__ import annotations

import pytest
from spacy.language import Language

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.extractor import RelationExtractor
from tests.unit.test_relations import find_en

PRODUCT = EntityLabel.PRODUCT


@pytest.mark.parametrize(
    "text",
    [
        "Ledgerly saves me hours every week",  # the speaker as the indirect object
        "honestly Ledgerly handles all our invoices now",  # the speaker's things as the object
        "Ledgerly keeps crashing on my laptop",  # through a verb it governs
        "Ledgerly is clicking for me finally",  # "for me"
    ],
)
def test_a_tool_that_serves_the_speaker_is_used(
    finder: RelationExtractor, english: Language, text: str
) -> None:
    assert ("Ann", "USES", "Ledgerly") in find_en(finder, english, text, Ledgerly=PRODUCT)


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        # "his" says the subject is someone, whatever NER called the name
        ("Bramble left his Kindle at my flat", {"Bramble": EntityLabel.CONCEPT}),
        # denied or asked
        ("Ledgerly doesn't work on my phone", {"Ledgerly": PRODUCT}),
        ("does Ledgerly work on your phone?", {"Ledgerly": PRODUCT}),
        # a verb of the row's cancelled_by: a company that writes is no tool in use
        ("Ledgerly sent me a refund", {"Ledgerly": PRODUCT}),
        # a person is no tool
        ("Bramble fixed my bike", {"Bramble": EntityLabel.PERSON}),
    ],
)
def test_no_tool_used(
    finder: RelationExtractor, english: Language, text: str, labels: dict[str, EntityLabel]
) -> None:
    found = find_en(finder, english, text, **labels)
    assert not {t for t in found if t[1] == "USES" and t[2] in {"Ledgerly", "Bramble"}}
