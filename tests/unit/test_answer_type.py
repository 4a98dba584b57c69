"""What kind of answer a question asks for (service/retrieval/answer_type.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.core.domain import EntityRef, SearchOptions, StoredMemory
from service.retrieval.answer_type import (
    AnswerType,
    answer_type,
    answer_type_first,
    holds_answer,
)
from service.retrieval.query import plan_query
from service.store.repository import Evidence


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Gina open her store?", AnswerType.DATE),
        ("In which year did Alice move?", AnswerType.DATE),
        ("Where has Melanie camped?", AnswerType.PLACE),
        ("Which cities has Jon visited?", AnswerType.PLACE),
        ("他什么时候去的北京？", AnswerType.DATE),
        ("她住在哪里？", AnswerType.PLACE),
        ("What does Melanie paint?", None),
        ("How long has she been painting?", None),  # a duration, not a date
        ("Tell me about the place where we met", None),
    ],
)
def test_the_question_words_say_the_kind_of_answer(
    question: str, expected: AnswerType | None
) -> None:
    assert answer_type(question) is expected


def _evidence(valid_from: datetime | None = None, *entity_types: str) -> Evidence:
    memory = StoredMemory(id="m", text="x", valid_from=valid_from)
    entities = [EntityRef(name=f"e{i}", type=t) for i, t in enumerate(entity_types)]
    return Evidence(memory, [], entities)


def test_a_date_or_a_place_entity_holds_the_answer() -> None:
    dated = _evidence(datetime(2023, 5, 1, tzinfo=UTC))
    assert holds_answer(dated, AnswerType.DATE)
    assert not holds_answer(dated, AnswerType.PLACE)
    rome = _evidence(None, "PERSON", "PLACE")
    assert holds_answer(rome, AnswerType.PLACE)
    assert not holds_answer(rome, AnswerType.DATE)


def test_a_hit_holding_the_answer_passes_those_it_nearly_ties_only() -> None:
    scores = {"a": 1.0, "b": 0.9, "c": 0.5, "d": 0.45}
    order = answer_type_first(["a", "b", "c", "d"], scores, {"b", "d"}, 0.2)
    # b (0.9 x 1.2 = 1.08) passes a; d (0.54) passes c; nothing passes a hit twice its score.
    assert order == ["b", "a", "d", "c"]
    assert answer_type_first(["a", "b"], scores, {"b"}, 0.0) == ["a", "b"]


def test_the_query_plan_carries_the_kind_of_answer() -> None:
    assert plan_query("When did Gina open her store?", SearchOptions()).answer_type is (
        AnswerType.DATE
    )
    assert plan_query("What does Melanie paint?", SearchOptions()).answer_type is None
