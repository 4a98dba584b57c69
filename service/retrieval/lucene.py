"""Turn free text into a safe Lucene query: content words only, every special character escaped."""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_OPERATORS = {"AND", "OR", "NOT", "TO"}
MAX_TERMS = 32
# Lucene's standard analyzer makes one clause per CJK character; 32 terms x 16 stays far
# below its 1,024-clause limit.
MAX_CJK_TERM = 16


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
        if _is_cjk(word):
            word = word[:MAX_CJK_TERM]
        term = escape_term(word)
        if term not in terms:
            terms.append(term)
    return " OR ".join(terms[:MAX_TERMS]) or None


def _is_cjk(word: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in word)
