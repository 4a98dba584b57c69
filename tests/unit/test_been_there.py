""" "I've been." after a sentence that names a place (service/nlp/relations/been_there.py), end
to end by the extractor on made-up lines; no name is in an evaluation set."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from tests.conversations import relations


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("Briarwood Farm is a petting zoo with a pond. I've been. Twice.", "Briarwood Farm"),
        ("Have you heard of Ossery Falls? I've been there twice, so good.", "Ossery Falls"),
        ("Ghent next month? Been there for my cousin's wedding, you'll love it.", "Ghent"),
    ],
)
def test_having_been_visits_the_place_named_before(
    extractor: Extractor, said: str, place: str
) -> None:
    assert ("Ione", "VISITED", place) in relations(extractor, [("Ione", said)])


@pytest.mark.parametrize(
    "said",
    [
        "Work at Briarwood Farm is crazy. I've been, like, so busy.",  # been busy, not there
        "Briarwood Farm and Ghent are lovely. I've been.",  # which of the two: neither
    ],
)
def test_no_visit_without_one_place_or_with_more_said(extractor: Extractor, said: str) -> None:
    assert ("Ione", "VISITED", "Briarwood Farm") not in relations(extractor, [("Ione", said)])


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("青岩古镇？去年你带我去了一趟，晒得要命。", "青岩古镇"),
        ("丽水啊。我去过两次。", "丽水"),
    ],
)
def test_a_chinese_clause_of_having_gone_visits_the_place_before(
    extractor: Extractor, said: str, place: str
) -> None:
    assert ("王芳", "VISITED", place) in relations(extractor, [("王芳", said)])


@pytest.mark.parametrize("said", ["丽水啊。我没去过。", "丽水和绍兴？我都去过。"])
def test_no_chinese_visit_denied_or_of_two_places(extractor: Extractor, said: str) -> None:
    assert ("王芳", "VISITED", "丽水") not in relations(extractor, [("王芳", said)])
