"""A question for a name answered by a name (service/nlp/relations/filled.py): the question
said again with the name in it, and what the extractor reads of it. Made-up lines; no name is
in an evaluation set."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.pipeline import Extractor
from service.nlp.relations.filled import filled
from tests.conversations import relations


def _mention(text: str, name: str) -> EntityMention:
    start = text.index(name)
    return EntityMention(name, EntityLabel.ORG, start, start + len(name), "test", 0.9)


@pytest.mark.parametrize(
    ("question", "answer", "name", "statement"),
    [
        (
            "Which app do you use for running?",
            "Strava, mostly for the segments.",
            "Strava",
            "you do use Strava for running.",
        ),
        (
            "What are you driving these days?",
            "An old Civic.",
            "Civic",
            "you are driving Civic these days.",
        ),
        (
            "Who do you work for now?",
            "Halvorsen Logistics.",
            "Halvorsen Logistics",
            "you do work for Halvorsen Logistics now.",
        ),
        ("Which gym does Femi go to?", "Ironworks", "Ironworks", "Femi does go to Ironworks."),
        (
            "Where did you end up moving?",
            "Tucson. The heat!",
            "Tucson",
            "you did end up moving to Tucson.",
        ),
        (
            "Where did your parents retire?",
            "Out in Sarasota.",
            "Sarasota",
            "your parents did retire in Sarasota.",
        ),
        (
            "What's your favourite bakery?",
            "Probably Crumb & Co.",
            "Crumb & Co",
            "your favourite bakery is Crumb & Co.",
        ),
        ("你现在用什么手机？", "华为Mate60，挺好用的。", "华为Mate60", "你现在用华为Mate60。"),
        ("你最喜欢哪家火锅店呀？", "嗯，海底捞吧", "海底捞", "你最喜欢海底捞。"),
    ],
)
def test_a_name_that_answers_takes_the_question_words_place(
    question: str, answer: str, name: str, statement: str
) -> None:
    lang = "zh" if question[0] > "\u2e80" else "en"
    said = filled(question, answer, (_mention(answer, name),), lang)
    assert said is not None
    assert (said.statement, said.name) == (statement, name)


@pytest.mark.parametrize(
    ("question", "answer", "name"),
    [
        ("Which bank do you use?", "Ardent Bank is awful, honestly.", "Ardent Bank"),  # a verb
        ("Is Ardent Bank any good?", "Ardent Bank, yes.", "Ardent Bank"),  # no question word
        ("How's your brother?", "Marco's fine.", "Marco"),
        ("Which bank do you use?", "I think it's Ardent Bank.", "Ardent Bank"),  # not first
        ("你用什么手机？", "华为Mate60是我老婆的。", "华为Mate60"),
    ],
)
def test_no_statement_unless_a_name_alone_answers(question: str, answer: str, name: str) -> None:
    lang = "zh" if question[0] > "\u2e80" else "en"
    assert filled(question, answer, (_mention(answer, name),), lang) is None


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


@pytest.mark.parametrize(
    ("lines", "relation"),
    [
        (
            [("Dana", "Where did you end up moving?"), ("Femi", "Tucson. The heat is no joke.")],
            ("Femi", "LIVES_IN", "Tucson"),
        ),
        (
            [("王芳", "你最喜欢哪家火锅店？"), ("李明", "海底捞。")],
            ("李明", "LIKES", "海底捞"),
        ),
        (
            [("王芳", "你去年去的哪个城市旅游？"), ("李明", "大理，特别舒服。")],
            ("李明", "VISITED", "大理"),
        ),
    ],
)
def test_the_answer_says_what_the_question_asked(
    extractor: Extractor, lines: list[tuple[str, str]], relation: tuple[str, str, str]
) -> None:
    found = relations(extractor, lines)
    assert relation in found, found
    assert not any(source == lines[0][0] for source, _, _ in found), found  # not the asker's


def test_the_asker_answering_themselves_says_nothing(extractor: Extractor) -> None:
    found = relations(extractor, [("王芳", "我最喜欢哪家火锅店？"), ("王芳", "海底捞。")])
    assert ("王芳", "LIKES", "海底捞") not in found, found


def test_a_particle_makes_another_verb(extractor: Extractor) -> None:
    """ "work out at X" is exercise, not a job: not by the rows, not by the learned reader."""
    found = relations(extractor, [("Dana", "I work out at Ironworks most mornings.")])
    assert ("Dana", "WORKS_AT", "Ironworks") not in found, found
    assert ("Dana", "WORKS_AT", "Ironworks") in relations(
        extractor, [("Dana", "I work at Ironworks most mornings.")]
    )
