"""A yes-or-no question said yes to (service/nlp/relations/confirmed.py): the question as a
statement, and what the extractor reads of it. Made-up lines; no name is in an evaluation set."""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from service.nlp.relations.confirmed import says_yes, statements
from tests.conversations import relations


@pytest.mark.parametrize(
    ("question", "lang", "statement"),
    [
        ("Nice, is Tobin still at Ridgeway Bank?", "en", "Tobin is still at Ridgeway Bank."),
        ("Do you still work at Corvid Labs?", "en", "you do still work at Corvid Labs."),
        ("Isn't Corvid the startup in Tacoma?", "en", "Corvid is the startup in Tacoma."),
        ("Have you been to Oaxaca?", "en", "you have been to Oaxaca."),
        ("You work at Corvid, right?", "en", "You work at Corvid."),
        ("蓝湾琴行是不是在中山路那边？我老路过", "zh", "蓝湾琴行在中山路那边。"),
        ("你还在蓝湾银行吗？", "zh", "你还在蓝湾银行。"),
        ("你去过丽水没？", "zh", "你去过丽水。"),
    ],
)
def test_a_yes_or_no_question_said_as_a_statement(question: str, lang: str, statement: str) -> None:
    assert statements(question, lang) == [statement]


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("Where do you work?", "en"),
        ("Can you send me the Corvid file?", "en"),
        ("Tobin, would you move to Tacoma?", "en"),
        ("你在哪上班？", "zh"),
        ("蓝湾琴行几点关门？", "zh"),
    ],
)
def test_wh_and_modal_questions_have_no_statement(question: str, lang: str) -> None:
    assert statements(question, lang) == []


@pytest.mark.parametrize(
    ("answer", "lang", "yes"),
    [
        ("Yep, six years now.", "en", True),
        ("yeah, for now", "en", True),
        ("Yes, but I quit in May.", "en", False),
        ("No, he left.", "en", False),
        ("Why do you ask?", "en", False),
        ("对，就在中山路", "zh", True),
        ("嗯嗯，大四了", "zh", True),
        ("早就不在了", "zh", False),
        ("Twice! Loved it.", "en", True),  # how often says yes
        ("Every night, it's my comfort game.", "en", True),
        ("I do, four years now.", "en", True),
        ("I don't, I left in May.", "en", False),
        ("Never, sadly.", "en", False),
        ("天天玩，停不下来。", "zh", True),
        ("好几次了", "zh", True),
        ("一直没去成", "zh", False),
    ],
)
def test_an_answer_says_yes_only_by_opening_with_it(answer: str, lang: str, yes: bool) -> None:
    assert says_yes(answer, lang) is yes


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_a_confirmed_question_is_said_by_its_answer(extractor: Extractor) -> None:
    found = relations(
        extractor, [("Ana", "蓝湾琴行是不是在中山路那边？我老路过"), ("Ben", "对，就在二楼")]
    )
    assert ("蓝湾琴行", "LOCATED_IN", "中山路") in found, found


def test_a_dropped_subject_is_the_one_asked(extractor: Extractor) -> None:
    """还在X上学呢？ asks of the one addressed, not of the asker."""
    found = relations(extractor, [("Ana", "思琪！还在江城大学上学呢？"), ("思琪", "嗯嗯，大四了")])
    assert ("思琪", "STUDIES_AT", "江城大学") in found, found
    assert ("Ana", "STUDIES_AT", "江城大学") not in found, found


@pytest.mark.parametrize(
    "lines",
    [
        (("Ana", "蓝湾琴行是不是在中山路那边？"), ("Ben", "不是，在解放路。")),  # a no
        (("Ana", "蓝湾琴行是不是在中山路那边？"), ("Ana", "对，我记得是。")),  # no one else
    ],
)
def test_no_yes_from_another_speaker_confirms_nothing(
    extractor: Extractor, lines: tuple[tuple[str, str], ...]
) -> None:
    assert ("蓝湾琴行", "LOCATED_IN", "中山路") not in relations(extractor, list(lines))


def test_a_question_not_put_to_the_answerer_gives_them_nothing(extractor: Extractor) -> None:
    """工作室是在X吗？ asks of a studio, not of whoever answers: no home for the answerer."""
    found = relations(extractor, [("Ana", "工作室是在桃花坞吗？我路过过"), ("Ben", "对，就在里面")])
    assert not any(source == "Ben" for source, _, _ in found), found


@pytest.mark.parametrize(
    ("question", "answer", "yes"),
    [
        ("你去过敦煌吗？", "去过，前年去的。", True),  # the verb said again
        ("你还在星途物流吗？", "在啊", True),
        ("你去过敦煌吗？", "没去过。", False),
        ("你去过敦煌吗？", "前年去的", False),  # no verb of the question opens it
    ],
)
def test_a_chinese_answer_says_yes_by_saying_the_verb_again(
    question: str, answer: str, yes: bool
) -> None:
    assert says_yes(answer, "zh", question) is yes
