"""Hits that state something first.

Two kinds of hit rank high on words and say little. A memory made only of questions and bare
reactions ("That's awesome, Mel! What made you pick it?") states nothing about anyone: it is
ranked after those that do. A second memory from a message already among the hits repeats that
message as evidence: it is ranked after the memories of other messages. Neither is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from service.nlp.facts import en_reaction_words, is_filler

_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_QUESTION_ENDS = ("?", "？")
POOL = 3  # the first POOL x limit fused hits are ordered


def states_nothing(text: str, lang: str | None) -> bool:
    """Whether every sentence of ``text`` is a question or a bare reaction."""
    sentences = [s.strip() for s in _SENTENCE.findall(text.replace("’", "'")) if s.strip()]
    return bool(sentences) and all(
        s.endswith(_QUESTION_ENDS) or _is_reaction(s, lang) for s in sentences
    )


def _is_reaction(sentence: str, lang: str | None) -> bool:
    if lang == "zh":
        return is_filler(sentence, "zh")
    words = en_reaction_words()
    for part in sentence.split(","):
        tokens = _WORD.findall(part)
        if _is_vocative(tokens):  # "Thanks, Gina!", "Caroline, that's great!"
            continue
        if any(token.lower() not in words for token in tokens):
            return False
    return True


def _is_vocative(tokens: list[str]) -> bool:
    """A comma-separated name of one or two capitalised words."""
    return 0 < len(tokens) <= 2 and all(t[:1].isupper() for t in tokens)


def informative_first(
    ids: Sequence[str], says_nothing: set[str], sources: Mapping[str, Sequence[str]]
) -> list[str]:
    """``ids`` (best first) with memories that state nothing and repeats of an earlier hit's
    source messages moved after the rest, each group in its own order."""
    stating = [i for i in ids if i not in says_nothing]
    seen: set[str] = set()
    first: list[str] = []
    repeats: list[str] = []
    for memory_id in stating:
        own = set(sources.get(memory_id, ()))
        (repeats if own and own <= seen else first).append(memory_id)
        seen |= own
    return first + repeats + [i for i in ids if i in says_nothing]
