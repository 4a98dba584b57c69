"""A memory's vector in its conversational context: which facts it is mixed with, and how."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from service.core.domain import Scope
from service.embedding.embedder import with_context
from service.ingest.write_plan import Candidate, attach_contexts, make_candidates
from service.nlp.pipeline import Fact

SAID = datetime(2024, 5, 10, tzinfo=UTC)


def fact(text: str, message: int) -> Fact:
    return Fact(text=text, source_text=text, message_index=message, lang="en", confidence=0.9)


def candidates(facts: list[list[Fact]]) -> list[Candidate]:
    n = len(facts)
    return make_candidates(
        Scope(user_id="u"), facts, [f"m{i}" for i in range(n)], [SAID] * n, [None] * n
    )


def test_a_fact_is_given_the_facts_of_the_message_before_it_in_its_session() -> None:
    found = candidates(
        [
            [fact("Caroline asked how running is going.", 0)],
            [],  # a greeting: no facts, so the next message looks past it
            [
                fact("Melanie said it helps her mental health.", 2),
                fact("Melanie will keep it up.", 2),
            ],
            [fact("Jon opened a dance studio.", 3)],  # another session
            [fact("Caroline said that is wonderful.", 4)],
        ]
    )
    attach_contexts(found, ["s1", "s1", "s1", "s2", "s1"])
    contexts = {c.fact.text: c.context_texts for c in found}
    assert contexts == {
        "Caroline asked how running is going.": [],
        "Melanie said it helps her mental health.": ["Caroline asked how running is going."],
        "Melanie will keep it up.": ["Caroline asked how running is going."],
        "Jon opened a dance studio.": [],
        "Caroline said that is wonderful.": [
            "Melanie said it helps her mental health.",
            "Melanie will keep it up.",
        ],
    }


def test_messages_without_a_session_are_one_conversation() -> None:
    found = candidates([[fact("One.", 0)], [fact("Two.", 1)]])
    attach_contexts(found, [None, None])
    assert [c.context_texts for c in found] == [[], ["One."]]


def test_with_context_is_the_unit_sum_of_own_and_weighted_mean_context() -> None:
    own, a, b = np.eye(3)
    mixed = with_context(own, [a, b], 0.5)
    expected = own + 0.5 * (a + b) / 2
    assert mixed == pytest.approx(list(expected / np.linalg.norm(expected)))
    assert float(np.linalg.norm(mixed)) == pytest.approx(1.0)


@pytest.mark.parametrize(("context", "weight"), [([], 0.5), ([[0.0, 1.0]], 0.0)])
def test_without_context_or_weight_the_vector_is_its_own(
    context: list[list[float]], weight: float
) -> None:
    assert with_context([1.0, 0.0], context, weight) == [1.0, 0.0]


def test_a_message_answers_the_last_other_speaker() -> None:
    from service.core.domain import MessageIn
    from service.nlp.pipeline import addressed

    # The first message, which answers nobody, speaks to whoever answers it.
    said = [MessageIn(speaker=s, content="嗯") for s in ("甲", "乙", "乙", "甲", "丙")]
    assert addressed(said) == ["乙", "甲", "甲", "乙", "甲"]
    alone = [MessageIn(speaker="甲", content="嗯")] * 2
    assert addressed(alone) == [None, None]
