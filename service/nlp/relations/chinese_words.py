"""The word classes of the Chinese relation rows, read from ``nlp_models/zh_relation_words.json``.

A class (``KIN``, ``WORK_VERB``, ``ROLE`` …) is a list of words; a row of ``relations.jsonl``
names it as a macro, ``{WORK_VERB}``, which expands to an alternation of its words, longest
first. A pattern (``DURATION``) is a macro written as a regex. ``heads`` map a relation type to
the words a target may end with to take that type (合唱团 → MEMBER_OF, 大学 → STUDIES_AT).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.tables import describe

RELATION_WORDS_PATH = NLP_MODELS_DIR / "zh_relation_words.json"
_MACRO_NAME = re.compile(r"^[A-Z][A-Z_]*$")

__all__ = ["RELATION_WORDS_PATH", "ChineseRelationWords", "load_relation_words"]


class ChineseRelationWords(BaseModel):
    """The validated table: word classes, regex patterns and target heads."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    classes: dict[str, tuple[str, ...]]
    patterns: dict[str, str] = Field(default_factory=dict)
    heads: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("classes", "patterns")
    @classmethod
    def _macro_names(cls, value: dict[str, object]) -> dict[str, object]:
        for name, words in value.items():
            if not _MACRO_NAME.match(name):
                raise ValueError(f"{name!r} is no macro name (upper case and _)")
            if not words:
                raise ValueError(f"{name!r} is empty")
        return value

    @field_validator("patterns")
    @classmethod
    def _regexes(cls, value: dict[str, str]) -> dict[str, str]:
        for name, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"pattern {name!r}: {e}") from e
        return value

    def macros(self) -> dict[str, str]:
        """``{NAME}`` -> regex for every class and pattern."""
        found = {f"{{{name}}}": alternation(words) for name, words in self.classes.items()}
        found.update({f"{{{name}}}": f"(?:{regex})" for name, regex in self.patterns.items()})
        return found

    def head_type(self, target: str) -> str | None:
        """The relation type whose head ends ``target``, the longest head winning; a name
        must hold two characters before its head (美团 is no 团)."""
        best: tuple[int, str] | None = None
        for relation_type, heads in self.heads.items():
            for head in heads:
                fits = target.endswith(head) and len(target) - len(head) >= 2
                if fits and (best is None or len(head) > best[0]):
                    best = (len(head), relation_type)
        return best[1] if best else None


def alternation(words: tuple[str, ...] | list[str]) -> str:
    """A non-capturing group of the words, escaped, longest first."""
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


class NamesClasses(Protocol):
    """A table row that names word classes of the relation words (a frame of the grammar or
    of the frame objects)."""

    @property
    def id(self) -> str: ...
    @property
    def classes(self) -> tuple[str, ...]: ...


def check_classes(path: Path, frames: Iterable[NamesClasses]) -> None:
    """Raise ConfigurationError when a frame of the table at ``path`` names a word class the
    relation words do not define."""
    classes = load_relation_words().classes
    for frame in frames:
        unknown = [name for name in frame.classes if name not in classes]
        if unknown:
            raise ConfigurationError(f"{path}: frame {frame.id} names unknown classes {unknown}")


@cache
def load_relation_words(path: Path = RELATION_WORDS_PATH) -> ChineseRelationWords:
    """The table at ``path``; an unreadable or invalid one raises ConfigurationError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigurationError(f"cannot read relation words {path}: {e}") from e
    try:
        return ChineseRelationWords.model_validate_json(text)
    except ValidationError as e:
        raise ConfigurationError(f"{path}: {describe(e)}") from e
