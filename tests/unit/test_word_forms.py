"""English word forms for the full-text query (service/retrieval/word_forms.py)."""

from __future__ import annotations

import pytest

from service.retrieval.lucene import lucene_query
from service.retrieval.word_forms import MAX_FORMS, word_forms


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("camped", {"camp", "camps", "camping"}),
        ("painting", {"paint", "paints", "painted"}),
        ("hikes", {"hike", "hiked", "hiking"}),
        ("cities", {"city"}),
        ("stopped", {"stop", "stops", "stopping"}),
        ("making", {"make", "makes"}),
        ("visited", {"visit", "visits", "visiting"}),
        ("move", {"moves", "moved", "moving"}),
    ],
)
def test_a_word_finds_its_regular_inflections(word: str, expected: set[str]) -> None:
    forms = word_forms(word)
    assert forms[0] == word
    assert expected <= set(forms)
    assert len(forms) <= MAX_FORMS


@pytest.mark.parametrize("word", ["Melanie", "art", "c\\+\\+", "跑步"])
def test_names_short_words_and_other_scripts_are_left_as_written(word: str) -> None:
    assert word_forms(word)[:1] == (word,)
    assert word_forms(word) == (word,)


def test_the_lucene_query_holds_the_forms_only_when_asked() -> None:
    assert lucene_query("Where has Melanie camped?") == "Melanie OR camped"
    query = lucene_query("Where has Melanie camped?", word_forms_too=True)
    assert query is not None
    terms = query.split(" OR ")
    assert terms[:2] == ["Melanie", "camped"] and "camping" in terms
    assert "melanie" not in terms


def test_forty_words_stay_under_lucenes_clause_limit() -> None:
    words = " ".join(f"walked{chr(97 + i // 26)}{chr(97 + i % 26)}ing" for i in range(40))
    query = lucene_query(words, word_forms_too=True)
    assert query is not None
    # Three fields (memory_text_query): each term is one clause per field.
    assert 3 * len(query.split(" OR ")) < 1024
