"""Family circles (service/nlp/relations/family.py): people each family of one person are
family of each other when one of them speaks.

Made-up names and conversations; none is in graph-dev.json or the scene set.
"""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.entities.patterns import EntityLabel
from service.nlp.pipeline import Extractor
from service.nlp.relations.family import CONFIDENCE, EXTRACTOR, family_circles
from service.nlp.relations.table import Endpoint, RelationMention, RelationType
from tests.conversations import relations


def tie(
    a: str, b: str, kind: RelationType = RelationType.FAMILY_OF, confidence: float = 0.8
) -> RelationMention:
    person = EntityLabel.PERSON
    return RelationMention(kind, Endpoint(a, person), Endpoint(b, person), "dep:test", confidence)


def pairs(found: list[list[RelationMention]]) -> list[list[frozenset[str]]]:
    return [[frozenset((r.source.name, r.target.name)) for r in said] for said in found]


def test_two_speakers_family_of_one_are_family_from_the_message_that_joins_them() -> None:
    found = family_circles(
        [[tie("Ada", "June")], [], [tie("June", "Theo")]], ["Ada", "Theo", "June"]
    )
    assert pairs(found) == [[], [], [frozenset(("Ada", "Theo"))]]
    (inferred,) = found[2]
    assert (inferred.extractor, inferred.confidence) == (EXTRACTOR, CONFIDENCE)
    assert inferred.confidence < 0.8  # below the ties it comes from


def test_a_tie_needs_a_speaker_at_one_end() -> None:
    # Ada speaks; her aunt Rhea and Rhea's son Cal are talked about: Ada–Cal is a tie, but
    # nothing is added between two people no speaker is.
    found = family_circles([[tie("Ada", "Rhea")], [tie("Rhea", "Cal")]], ["Ada", "Bo"])
    assert pairs(found) == [[], [frozenset(("Ada", "Cal"))]]
    talked_about = family_circles([[tie("Rhea", "Cal")], [tie("Cal", "Ivo")]], ["Ada"])
    assert pairs(talked_about) == [[], []]


def test_a_name_in_full_is_the_speaker_who_goes_by_its_nickname() -> None:
    found = family_circles(
        [[tie("Ada", "June")], [tie("June", "Katherine")]], ["Ada", "Kate", "June"]
    )
    assert pairs(found) == [[], [frozenset(("Ada", "Kate"))]]


@pytest.mark.parametrize(
    "weak",
    [
        tie("June", "Theo", confidence=0.5),  # a guess is not carried further
        tie("June", "Theo", kind=RelationType.FRIEND_OF),  # a friend of family is no kin
    ],
)
def test_weak_or_other_ties_join_no_circles(weak: RelationMention) -> None:
    assert pairs(family_circles([[tie("Ada", "June")], [weak]], ["Ada", "Theo", "June"])) == [
        [],
        [],
    ]


def test_a_pair_already_tied_is_not_added_again() -> None:
    said = [[tie("Ada", "June")], [tie("June", "Theo"), tie("Ada", "Theo")]]
    assert pairs(family_circles(said, ["Ada", "Theo", "June"])) == [[], []]


def test_the_pipeline_ties_the_speakers_a_conversation_shows_as_one_family() -> None:
    found = relations(
        Extractor(Settings()),
        [
            ("June", "Ada, dinner is ready! Come down."),
            ("Ada", "Mom, five minutes."),
            ("Theo", "I set the table already, June."),
            ("June", "Theo, you're my favorite son-in-law."),
        ],
        read_by=EXTRACTOR,
    )
    assert found == {("Ada", "FAMILY_OF", "Theo")}
