"""English preference signals: changes of mind from the forms of the language (stop, quit,
gave up, no longer, not … anymore, switched from X to Y, X instead of Y, off X, used to … but),
things done and things liked from the dependency parse (english_doings.py).

A change is the speaker's when its clause has a first-person subject or none ("Quit coffee in
May"); a denied, wished or planned one ("I should quit", "I never stopped") is no change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from spacy.tokens import Span

from service.nlp.preferences.english_doings import (
    DISLIKING,
    LIKING,
    item_tokens,
    things_done,
    things_liked,
)
from service.nlp.preferences.lexicon import Item, ItemSpan, lexicon, with_names, within
from service.nlp.preferences.reading import Change, PreferenceReading

_ADVERBS = (
    r"(?:so|and|also|just|finally|recently|lately|actually|honestly|well|yeah|now|then|\w+ly)"
)
_CLAUSE_END = re.compile(r"[,;.!?]|\s(?:but|and|so|though|although|because)\s|\s[-–—]\s")
# What may stand before a change in its clause: the speaker, then a few words ("I finally",
# "I've completely"), or nothing but adverbs ("Recently quit coffee").
_FIRST_PERSON = re.compile(
    r"(?:\b(?:I|I'm|I've|I'd|I am|I have|we|we're|we've)\s+(?:[a-z']+\s+){0,3}|"
    rf"^\s*(?:{_ADVERBS}\s+){{0,2}})$",
    re.IGNORECASE,
)
_DENIED_OR_WISHED = re.compile(
    r"\b(?:not|n't|never|should|shouldn't|would|could|might|may|must|will|'ll|wanna|gonna|if|"
    r"(?:want|wants|wanted|trying|try|tried|going|plan|planning|hope|hoping|need|needs|decide)"
    r"\s+to)\s+(?:[a-z']+\s+){0,2}$",
    re.IGNORECASE,
)
_WISHED = re.compile(
    r"\b(?:should|would|could|might|may|wanna|gonna|if|(?:want|wants|trying|try|plan|planning|"
    r"hope|hoping)\s+to)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Rule:
    """A form of change: its marker, and whether what follows it is retired or adopted."""

    id: str
    marker: re.Pattern[str]
    adopts: bool = False


_RULES = (
    _Rule(
        "en_stop",
        re.compile(
            r"\b(?:stop(?:ped|ping|s)?|quit(?:s|ting)?|gave up|give up|giving up|given up|"
            r"cut out|cutting out|ditched|kicked|dropped)\b(?!\s+(?:by|at|in|over|to|on it)\b)",
            re.IGNORECASE,
        ),
    ),
    _Rule("en_no_longer", re.compile(r"\b(?:no longer|not any longer)\b", re.IGNORECASE)),
    _Rule(
        "en_off",
        re.compile(
            r"\b(?:I'm|I am|been|I've been|went|going)\s+(?:\w+\s+)?off\b(?!\s+(?:to|work|for)\b)",
            re.IGNORECASE,
        ),
    ),
    _Rule(
        "en_switch_to",
        re.compile(
            r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing))\s+(?:over\s+)?to\b",
            re.IGNORECASE,
        ),
        adopts=True,
    ),
)
_SWITCH_FROM = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|went)\s+(?:over\s+)?from\s+"
    r"(?P<old>.+?)\s+to\s+(?P<new>.+)",
    re.IGNORECASE,
)
_INSTEAD_OF = re.compile(r"\binstead of\b", re.IGNORECASE)
_INSTEAD = re.compile(r"\binstead\b(?!\s+of)", re.IGNORECASE)
_ANYMORE = re.compile(r"\b(?:any ?more|any longer)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_USED_TO = re.compile(r"\bused to\b", re.IGNORECASE)
_USED_TO_TURN = re.compile(r"\b(?:but|now|these days|anymore|any more)\b", re.IGNORECASE)


def read_english(
    text: str,
    sentence: Span | None,
    question: bool,
    future: bool,
    names: Sequence[ItemSpan] = (),
) -> PreferenceReading:
    """The preference signals of one English fact (its source text and parsed span);
    ``names`` are its mentions, which a change may retire too ("stopped using Notion")."""
    if question:
        return PreferenceReading()
    change = find_change(text, names)
    retired = {i.name for i in change.retired} if change else set()
    if sentence is None:
        return PreferenceReading(change)
    items = item_tokens(sentence)
    done = () if future or change else things_done(sentence, items)
    liked = things_liked(items, LIKING)
    disliked = things_liked(items, DISLIKING)
    return PreferenceReading(
        change,
        tuple(i for i in done if i.name not in retired),
        tuple(i for i in liked if i.name not in retired),
        disliked,
    )


def find_change(text: str, names: Sequence[ItemSpan] = ()) -> Change | None:
    """The change of mind a fact states, if any: what it retires and what it adopts."""
    items = with_names(lexicon("en").find(text), names)
    retired: list[ItemSpan] = []
    adopted: list[ItemSpan] = []
    rules: list[str] = []
    for clause_start, clause_end in _clauses(text):
        clause = text[clause_start:clause_end]
        inside = [s for s in items if clause_start <= s.start < clause_end]
        found = _clause_change(clause, clause_start, inside, text)
        if found is not None:
            rule, old, new = found
            rules.append(rule)
            retired += old
            adopted += new
    if not rules:
        return None
    return _change(rules[0], retired, adopted, items, text)


def _change(
    rule: str, retired: list[ItemSpan], adopted: list[ItemSpan], items: list[ItemSpan], text: str
) -> Change | None:
    """A change from what its clauses retire and adopt; another item of a retired item's kind,
    named elsewhere in the fact and not denied, is what replaces it ("off coffee, it's green
    tea for me now")."""
    old = _unique(s.item for s in retired)
    kinds = {i.kind for i in old}
    taken = {(s.start, s.end) for s in retired}
    new = _unique(
        [s.item for s in adopted]
        + [
            s.item
            for s in items
            if s.item.kind in kinds
            and (s.start, s.end) not in taken
            and s.item not in old
            and not _denied_before(text, s.start)
        ]
    )
    new = tuple(i for i in new if i not in old)
    if not old and not new:
        return None
    return Change(rule, old, new)


def _clause_change(
    clause: str, offset: int, items: list[ItemSpan], text: str
) -> tuple[str, list[ItemSpan], list[ItemSpan]] | None:
    """The rule a clause states a change by, with what it retires and adopts."""

    def at(a: int, b: int) -> list[ItemSpan]:
        return within(items, offset + a, offset + b)

    switch = _SWITCH_FROM.search(clause)
    if switch and _speaker_says(clause, switch.start()):
        return "en_switch_from", at(*switch.span("old")), at(*switch.span("new"))
    instead = _INSTEAD_OF.search(clause)
    denied = instead is not None and _NEGATION.search(clause[: instead.start()]) is not None
    if instead and not denied and _speaker_says(clause, 0, anywhere=True):
        return "en_instead_of", at(instead.end(), len(clause)), at(0, instead.start())
    used = _USED_TO.search(clause)
    if used and _speaker_says(clause, used.start()):
        turn = _USED_TO_TURN.search(text, offset + used.end())
        if turn is not None:
            return "en_used_to", at(used.end(), len(clause)), []
    anymore = _ANYMORE.search(clause)
    negated = _NEGATION.search(clause[: anymore.start()]) if anymore else None
    if anymore and negated and _speaker_says(clause, _word_start(clause, negated.start()), True):
        return "en_not_anymore", at(negated.end(), anymore.start()), []
    for rule in _RULES:
        marker = rule.marker.search(clause)
        if marker is None or not _speaker_says(clause, marker.start()):
            continue
        after = at(marker.end(), len(clause))
        return (rule.id, [], after) if rule.adopts else (rule.id, after, [])
    plain = _INSTEAD.search(clause)
    if plain and _speaker_says(clause, 0, anywhere=True):
        return "en_instead", [], at(0, plain.start())
    return None


def _speaker_says(clause: str, at: int, negation: bool = False, anywhere: bool = False) -> bool:
    """Whether the clause states, as fact, that the speaker did what stands at ``at``
    (``negation``: what stands there is the denial the form is made of; ``anywhere``: the
    speaker may be named anywhere in the clause)."""
    before = clause[:at]
    if anywhere:
        return re.search(r"\b(?:I|I'm|I've|I'd|we|me|my)\b", clause) is not None and not (
            _WISHED.search(clause)
        )
    if negation:
        return bool(_FIRST_PERSON.search(before)) and not _WISHED.search(before)
    return bool(_FIRST_PERSON.search(before)) and not _DENIED_OR_WISHED.search(before)


def _word_start(text: str, at: int) -> int:
    """Where the word holding ``at`` begins ("don't" for its "n't")."""
    return text.rfind(" ", 0, at) + 1


def _denied_before(text: str, at: int) -> bool:
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, at)), default=0)
    return _NEGATION.search(text, clause_start, at) is not None


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _unique(items: Iterable[Item]) -> tuple[Item, ...]:
    return tuple(dict.fromkeys(items))
