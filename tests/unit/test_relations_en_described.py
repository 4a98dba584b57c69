"""English relations read from a noun that describes a name (english_described.py).

Made-up sentences, in no dev conversation: a business noun places the name it describes
("X, a cafe in Y"), a work noun names its maker ("X is Y's novel", "a podcast by Y"). The
speaker is "Ann".
"""

from __future__ import annotations

import pytest
from spacy.language import Language

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.extractor import RelationExtractor
from tests.unit.test_relations import find_en

ORG, PERSON, PLACE, PRODUCT = (
    EntityLabel.ORG,
    EntityLabel.PERSON,
    EntityLabel.PLACE,
    EntityLabel.PRODUCT,
)


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        # a business noun after "is": its place, whatever NER called the name
        ("Crumbs is a tiny cafe in Leith", {"Crumbs": PERSON, "Leith": PLACE}, "Crumbs"),
        ("Pellworth is a startup from Tartu", {"Pellworth": ORG, "Tartu": PLACE}, "Pellworth"),
        # in apposition, with the place after the noun or before it
        (
            "we love Pellworth, a little bakery in Tartu",
            {"Pellworth": ORG, "Tartu": PLACE},
            "Pellworth",
        ),
        (
            "Pellworth, a Tartu startup, just raised money",
            {"Pellworth": ORG, "Tartu": PLACE},
            "Pellworth",
        ),
    ],
)
def test_a_business_noun_places_the_name(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    expected: str,
) -> None:
    place = next(k for k in labels if k != expected)
    assert (expected, "LOCATED_IN", place) in find_en(finder, english, text, **labels)


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("Salt Roads is Halvard's first novel", {"Salt_Roads": PRODUCT, "Halvard": PERSON}),
        ("Halvard's new app Nightjar is out", {"Halvard": PERSON, "Nightjar": PRODUCT}),
        ("Nightjar, Halvard's new app, is out", {"Nightjar": PRODUCT, "Halvard": PERSON}),
        ("Nightjar is a little podcast by Halvard", {"Nightjar": PRODUCT, "Halvard": PERSON}),
    ],
)
def test_a_work_noun_names_its_maker(
    finder: RelationExtractor, english: Language, text: str, labels: dict[str, EntityLabel]
) -> None:
    maker = "Halvard"
    work = next(k.replace("_", " ") for k in labels if k != maker)
    assert (maker, "CREATED", work) in find_en(finder, english, text, **labels)


def test_the_speakers_own_startup_is_hers(finder: RelationExtractor, english: Language) -> None:
    found = find_en(finder, english, "my startup Quillwork finally launched", Quillwork=ORG)
    assert ("Ann", "CREATED", "Quillwork") in found


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        # a favourite is liked, not made
        ("Nightjar is my favourite app", {"Nightjar": PRODUCT}),
        # asked or denied
        ("is Crumbs a cafe in Leith?", {"Crumbs": ORG, "Leith": PLACE}),
        ("Crumbs isn't a cafe in Leith anymore", {"Crumbs": ORG, "Leith": PLACE}),
        # the noun describes no name
        ("I'm a regular at a cafe in Leith", {"Leith": PLACE}),
    ],
)
def test_no_description_no_relation(
    finder: RelationExtractor, english: Language, text: str, labels: dict[str, EntityLabel]
) -> None:
    found = find_en(finder, english, text, **labels)
    assert not {t for t in found if t[1] in {"CREATED", "LOCATED_IN"}}


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        # a group, a workplace, a school of one's own, named beside the noun
        ("our choir, Voxtide, has a gig Friday", {"Voxtide": ORG}, ("MEMBER_OF", "Voxtide")),
        ("Voxtide is my band", {"Voxtide": ORG}, ("MEMBER_OF", "Voxtide")),
        ("my company Quillwork is hiring", {"Quillwork": ORG}, ("WORKS_AT", "Quillwork")),
        (
            "my old school, Ashgrove High, closed",
            {"Ashgrove_High": ORG},
            ("STUDIES_AT", "Ashgrove High"),
        ),
    ],
)
def test_an_owned_group_noun_names_the_speakers_group(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    expected: tuple[str, str],
) -> None:
    assert ("Ann", *expected) in find_en(finder, english, text, **labels)


def test_my_favourite_band_is_no_band_of_mine(finder: RelationExtractor, english: Language) -> None:
    found = find_en(finder, english, "Voxtide is my favourite band", Voxtide=ORG)
    assert ("Ann", "MEMBER_OF", "Voxtide") not in found


def test_a_plural_kin_noun_relates_each_name(finder: RelationExtractor, english: Language) -> None:
    found = find_en(
        finder, english, "my sisters Ingrid and Bo are visiting", Ingrid=PERSON, Bo=PERSON
    )
    assert {("Ann", "FAMILY_OF", "Ingrid"), ("Ann", "FAMILY_OF", "Bo")} <= found


def test_an_organisation_that_opened_in_a_place_is_there(
    finder: RelationExtractor, english: Language
) -> None:
    found = find_en(
        finder, english, "Quillwork opened in Tartu in 2015", Quillwork=ORG, Tartu=PLACE
    )
    assert ("Quillwork", "LOCATED_IN", "Tartu") in found


@pytest.mark.parametrize(
    ("text", "labels", "home"),
    [
        # one travels from home: each subject lives there
        (
            "my husband Bo and I will drive down from Tartu on Friday",
            {"Bo": PERSON, "Tartu": PLACE},
            {("Ann", "LIVES_IN", "Tartu"), ("Bo", "LIVES_IN", "Tartu")},
        ),
        # a trip back from a place is a visit there, not a home
        ("Halvard flew back from Tartu yesterday", {"Halvard": PERSON, "Tartu": PLACE}, set()),
    ],
)
def test_travel_from_a_place_starts_at_home(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    home: set[tuple[str, str, str]],
) -> None:
    found = find_en(finder, english, text, **labels)
    assert {t for t in found if t[1] == "LIVES_IN"} == home
