"""English word forms for the full-text query: a question's "camped" also finds "went camping".

The full-text indexes keep words as written (Lucene's standard analyzer). Stemming the index
traded temporal recall for multi-hop (bench/RESULTS.md); expanding the question's words to
their regular inflections finds the memories that say the same verb or noun in another form
and leaves the index alone. Suffix rules only: irregular forms (bought / buy) are not found,
and a form no memory holds ("campe") matches nothing.
"""

from __future__ import annotations

import re

# At most this many forms of a word (itself included): like a CJK term (lucene.MAX_CJK_TERM),
# a word then makes at most 10 clauses per field, under Lucene's 1,024-clause limit.
MAX_FORMS = 10
MIN_LENGTH = 4  # shorter words ("art", "kid") are left as they are
_LOWER_WORD = re.compile(r"[a-z]+")
_SIBILANT_ENDS = ("s", "x", "z", "ch", "sh", "o")
_VOWELS = frozenset("aeiou")


def word_forms(word: str) -> tuple[str, ...]:
    """``word`` first, then its regular inflections; only lower-case English words (a
    capitalised word is more often a name) of at least MIN_LENGTH letters are inflected."""
    if len(word) < MIN_LENGTH or not _LOWER_WORD.fullmatch(word):
        return (word,)
    forms = [word]
    for base in _bases(word):
        forms += [f for f in _inflections(base) if f not in forms]
    return tuple(forms[:MAX_FORMS])


def _bases(word: str) -> list[str]:
    """Candidate base forms, likeliest first ("camped" -> camp, campe); the word itself when
    it has no inflectional suffix."""
    if word.endswith(("ies", "ied")):
        bases = [word[:-3] + "y"]
    elif word.endswith("ed"):
        bases = _unsuffixed(word[:-2])
    elif word.endswith("ing"):
        bases = _unsuffixed(word[:-3])
    elif word.endswith("es"):
        stem = word[:-2]
        bases = [stem, word[:-1]] if stem.endswith(_SIBILANT_ENDS) else [word[:-1], stem]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        bases = [word[:-1]]
    else:
        bases = [word]
    return [b for b in bases if len(b) >= 3]


def _unsuffixed(stem: str) -> list[str]:
    """Bases for a stem left by -ed / -ing: stopp -> stop; camp -> camp, campe; bak -> bake."""
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS | {"l", "s"}:
        return [stem[:-1], stem]
    return [stem, stem + "e"]


def _inflections(base: str) -> list[str]:
    """The base, its -s, -ed and -ing forms (both spellings after a short vowel: stop ->
    stopped; visit -> visited)."""
    if base.endswith("y") and base[-2:-1] not in _VOWELS:
        return [base, base[:-1] + "ies", base[:-1] + "ied", base + "ing"]
    plural = base + ("es" if base.endswith(_SIBILANT_ENDS) else "s")
    if base.endswith("e"):
        return [base, plural, base + "d", base[:-1] + "ing"]
    forms = [base, plural, base + "ed", base + "ing"]
    if _ends_short(base):
        forms += [base + base[-1] + "ed", base + base[-1] + "ing"]
    return forms


def _ends_short(base: str) -> bool:
    """Consonant, vowel, consonant at the end (stop, plan), where -ed / -ing may double it."""
    before, vowel, last = base[-3], base[-2], base[-1]
    return before not in _VOWELS and vowel in _VOWELS and last not in _VOWELS | set("wxy")
