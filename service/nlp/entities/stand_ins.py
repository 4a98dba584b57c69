"""Speakers' names parsed as names: the small English model reads a name it has not seen as
whatever its letters suggest ("Cian works at X": Cian an adjective, the job the speaker's). A
batch's speakers are people for certain, so before parsing each of their names is replaced by a
common given name of the same length (``nlp_models/stand_in_names.txt``), and after it the
parsed doc gets the text back: the same characters at the same offsets, with the tags, parse and
entities read on the stand-in.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

import lemminflect
from spacy.attrs import DEP, ENT_ID, ENT_IOB, ENT_TYPE, HEAD, LEMMA, MORPH, POS, TAG
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.type_evidence import load_gazetteers
from service.nlp.facts import en_reaction_words

STAND_INS_PATH = NLP_MODELS_DIR / "stand_in_names.txt"
_LAST_WORD = re.compile(r"(\w+)[ ]$")
_NEXT_WORD = re.compile(r"[ ](\w+)")
_WORD = re.compile(r"\b[^\W\d_]+\b")
_ATTRS = [TAG, POS, MORPH, LEMMA, DEP, HEAD, ENT_IOB, ENT_TYPE, ENT_ID]


@dataclass(frozen=True)
class Disguise:
    """A text with speakers' names replaced, and where (character offsets, same in both)."""

    original: str
    text: str
    spans: tuple[tuple[int, int], ...]


@cache
def _stand_ins() -> dict[int, tuple[str, ...]]:
    by_length: dict[int, list[str]] = {}
    for line in STAND_INS_PATH.read_text(encoding="utf-8").splitlines():
        name = line.strip()
        if name and not name.startswith("#"):
            by_length.setdefault(len(name), []).append(name)
    return {length: tuple(names) for length, names in by_length.items()}


def speaker_words(speakers: Iterable[str]) -> frozenset[str]:
    """The words of speakers' names worth a stand-in: capitalised letters of a length the
    list has, and not a common word ("Will", "May" at a sentence's start are not names)."""
    return frozenset(
        word
        for speaker in speakers
        for word in speaker.split()
        if word.isalpha() and _replaceable(word) and word.lower() not in STOP_WORDS
    )


def _replaceable(word: str) -> bool:
    """Capitalised, of a length a stand-in has, and not a stand-in itself."""
    return word[:1].isupper() and word not in _stand_ins().get(len(word), (word,))


@cache
def _not_names() -> frozenset[str]:
    """Capitalised words that are no one's name in a chat whatever a list of names says:
    reactions ("Hey", "Yo") and the calendar's names ("Thu", "May")."""
    calendars = [*calendar.day_name, *calendar.day_abbr, *calendar.month_name, *calendar.month_abbr]
    return frozenset(en_reaction_words() | {w.lower() for w in calendars if w} | set(STOP_WORDS))


def given_names(texts: Iterable[str]) -> frozenset[str]:
    """Capitalised words of the texts that are given names (gender-guesser's, by way of the
    type gazetteers), neither a place nor an English word ("Rose", "Mark")."""
    gazetteers = load_gazetteers()
    found = set()
    for text in texts:
        for word in set(_WORD.findall(text)):
            if (
                _replaceable(word)
                and word[1:].islower()
                and len(word) > 2
                and gazetteers.is_given_name(word)
                and not gazetteers.is_place(word)
                and not lemminflect.getAllLemmas(word.lower())
                and word.lower() not in _not_names()
            ):
                found.add(word)
    return frozenset(found)


def disguise(text: str, words: frozenset[str]) -> Disguise:
    """``text`` with each whole-word, same-case occurrence of ``words`` replaced."""
    if not words or not any(word in text for word in words):
        return Disguise(text, text, ())
    found = _pattern(words).finditer(text)
    spans = tuple(m.span() for m in found if _alone(text, *m.span()))
    if not spans:
        return Disguise(text, text, ())
    pieces, at = [], 0
    for start, end in spans:
        pieces += [text[at:start], _stand_in(text, end - start)]
        at = end
    pieces.append(text[at:])
    return Disguise(text, "".join(pieces), spans)


@lru_cache(maxsize=16)
def _pattern(words: frozenset[str]) -> re.Pattern[str]:
    """One regex for a batch's words, compiled once for all its messages."""
    return re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(words))) + r")\b")


def _alone(text: str, start: int, end: int) -> bool:
    """Not one word of a longer name ("San Francisco", "Mario Kart", "Hiro Tanaka"): no
    capitalised word right before it (but a reaction: "Hey Aoife") or right after it."""
    before = _LAST_WORD.search(text, 0, start)
    after = _NEXT_WORD.match(text, end)
    word = before.group(1) if before is not None else ""
    if _capitalised(word) and word.lower() not in _not_names():
        return False
    return after is None or not _capitalised(after.group(1))


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _stand_in(text: str, length: int) -> str:
    names = _stand_ins()[length]
    return next((name for name in names if name not in text), names[0])


def restored(doc: Doc, disguise: Disguise) -> Doc:
    """The doc parsed from the disguised text, with the original's characters: a new doc of the
    original words carrying the parse's annotation (the doc itself when nothing was replaced).
    A stand-in has its name's length and only letters, so the tokens' characters and the
    spaces after them tile the original as they tiled the disguised text."""
    if not disguise.spans:
        return doc
    original = disguise.original
    words = [original[t.idx : t.idx + len(t.text)] for t in doc]
    new = Doc(doc.vocab, words=words, spaces=[bool(t.whitespace_) for t in doc])
    new.from_array(_ATTRS, doc.to_array(_ATTRS))
    starts = {start for start, _ in disguise.spans}
    for token in new:
        if token.idx in starts:
            token.lemma_ = token.text
    return new
