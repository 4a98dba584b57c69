"""Hits that state something first (service/retrieval/informative.py)."""

from __future__ import annotations

import pytest

from service.retrieval.informative import informative_first, states_nothing


@pytest.mark.parametrize(
    "text",
    [
        "That's awesome, Melanie! What made you pick it?",
        "Anything new since last time?",
        "Wow, Jon!",
        "Caroline, that's great!",
        "Congrats! That’s so cool!",
        "哈哈，那挺好。真的吗？",
    ],
)
def test_questions_and_bare_reactions_state_nothing(text: str) -> None:
    assert states_nothing(text, "zh" if "哈" in text else "en")


@pytest.mark.parametrize(
    "text",
    [
        "It's Shia Labeouf!",  # a name that is not said to someone
        "Wow, Jon! Impressed by your commitment.",
        "Took a short trip last week to Rome. Have you been?",
        "[shares image: a photo of a dog on a beach]",
        "我上个月在腾讯科技入职了。你呢？",
        "",
    ],
)
def test_a_statement_states_something(text: str) -> None:
    assert not states_nothing(text, "zh" if "腾讯" in text else "en")


def test_memories_that_state_nothing_go_last_in_their_own_order() -> None:
    order = informative_first(["q1", "a", "q2", "b"], {"q1", "q2"}, {})
    assert order == ["a", "b", "q1", "q2"]


def test_a_repeat_of_a_shown_message_goes_after_other_messages() -> None:
    sources = {"a1": ["m1"], "a2": ["m1"], "b": ["m2"], "c": ["m1", "m3"]}
    order = informative_first(["a1", "a2", "b", "c"], set(), sources)
    # c adds m3, so it is not a repeat; a2 only repeats m1.
    assert order == ["a1", "b", "c", "a2"]


def test_memories_without_sources_are_never_repeats() -> None:
    assert informative_first(["x", "y"], set(), {"x": [], "y": []}) == ["x", "y"]
