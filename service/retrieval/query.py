"""Read the query: which time window it asks about, on which clock, and what to search."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

from service.core.domain import Clock, SearchOptions, clean_text, utcnow
from service.core.errors import ValidationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.patterns import detect_lang
from service.nlp.time.tags import find_time_tags, resolve_phrase
from service.retrieval.answer_type import AnswerType, answer_type
from service.retrieval.lucene import lucene_query
from service.store.params import FilterParams, WindowParams

_SAID = re.compile(
    r"\b(?:say|said|says|tell|told|mention(?:ed)?|talk(?:ed)?|ask(?:ed)?|discuss(?:ed)?|"
    r"chat(?:ted)?|write|wrote)\b|说|讲|提到|聊|问",
    re.IGNORECASE,
)


MAX_QUERY_CHARS = 2_000

# Words that say "not long ago" without saying how long: found in a query they rank the last
# 30 days first (time.calendar.recent_range) and bound nothing. As a bound they emptied the answer
# whenever the last matching memory was older: "What did Melanie paint recently?" asked of a
# conversation whose paintings were two months back got no hits at all. A window given as
# when.phrase ("recently" included) still bounds: the caller asked for exactly that.
VAGUE_TIME = re.compile(r"recently|lately|最近|近来|近期", re.IGNORECASE)


@dataclass(frozen=True)
class TimeWindow:
    clock: Clock
    start: datetime | None
    end: datetime | None
    expression: str | None = None


# Capitalised words that open questions or sentences are not names.
_NOT_NAMES = frozenset(
    [
        "What",
        "When",
        "Where",
        "Who",
        "Whom",
        "Whose",
        "Which",
        "Why",
        "How",
        "Did",
        "Does",
        "Do",
        "Is",
        "Are",
        "Was",
        "Were",
        "Has",
        "Have",
        "Had",
        "Can",
        "Could",
        "Would",
        "Should",
        "Will",
        "Tell",
        "Give",
        "List",
        "Name",
        "In",
        "On",
        "At",
        "For",
        "The",
        "A",
        "An",
        "And",
        "Or",
        "But",
        "If",
        "I",
        "My",
        "We",
        "Our",
        "You",
        "Your",
        "He",
        "She",
        "They",
        "Their",
        "His",
        "Her",
        "It",
        "Its",
        "This",
        "That",
        "These",
        "Those",
        "Last",
        "Next",
    ]
)
_NAME = re.compile(r"\b[A-Z][\w'-]*\b")


@dataclass(frozen=True)
class QueryPlan:
    text: str
    lucene: str | None
    window: TimeWindow | None
    as_of: datetime | None
    names: tuple[str, ...] = ()
    # A window the query prefers but does not bound: "recently", "lately", 最近 (VAGUE_TIME).
    # Its memories are ranked by the time retriever beside the others; nothing is filtered out.
    recent: TimeWindow | None = None
    # Typed relations the question asks about ("works for", "based in": RELATION_WORDS).
    relation_types: tuple[str, ...] = ()
    # The kind of answer the question asks for ("when", "which city": answer_type.py).
    answer_type: AnswerType | None = None

    def filter_params(self) -> FilterParams:
        """The time parameters of the shared memory_visible predicate."""
        return {"as_of": self.as_of, **window_params(self.window)}


def window_params(w: TimeWindow | None) -> WindowParams:
    """A window's bounds as the parameters of memory_visible (all None without a window)."""
    said = w is not None and w.clock is Clock.SAID
    happened = w is not None and w.clock is Clock.HAPPENED
    return {
        "said_from": w.start if w and said else None,
        "said_to": w.end if w and said else None,
        "happened_from": w.start if w and happened else None,
        "happened_to": w.end if w and happened else None,
    }


def plan_query(query: str, options: SearchOptions, word_forms: bool = True) -> QueryPlan:
    """Resolve the time filter (explicit, phrase, or found in the query) and the Lucene terms
    (with ``word_forms``, also their other forms: lucene_query)."""
    try:
        text = clean_text(query).strip()
    except ValueError as e:
        raise ValidationError(f"query: {e}") from e
    if not text:
        raise ValidationError("the search query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise ValidationError(f"the search query is over {MAX_QUERY_CHARS} characters")
    window = _window(text, options)
    recent = None
    if (
        window is not None
        and _found_in_text(options)
        and VAGUE_TIME.fullmatch(window.expression or "")
    ):
        window, recent = None, window
    return QueryPlan(
        text=text,
        lucene=lucene_query(text, word_forms),
        window=window,
        as_of=options.as_of,
        names=candidate_names(text),
        recent=recent,
        relation_types=relation_types(text),
        answer_type=answer_type(text),
    )


RELATION_WORDS_PATH = NLP_MODELS_DIR / "relation_words.json"


@cache
def _relation_words(
    path: Path = RELATION_WORDS_PATH,
) -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        lang: [
            (kind, re.compile(rf"\b(?:{words})\b" if lang == "en" else words, re.IGNORECASE))
            for kind, words in table.items()
        ]
        for lang, table in raw.items()
        if not lang.startswith("_")
    }


def relation_types(text: str) -> tuple[str, ...]:
    """The typed relations a question asks about, from its words (nlp_models/relation_words.json):
    "Which city is the company Alice works for based in?" -> WORKS_AT, LOCATED_IN."""
    table = _relation_words().get(detect_lang(text), [])
    return tuple(kind for kind, words in table if words.search(text))


def _found_in_text(options: SearchOptions) -> bool:
    """Whether the window comes from the query's words rather than from when.from/to/phrase."""
    when = options.when
    return when is None or not (when.start or when.end or when.phrase)


def candidate_names(text: str) -> tuple[str, ...]:
    """Capitalised words that may name a speaker ("Melanie's" → "Melanie"); the store keeps
    only those that really speak in the scope."""
    names = []
    for word in _NAME.findall(text):
        word = word.removesuffix("'s").removesuffix("’s")
        if word not in _NOT_NAMES and word not in names:
            names.append(word)
    return tuple(names[:8])


def without_names(text: str, names: list[str]) -> str:
    """The question without these names (and their possessive 's), for ranking by embedding
    once the names have done their work as a filter: memories are written in the third person
    ("Caroline went to a support group"), so a speaker's name stands in almost every memory of
    theirs, and a question vector holding it favours memories that repeat the name over those
    that answer. Returns the text unchanged when nothing would be left."""
    if not names:
        return text
    stripped = text
    for name in names:
        stripped = re.sub(rf"\b{re.escape(name)}(?:['’]s)?\b", " ", stripped)
    stripped = " ".join(stripped.split())
    return stripped if re.search(r"\w", stripped) else text


def _window(text: str, options: SearchOptions) -> TimeWindow | None:
    when = options.when
    reference = (when.reference_time if when else None) or utcnow()
    clock = (when.clock if when else None) or (Clock.SAID if _SAID.search(text) else None)
    if when and (when.start or when.end):
        if when.start and when.end and when.start >= when.end:
            raise ValidationError("when.from must be before when.to")
        return TimeWindow(clock or Clock.HAPPENED, when.start, when.end)
    if when and when.phrase:
        found = resolve_phrase(when.phrase, reference)
        if found is None:
            raise ValidationError(f"cannot read a time from {when.phrase!r}")
        return TimeWindow(clock or Clock.HAPPENED, found.start, found.end, when.phrase)
    tags = find_time_tags(text, reference, detect_lang(text))
    if not tags:
        return None
    tag = tags[0]
    return TimeWindow(clock or Clock.HAPPENED, tag.range.start, tag.range.end, tag.expression)
