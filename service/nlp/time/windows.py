"""A window of time from a phrase, relative to a reference instant, in English or Chinese.

A window is one period ("last month", "上个月"), two periods joined ("between March and May",
"从三月到五月"), or one period with a bound word ("since last month", "上个月以来", "before
May", "五月之前"). The periods are read by the time rules of this package (tags.py); the bound
words are data (``windows`` in nlp_models/time_phrases.json). Bounds, half-open:

- between X and Y: from the start of X to the end of Y;
- since X: from the start of X to the reference; after X: from the end of X to the reference;
- before X: up to the start of X; until X: up to the end of X (no start).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from service.nlp.time.calendar import TimeTag
from service.nlp.time.periods import WindowWords, time_phrase_words
from service.nlp.time.tags import find_time_tags, resolve_phrase

_CJK = re.compile(r"[\u3400-\u9fff]")
# What separates words around a period and is not a word itself.
_PUNCTUATION = re.compile(r"[\s,.;:!?，。；：！？、]+")


class Bound(StrEnum):
    """How a bound word places one period in a window."""

    SINCE = "since"
    AFTER = "after"
    BEFORE = "before"
    UNTIL = "until"


@dataclass(frozen=True)
class Window:
    """A half-open window ``[start, end)``; None leaves that side open."""

    start: datetime | None
    end: datetime | None


def window_words(form: str) -> WindowWords:
    """The words of one form: "between", or a Bound's value."""
    return time_phrase_words().windows[form]


def resolve_window(phrase: str, reference: datetime) -> Window | None:
    """The window ``phrase`` means, said at ``reference`` (aware); None when it is not one."""
    whole = resolve_phrase(phrase, reference)
    if whole is not None:
        return Window(whole.start, whole.end)
    lang = "zh" if _CJK.search(phrase) else "en"
    # English month names count here uncapitalised, as resolve_phrase reads them.
    for text in (phrase,) if lang == "zh" else (phrase, phrase.title()):
        tags = find_time_tags(text, reference, lang)
        if len(tags) == 2:
            found = _between(text, tags[0], tags[1])
        elif len(tags) == 1:
            found = _bounded(text, tags[0], reference)
        else:
            found = None
        if found is not None:
            return found
    return None


def _between(text: str, first: TimeTag, second: TimeTag) -> Window | None:
    words = window_words("between")
    lead = _words(text[: first.start_char])
    join = _words(text[first.end_char : second.start_char])
    tail = _words(text[second.end_char :])
    if join not in words.joins or not _said(lead, words.leads) or not _said(tail, words.tails):
        return None
    return Window(first.range.start, second.range.end)


def _bounded(text: str, tag: TimeTag, reference: datetime) -> Window | None:
    lead, tail = _words(text[: tag.start_char]), _words(text[tag.end_char :])
    if not lead and not tail:
        return None  # a period alone with words resolve_phrase did not take
    for bound in Bound:
        words = window_words(bound.value)
        if _said(lead, words.leads) and _said(tail, words.tails):
            return place(bound, tag, reference)
    return None


def place(bound: Bound, tag: TimeTag, reference: datetime) -> Window:
    """The window a bound word makes of one period."""
    match bound:
        case Bound.SINCE:
            return Window(tag.range.start, reference)
        case Bound.AFTER:
            return Window(tag.range.end, reference)
        case Bound.BEFORE:
            return Window(None, tag.range.start)
        case Bound.UNTIL:
            return Window(None, tag.range.end)


def _words(text: str) -> str:
    """Text around a period as the table holds words: lowercase, single spaces, no punctuation."""
    return " ".join(_PUNCTUATION.split(text.lower())).strip()


def _said(words: str, allowed: frozenset[str]) -> bool:
    return not words or words in allowed
