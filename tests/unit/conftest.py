"""Fixtures the unit tests of the NLP share. Module-scoped: a module that adds a pipe to the
pipeline (EntityExtractor adds its ruler) does not change what another module parses."""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language

from service.embedding.manifest import resolve_model_path
from service.nlp.relations.extractor import RelationExtractor


@pytest.fixture(scope="module")
def english() -> Language:
    return spacy.load(resolve_model_path("en_core_web_sm", "spacy"))


@pytest.fixture(scope="module")
def finder() -> RelationExtractor:
    return RelationExtractor()
