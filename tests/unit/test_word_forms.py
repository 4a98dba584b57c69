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


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("bought", {"buy", "buys", "buying"}),
        ("went", {"go", "goes", "going", "gone"}),
        ("children", {"child"}),
        ("meeting", {"meetings", "meet", "met"}),
        ("leaves", {"leave", "left", "leaf"}),
    ],
)
def test_a_word_finds_its_irregular_forms_and_every_reading(word: str, expected: set[str]) -> None:
    assert expected <= set(word_forms(word))


def test_every_form_is_one_plain_word() -> None:
    # The dictionary spells one plural of "bookshelf" "book shelves": two words in Lucene.
    assert word_forms("bookshelf") == ("bookshelf", "bookshelves")


@pytest.mark.parametrize("word", ["Melanie", "art", "c\\+\\+", "跑步", "lgbtq"])
def test_names_short_words_other_scripts_and_unknown_words_are_left_as_written(word: str) -> None:
    assert word_forms(word)[:1] == (word,)
    assert word_forms(word) == (word,)


def test_the_lucene_query_holds_the_forms_only_when_asked() -> None:
    assert lucene_query("Where has Melanie camped?") == "Melanie OR camped"
    query = lucene_query("Where has Melanie camped?", word_forms_too=True)
    assert query is not None
    terms = query.split(" OR ")
    assert terms[:2] == ["Melanie", "camped"] and "camping" in terms
    assert "melanie" not in terms


# Words with the most forms in the dictionary: each is cut to MAX_FORMS.
MANY_FORMS = (
    "best better worse worst hiccup hiccups lasso lassoes lassoing lassoo forgo forgoes "
    "forgoing forgone forego foregoes foregoing foregone forwent forewent forswear forswore "
    "forsworn foreswear foreswore foresworn empanel empanels empanelled impanel impanels "
    "impanelled jell jelled jells gell gelled gells staves gels"
)


def test_a_word_has_at_most_max_forms() -> None:
    assert {len(word_forms(word)) for word in MANY_FORMS.split()} == {MAX_FORMS}


def test_forty_words_stay_under_lucenes_clause_limit() -> None:
    query = lucene_query(MANY_FORMS, word_forms_too=True)
    assert query is not None
    # Three fields (memory_text_query): each term is one clause per field.
    assert 3 * len(query.split(" OR ")) < 1024
