"""The frames of the Chinese relation grammar (``nlp_models/zh_grammar.json``), validated.

A frame is a shape (where subject, trigger and target stand), the word classes of
``zh_relation_words.json`` and words of its own that trigger it, and the labels its target may
have; the table also says which words are filler between them. Read by ``chinese_grammar.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.relations.chinese_words import alternation, check_classes
from service.nlp.relations.table import RelationType, compile_row_regex, relation_words
from service.nlp.tables import describe

GRAMMAR_PATH = NLP_MODELS_DIR / "zh_grammar.json"

__all__ = ["GRAMMAR_PATH", "FrameRow", "GrammarTable", "Shape", "load_grammar", "trigger_regex"]


class Shape(StrEnum):
    AT = "at"  # 在 (or the frame's prepositions) + target + filler + trigger (在X干了三年)
    VERB = "verb"  # trigger + filler + target (入职了X)
    IS_OF = "is_of"  # 是 + target + 的 + filler + trigger (是X的HR)
    SITED = "sited"  # organisation + site word + filler + trigger + target (X总部在Y)
    IN_PLACE = "in_place"  # place + filler + organisation (长沙的X): LOCATED_IN
    TOPIC = "topic"  # target first, then subject + filler + trigger (西工区我住了半辈子)
    BA = "ba"  # 把 + target + filler + trigger (把X卸载了)
    VERDICT = "verdict"  # target + filler or 是 + a short noun + judgement (X才是神作, X太坑了)


class FrameRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    shape: Shape
    type: RelationType
    classes: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()  # regexes, with the macros of the regex rows ({DURATION})
    prepositions: tuple[str, ...] = ("在",)  # what opens the AT shape (给X打工, 在X上班)
    targets: tuple[EntityLabel, ...]
    by_head: bool = False
    confidence: float = Field(gt=0.0, le=1.0)


class GrammarTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    filler_tags: frozenset[str]
    filler_words: frozenset[str]
    max_filler: int = Field(ge=0)
    clause_breaks: tuple[str, ...]
    frames: tuple[FrameRow, ...]


@cache
def load_grammar(path: Path = GRAMMAR_PATH) -> GrammarTable:
    """The table at ``path``; an unreadable or invalid one raises ConfigurationError."""
    try:
        table = GrammarTable.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigurationError(f"cannot read the Chinese grammar {path}: {e}") from e
    except ValidationError as e:
        raise ConfigurationError(f"{path}: {describe(e)}") from e
    check_classes(path, table.frames)
    return table


def trigger_regex(row: FrameRow) -> re.Pattern[str]:
    """One regex for a frame's trigger words (its own, its classes') and patterns."""
    classes = relation_words().classes
    words = _longest_first([*row.words, *(w for c in row.classes for w in classes[c])])
    parts = [alternation(words)] if words else []
    return compile_row_regex("|".join([*parts, *row.patterns]))


def _longest_first(words: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted(set(words), key=len, reverse=True))


@dataclass(frozen=True)
class Frame:
    """A frame with its trigger: its words (longest first) or its patterns."""

    row: FrameRow
    trigger: re.Pattern[str]


@dataclass(frozen=True)
class Hit:
    """One frame matched in a clause: where its subject must stand before, its target."""

    frame: Frame
    opens: int  # the subject is named before this offset
    verb_end: int  # plans and denials are looked for up to here
    target: EntityMention
    source: EntityMention | None = None  # the SITED shape names its own subject
