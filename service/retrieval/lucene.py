"""Turn free text into a safe Lucene query: content words only, every special character escaped."""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

from service.retrieval.word_forms import word_forms

_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_OPERATORS = {"AND", "OR", "NOT", "TO"}
MAX_TERMS = 32
# Lucene's standard analyzer makes one clause per CJK character; 32 terms x 10 characters x
# the 3 fields of memory_text_query stays below its 1,024-clause limit.
MAX_CJK_TERM = 10


def escape_term(term: str) -> str:
    escaped = _SPECIAL.sub(r"\\\1", term)
    return escaped.lower() if term in _OPERATORS else escaped


def lucene_query(text: str, word_forms_too: bool = False) -> str | None:
    """OR of the escaped content words of ``text`` (None when nothing is left to search), and
    with ``word_forms_too`` their other English forms (word_forms.py)."""
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
    terms = terms[:MAX_TERMS]
    if word_forms_too:
        terms = list(dict.fromkeys(form for term in terms for form in word_forms(term)))
    return " OR ".join(terms) or None


def memory_text_query(terms: str, context_weight: float) -> str:
    """The query for the memory full-text indexes: ``terms`` (lucene_query's) in the memory's
    own words, and, weighted by ``context_weight``, in the words of the message it follows
    (context_text: a reply shares no word with its topic)."""
    own = f"text:({terms}) OR source_text:({terms})"
    return own if context_weight <= 0 else f"{own} OR context_text:({terms})^{context_weight:g}"


def _is_cjk(word: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in word)
