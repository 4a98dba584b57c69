"""Lines read with the one before them, end to end by the extractor on made-up lines (no name is
in an evaluation set): where something is, asked and answered (service/nlp/relations/
where_is.py), and "she" answering for the person asked about."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from tests.conversations import relations

Triple = tuple[str, str, str]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "And where's Corvid Labs based?",
            "It's in Tacoma, near the port.",
            ("Corvid Labs", "LOCATED_IN", "Tacoma"),
        ),
        ("where do you live now?", "Yeah I'm out in Bellevue.", ("Ben", "LIVES_IN", "Bellevue")),
        (
            "where does Tobin work these days?",
            "At Ridgeway Bank, still.",
            ("Tobin", "WORKS_AT", "Ridgeway Bank"),
        ),
        ("云杉科技在哪儿？", "在滨江，离地铁站挺近。", ("云杉科技", "LOCATED_IN", "滨江")),
        ("你现在住哪儿？", "就在拱墅那边。", ("Ben", "LIVES_IN", "拱墅")),
        # an adverb before the answer, growing up asked
        (
            "Where do you work these days?",
            "Still at Ridgeway Bank.",
            ("Ben", "WORKS_AT", "Ridgeway Bank"),
        ),
        ("Where did you grow up?", "Just outside Bellevue.", ("Ben", "LIVES_IN", "Bellevue")),
        ("你现在在哪上班呀？", "还在星途物流呢。", ("Ben", "WORKS_AT", "星途物流")),
        ("你老家是哪里的？", "四川绵阳。", ("Ben", "LIVES_IN", "绵阳")),  # the town
        ("你在哪家公司上班？", "在星途物流。", ("Ben", "WORKS_AT", "星途物流")),
        (
            "What company do you work for now?",
            "I'm at Ridgeway Bank now.",
            ("Ben", "WORKS_AT", "Ridgeway Bank"),
        ),
    ],
)
def test_a_place_answered_says_where(
    extractor: Extractor, question: str, answer: str, expected: Triple
) -> None:
    assert expected in relations(extractor, [("Ana", question), ("Ben", answer)])


def test_the_asked_one_works_there_not_who_answers(extractor: Extractor) -> None:
    """林悦在哪上班？在云杉科技。: 林悦's job; the answer's missing subject is not its speaker."""
    found = relations(extractor, [("Ana", "林悦在哪上班？"), ("Ben", "在云杉科技。")])
    assert ("林悦", "WORKS_AT", "云杉科技") in found
    assert ("Ben", "WORKS_AT", "云杉科技") not in found


@pytest.mark.parametrize(
    "lines",
    [
        # an answer that opens with something else
        (("Ana", "where's Corvid Labs based?"), ("Ben", "No idea, my cousin moved to Tacoma.")),
        # the asker goes on: no answer
        (("Ana", "where's Corvid Labs based?"), ("Ana", "Tacoma, I think.")),
    ],
)
def test_no_answer_no_place(extractor: Extractor, lines: tuple[tuple[str, str], ...]) -> None:
    found = relations(extractor, list(lines))
    assert ("Corvid Labs", "LOCATED_IN", "Tacoma") not in found, found


def test_she_is_the_one_asked_about_when_ner_took_the_firm_for_a_person(
    extractor: Extractor,
) -> None:
    """NER calls Corvid Labs a PERSON; its votes say ORG, so the line names no other person
    and "she" is the one the question named."""
    found = relations(
        extractor,
        [
            ("Ana", "How's Paloma doing these days?"),
            ("Ben", "She just started at Corvid Labs, loving it."),
        ],
    )
    assert ("Paloma", "WORKS_AT", "Corvid Labs") in found, found


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # a name after "she" is no antecedent, whatever NER makes of it
        (
            [
                ("Ana", "My sister Paloma lives in Tacoma."),
                ("Ben", "Does she like it there?"),
                ("Ana", "She loves it, she works at Nike now."),
            ],
            ("Paloma", "WORKS_AT", "Nike"),
        ),
        # "he's teaching", which the tagger makes a noun
        (
            [
                ("Ana", "What's Tobin up to these days?"),
                ("Ben", "He's teaching at Ridgeway High now."),
            ],
            ("Tobin", "WORKS_AT", "Ridgeway High"),
        ),
    ],
)
def test_he_and_she_are_the_one_named_before(
    extractor: Extractor, lines: list[tuple[str, str]], expected: Triple
) -> None:
    assert expected in relations(extractor, lines)


def test_a_question_of_someone_unnamed_gives_the_answerer_nothing(extractor: Extractor) -> None:
    """你女儿在哪上学？/ 在实验小学: the daughter's school, not the one who answers."""
    found = relations(extractor, [("Ana", "你女儿在哪上学？"), ("Ben", "在青禾实验小学，三年级。")])
    assert not any(source == "Ben" for source, _, _ in found), found


def test_a_name_opening_the_line_is_the_subject_of_its_later_clauses(extractor: Extractor) -> None:
    """王磊挺好的，刚跳槽去了X: 王磊's job, not the speaker's, and no visit."""
    found = relations(extractor, [("Ben", "王磊挺好的，刚跳槽去了星途物流。")])
    assert ("王磊", "WORKS_AT", "星途物流") in found
    assert not any(s == "Ben" or kind == "VISITED" for s, kind, _ in found), found


def test_the_answer_decides_the_tie_the_learned_reader_guessed(extractor: Extractor) -> None:
    """Asked which company, "I'm at X now" is a job there: no school besides."""
    found = relations(
        extractor,
        [("Ana", "What company do you work for now?"), ("Ben", "I'm at Ridgeway Bank now.")],
    )
    assert [t for t in found if t[2] == "Ridgeway Bank"] == [("Ben", "WORKS_AT", "Ridgeway Bank")]
