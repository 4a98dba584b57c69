"""English word forms for the full-text query: a question's "camped" also finds "went camping".

The full-text indexes keep words as written (Lucene's standard analyzer). Stemming the index
traded temporal recall for multi-hop (bench/RESULTS.md); expanding the question's words to
their inflections finds the memories that say the same verb or noun in another form and
leaves the index alone. LemmInflect's dictionary (the SPECIALIST Lexicon, shipped inside the
package: nothing is downloaded) gives a word's lemmas and each lemma's inflections, irregular
ones included (bought -> buy -> buys, buying); a word it does not know is searched as written.
"""

from __future__ import annotations

import re
from functools import lru_cache

import lemminflect

# At most this many forms of a word (itself included): like a CJK term (lucene.MAX_CJK_TERM),
# a word then makes at most 10 clauses per field, under Lucene's 1,024-clause limit.
MAX_FORMS = 10
MIN_LENGTH = 4  # shorter words ("art", "kid") are left as they are
_LOWER_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=4096)  # bounded: the words come from users
def word_forms(word: str) -> tuple[str, ...]:
    """``word`` first, then its lemmas and their inflections; only lower-case English words (a
    capitalised word is more often a name) of at least MIN_LENGTH letters are inflected."""
    if len(word) < MIN_LENGTH or not _LOWER_WORD.fullmatch(word):
        return (word,)
    forms = [word]
    for lemma in _lemmas(word):
        forms.append(lemma)
        for inflections in lemminflect.getAllInflections(lemma).values():
            forms += inflections
    # One plain word each: the dictionary also holds "book shelves" and "baby-sat", which
    # the Lucene query would read as two words or as an operator.
    plain = (form for form in dict.fromkeys(forms) if _LOWER_WORD.fullmatch(form))
    return tuple(plain)[:MAX_FORMS]


def _lemmas(word: str) -> list[str]:
    """The word's lemmas in the dictionary, for every part of speech ("leaves" -> leave, leaf)."""
    by_pos: dict[str, tuple[str, ...]] = lemminflect.getAllLemmas(word)
    return list(dict.fromkeys(lemma for lemmas in by_pos.values() for lemma in lemmas))


def warm_up() -> None:
    """Load the dictionary now (about a second): otherwise the first question would wait."""
    word_forms("camped")
