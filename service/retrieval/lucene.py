"""Turn free text into a safe Lucene query: content words only, every special character escaped."""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_OPERATORS = {"AND", "OR", "NOT", "TO"}
MAX_TERMS = 32


def escape_term(term: str) -> str:
    escaped = _SPECIAL.sub(r"\\\1", term)
    return escaped.lower() if term in _OPERATORS else escaped


def lucene_query(text: str) -> str | None:
    """OR of the escaped content words of ``text`` (None when nothing is left to search)."""
    terms: list[str] = []
    for word in _WORD.findall(text):
        word = word.split("'")[0].split("’")[0]
        if (len(word) < 2 and not _is_cjk(word)) or word.lower() in STOP_WORDS:
            continue
        term = escape_term(word)
        if term not in terms:
            terms.append(term)
    return " OR ".join(terms[:MAX_TERMS]) or None


def _is_cjk(word: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in word)
