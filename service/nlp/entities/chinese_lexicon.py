"""The data tables of the Chinese entity finder, read once from ``nlp_models/zh_*``.

- ``zh_surnames.txt``: family names, one a line (single and compound);
- ``zh_given_name_chars.txt``: characters common in given names;
- ``zh_titles.txt``: titles after a family name (朱老师, 马总);
- ``zh_suffixes.tsv``: name-ending words (大学, 科技, 路) with a label and what may precede them;
- ``zh_generic_heads.txt``: common nouns that never start a name (游戏 of 游戏公司);
- ``zh_context_rules.jsonl``: contexts where an unknown word is a name (用 X 吧); one JSON object
  a line, ``{"id", "label", "left", "right", "shortest", "include_right"}``, two regexes;
- ``zh_known_names.tsv``: well-known brands jieba's dictionary lacks, with their label;
- ``zh_not_entities.txt`` and ``stop_entities.txt``: words that never name an entity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.mentions import STOP_ENTITIES_PATH, EntityLabel, load_stop_entities
from service.nlp.tables import read_lines

__all__ = [
    "ChineseLexicon",
    "ContextRule",
    "HeadKind",
    "SuffixRule",
    "load_context_rules",
    "load_known_names",
    "load_suffixes",
]

MODELS_DIR = NLP_MODELS_DIR


# Tags of words that never stand inside a name: pronouns, prepositions, conjunctions,
# particles, time words, modal particles, interjections, onomatopoeia, punctuation.
NEVER_INSIDE_NAMES = ("r", "p", "c", "u", "t", "y", "e", "o", "x", "w")


class Word(Protocol):
    """A jieba word of the text, with its tag and offsets (``chinese.Token``)."""

    @property
    def word(self) -> str: ...
    @property
    def tag(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


class HeadKind(StrEnum):
    """Which word may stand before a name-ending word of ``zh_suffixes.tsv``."""

    PROPER = "proper"  # a proper noun or a word jieba does not know
    NOUN = "noun"  # the same, or a common noun not listed in zh_generic_heads.txt
    ANY = "any"  # the same, or a person's name (中山 + 路, 高德 + 地图)
    PLACE = "place"  # a place name only (太古 + 里; not 余额宝 + 里)
    # a proper noun or unknown word that is no place: a brand (青禾 + 火锅), not a town's dish
    # (重庆火锅, 桂林米粉)
    BRAND = "brand"


@dataclass(frozen=True)
class SuffixRule:
    """A word that ends a name, the label of the joined name, and what may precede it."""

    suffix: str
    label: EntityLabel
    head: HeadKind


def load_suffixes(path: Path) -> Mapping[str, SuffixRule]:
    """The name-ending words of a suffix table; a bad line raises ConfigurationError."""
    rules: dict[str, SuffixRule] = {}
    for line in read_lines(path):
        fields = line.split("\t")
        try:
            suffix, label, head = fields
            rules[suffix] = SuffixRule(suffix, EntityLabel(label), HeadKind(head))
        except ValueError as e:
            raise ConfigurationError(f"{path}: bad line {line!r}: {e}") from e
    return MappingProxyType(rules)


def load_known_names(path: Path) -> Mapping[str, EntityLabel]:
    """Name -> label of a known-name table; a bad line raises ConfigurationError."""
    names: dict[str, EntityLabel] = {}
    for line in read_lines(path):
        try:
            name, label = line.split("\t")
            names[name] = EntityLabel(label)
        except ValueError as e:
            raise ConfigurationError(f"{path}: bad line {line!r}: {e}") from e
    return MappingProxyType(names)


class ContextRow(BaseModel):
    """One row of ``zh_context_rules.jsonl``: a name of ``label`` between ``left`` and
    ``right`` (用 + 钉钉 + 吧). With ``shortest`` the shortest name that ends where a jieba word
    does, before ``right`` or a verb (用钉钉打卡); else the longest before ``right``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: EntityLabel
    left: str = Field(min_length=1)
    right: str = Field(min_length=1)
    shortest: bool = False
    include_right: bool = False


@dataclass(frozen=True)
class ContextRule:
    """A compiled ``ContextRow``."""

    name: str
    label: EntityLabel
    left: re.Pattern[str]
    right: re.Pattern[str]
    shortest: bool
    include_right: bool  # the name ends with what ``right`` matched (武康 + 路)


def load_context_rules(path: Path) -> tuple[ContextRule, ...]:
    """The compiled rows of a context-rule table; a bad row raises ConfigurationError."""
    rules = []
    for number, line in enumerate(read_lines(path), start=1):
        try:
            row = ContextRow.model_validate_json(line)
            left, right = re.compile(row.left), re.compile(row.right)
        except (PydanticValidationError, re.error) as e:
            raise ConfigurationError(f"{path}: row {number}: {e}") from e
        rules.append(ContextRule(row.id, row.label, left, right, row.shortest, row.include_right))
    return tuple(rules)


@dataclass(frozen=True)
class ChineseLexicon:
    """Every table the finder reads."""

    surnames: frozenset[str]  # single-character family names
    compound_surnames: frozenset[str]  # 欧阳, 司马
    given_name_chars: frozenset[str]
    titles: frozenset[str]
    suffixes: Mapping[str, SuffixRule]
    generic_heads: frozenset[str]
    context_rules: tuple[ContextRule, ...]
    known_names: Mapping[str, EntityLabel]
    not_entities: frozenset[str]  # normalised

    @classmethod
    def load(
        cls, folder: Path = MODELS_DIR, stop_path: Path = STOP_ENTITIES_PATH
    ) -> ChineseLexicon:
        """The tables of ``folder`` (``nlp_models/`` by default); a bad file raises
        ConfigurationError naming it."""
        surnames = read_lines(folder / "zh_surnames.txt")
        given = "".join(read_lines(folder / "zh_given_name_chars.txt")).replace(" ", "")
        return cls(
            surnames=frozenset(name for name in surnames if len(name) == 1),
            compound_surnames=frozenset(name for name in surnames if len(name) == 2),
            given_name_chars=frozenset(given),
            titles=frozenset(read_lines(folder / "zh_titles.txt")),
            suffixes=load_suffixes(folder / "zh_suffixes.tsv"),
            generic_heads=frozenset(read_lines(folder / "zh_generic_heads.txt")),
            context_rules=load_context_rules(folder / "zh_context_rules.jsonl"),
            known_names=load_known_names(folder / "zh_known_names.tsv"),
            not_entities=load_stop_entities(folder / "zh_not_entities.txt")
            | load_stop_entities(stop_path),
        )
