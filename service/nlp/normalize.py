"""Entity keys: one node per thing per scope, whatever case, spacing, possessive or plural."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from service.config import REPO_ROOT
from service.domain import Scope
from service.ids import scope_key

ALIASES_PATH = REPO_ROOT / "nlp_models" / "aliases.json"
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'“”‘’()[]{}<>«»、，。！？；：（）"
_SINGULAR = [
    (re.compile(r"ies$"), "y"),
    (re.compile(r"(ss|sh|ch|x)es$"), r"\1"),
    (re.compile(r"(?<![su])s$"), ""),
]
_INVARIANT = {"kubernetes", "series", "news", "physics", "mathematics", "species", "always"}
# Plural folding is only safe for common nouns; names keep their final s (Paris, Jules).
_PLURAL_TYPES = {"CONCEPT"}


@lru_cache(maxsize=1)
def _aliases(path: Path = ALIASES_PATH) -> dict[str, str]:
    raw: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


def normalize_name(name: str, entity_type: str) -> str:
    """Case-folded, NFKC, single-spaced, without possessive, article or (for concepts) plural."""
    text = unicodedata.normalize("NFKC", name).strip(_EDGE_PUNCT)
    text = " ".join(_POSSESSIVE.sub("", text).split()).casefold()
    text = _ARTICLE.sub("", text)
    if text in _aliases():
        return _aliases()[text]
    if (
        entity_type in _PLURAL_TYPES
        and " " not in text
        and len(text) > 3
        and text not in _INVARIANT
    ):
        for pattern, replacement in _SINGULAR:
            text, count = pattern.subn(replacement, text)
            if count:
                break
    return _aliases().get(text, text)


def display_name(name: str) -> str:
    """The name as shown: original case, possessive and edge punctuation removed."""
    text = unicodedata.normalize("NFKC", name).strip(_EDGE_PUNCT)
    return " ".join(_POSSESSIVE.sub("", text).split())


def entity_key(scope: Scope, entity_type: str, name: str) -> str:
    """Unique key of an entity: scope + type + normalised name."""
    return f"{scope_key(scope)}\x1d{entity_type}\x1d{normalize_name(name, entity_type)}"
