"""What kind of answer a question asks for, and the hits that hold one.

"When did Gina start her store?" is answered by a memory that carries a date; "Which cities has
Jon visited?" by one that names a place. The fused ranking knows neither: a memory that only
talks about the store, or about travel, ranks as high. So among the hits that are ordered
(informative.POOL x limit), those that hold the asked kind of answer have their fused score
raised by ``answer_type_boost`` (a share of itself) before the order is taken. The kinds are
read from data (nlp_models/answer_types.json) and from what the write path stored: a memory's
date (``valid_from``) and its PLACE entities.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import cache
from pathlib import Path

from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.mentions import EntityLabel
from service.nlp.entities.patterns import detect_lang
from service.store.repository import Evidence

ANSWER_TYPES_PATH = NLP_MODELS_DIR / "answer_types.json"


class AnswerType(StrEnum):
    DATE = "date"
    PLACE = "place"


@cache
def _answer_words(
    path: Path = ANSWER_TYPES_PATH,
) -> dict[str, list[tuple[AnswerType, re.Pattern[str]]]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        lang: [
            (AnswerType(kind), re.compile(words, re.IGNORECASE)) for kind, words in table.items()
        ]
        for lang, table in raw.items()
        if not lang.startswith("_")
    }


def answer_type(question: str) -> AnswerType | None:
    """The kind of answer ``question`` asks for, when its words say (the first that matches)."""
    for kind, words in _answer_words().get(detect_lang(question), []):
        if words.search(question):
            return kind
    return None


def holds_answer(evidence: Evidence, kind: AnswerType) -> bool:
    """Whether a hit holds that kind of answer: a date it happened on, or a place it names."""
    if kind is AnswerType.DATE:
        return evidence.memory.valid_from is not None
    return any(entity.type == EntityLabel.PLACE for entity in evidence.entities)


def answer_type_first(
    ids: Sequence[str], scores: Mapping[str, float], holding: set[str], boost: float
) -> list[str]:
    """``ids`` ordered by fused score, those in ``holding`` with it raised by ``boost`` x
    itself; ties keep the given order."""
    raised = {i: scores[i] * (1 + boost) if i in holding else scores[i] for i in ids}
    return sorted(ids, key=lambda i: raised[i], reverse=True)
