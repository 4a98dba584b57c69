"""Family said across a conversation, end to end by the extractor on made-up lines (no name is
in an evaluation set): marriage to someone's kin, and "been married to" read as no visit."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from tests.conversations import relations


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_married_to_your_son_is_family_of_you(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Marguerite", "Odile, dear, Bastien never eats his greens."),
            ("Odile", "I know, Marguerite. I've been married to your son for two years."),
        ],
    )
    assert ("Odile", "FAMILY_OF", "Marguerite") in found


def test_married_to_your_boss_makes_no_family_of_you(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Marguerite", "Odile, how is the new job?"),
            ("Odile", "Marguerite, I'm married to your boss, remember?"),
        ],
    )
    assert ("Odile", "FAMILY_OF", "Marguerite") not in found


def test_been_married_to_someone_is_no_visit(extractor: Extractor) -> None:
    found = relations(extractor, [("Odile", "I've been married to Bastien for two years.")])
    assert ("Odile", "FAMILY_OF", "Bastien") in found
    assert ("Odile", "VISITED", "Bastien") not in found
