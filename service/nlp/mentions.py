"""An entity mention and its label: what every extractor returns and the linker reads, and
the stop list of names that are never entities (nlp_models/stop_entities.txt)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR

STOP_ENTITIES_PATH = NLP_MODELS_DIR / "stop_entities.txt"


class EntityLabel(StrEnum):
    PERSON = "PERSON"
    ORG = "ORG"
    PLACE = "PLACE"
    CONCEPT = "CONCEPT"  # tools, languages, frameworks, hobbies, topics
    TEMPORAL = "TEMPORAL"
    OTHER = "OTHER"  # a proper noun that neither NER nor the table could type


@dataclass(frozen=True)
class EntityMention:
    """One entity in a text; ``start``/``end`` are character offsets into that text."""

    text: str
    label: EntityLabel
    start: int
    end: int
    extractor: str  # "spacy:<NER label>" or "pattern:<row id>"
    confidence: float


def normalise_name(text: str) -> str:
    """The form in which two mentions of the same name compare equal."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@cache
def load_stop_entities(path: Path = STOP_ENTITIES_PATH) -> frozenset[str]:
    """Normalised stop entities, one a line; blank lines and ``#`` comments are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigurationError(f"cannot read stop-entity list {path}: {e}") from e
    return frozenset(
        normalise_name(line) for line in lines if line.strip() and not line.lstrip().startswith("#")
    )
