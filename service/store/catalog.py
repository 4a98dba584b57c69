"""The query catalogue: one Cypher statement per cypher/<name>.cypher, asked for by name."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from service.config import REPO_ROOT
from service.errors import UnknownQueryError

CYPHER_DIR = REPO_ROOT / "cypher"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_INCLUDE = re.compile(r"\{\{([a-z][a-z0-9_]*)\}\}")


@cache
def query(name: str, directory: Path = CYPHER_DIR) -> str:
    """The Cypher text of query ``name`` (comments stripped); unknown names raise."""
    if not _NAME.match(name):
        raise UnknownQueryError(f"invalid query name {name!r}")
    path = directory / f"{name}.cypher"
    if not path.is_file():
        raise UnknownQueryError(f"no query named {name!r} in {directory}")
    text = strip_comments(path.read_text(encoding="utf-8"))
    return _INCLUDE.sub(lambda m: f"({fragment(m.group(1), directory)})", text)


@cache
def fragment(name: str, directory: Path = CYPHER_DIR) -> str:
    """A shared predicate from cypher/fragments/, included in queries as {{name}}."""
    path = directory / "fragments" / f"{name}.cypher"
    if not path.is_file():
        raise UnknownQueryError(f"no fragment named {name!r} in {directory / 'fragments'}")
    return strip_comments(path.read_text(encoding="utf-8"))


def names(directory: Path = CYPHER_DIR) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.cypher"))


def statements(name: str, directory: Path = CYPHER_DIR) -> list[str]:
    """A multi-statement file (the schema) split on the semicolons that end its lines."""
    text = query(name, directory)
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", text) if s.strip()]


def strip_comments(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()
