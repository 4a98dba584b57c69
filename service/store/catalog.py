"""The query catalogue: one Cypher statement per cypher/<name>.cypher, asked for by name."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from service.core.errors import UnknownQueryError
from service.core.resources import CYPHER_DIR

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# {{name}} includes cypher/fragments/name.cypher: in parentheses where it stands in a line (a
# predicate or an expression), as it is where it stands alone on its line (clauses).
_INCLUDE = re.compile(r"^([ \t]*)\{\{([a-z][a-z0-9_]*)\}\}[ \t]*$|\{\{([a-z][a-z0-9_]*)\}\}", re.M)
# Dynamic predicates (from the whitelisted filter builder) go at /*name*/ markers; builder
# output never holds these, so refusing them keeps a bug from turning into a comment-out.
_MARKER = re.compile(r"/\*([a-z_]+)\*/")
_FORBIDDEN = (";", "//", "/*", "*/")
# An optional filter, `($param IS NULL OR predicate)` with no parentheses inside the predicate.
_OPTIONAL = re.compile(r"\(\$([a-z_]+) IS NULL OR ([^()]*)\)")


@cache
def query(name: str, directory: Path = CYPHER_DIR) -> str:
    """The Cypher text of query ``name`` (comments stripped); unknown names raise."""
    if not _NAME.match(name):
        raise UnknownQueryError(f"invalid query name {name!r}")
    path = directory / f"{name}.cypher"
    if not path.is_file():
        raise UnknownQueryError(f"no query named {name!r} in {directory}")
    return _included(strip_comments(path.read_text(encoding="utf-8")), directory, ())


@cache
def fragment(name: str, directory: Path = CYPHER_DIR, including: tuple[str, ...] = ()) -> str:
    """A shared predicate, expression or run of clauses from cypher/fragments/, included in
    queries as {{name}}; it may include other fragments the same way (not itself)."""
    if name in including:
        raise UnknownQueryError(f"fragment {name!r} includes itself ({' -> '.join(including)})")
    path = directory / "fragments" / f"{name}.cypher"
    if not path.is_file():
        raise UnknownQueryError(f"no fragment named {name!r} in {directory / 'fragments'}")
    return _included(
        strip_comments(path.read_text(encoding="utf-8")), directory, (*including, name)
    )


def _included(text: str, directory: Path, including: tuple[str, ...]) -> str:
    def include(match: re.Match[str]) -> str:
        indent, clauses, inline = match.groups()
        if clauses:
            return indent + fragment(clauses, directory, including)
        return f"({fragment(inline, directory, including)})"

    return _INCLUDE.sub(include, text)


def names(directory: Path = CYPHER_DIR) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.cypher"))


def statements(name: str, directory: Path = CYPHER_DIR) -> list[str]:
    """A multi-statement file (the schema) split on the semicolons that end its lines."""
    text = query(name, directory)
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", text) if s.strip()]


def strip_comments(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def fill_markers(cypher: str, fills: Mapping[str, str]) -> str:
    """Put builder output at the /*name*/ markers of a catalogue query; every marker is filled."""
    found = set(_MARKER.findall(cypher))
    if found != set(fills):
        raise ValueError(f"markers {sorted(found)} do not match fills {sorted(fills)}")
    for name, text in fills.items():
        if any(token in text for token in _FORBIDDEN):
            raise ValueError(f"fill for /*{name}*/ holds a statement or comment delimiter")
    return _MARKER.sub(lambda m: fills[m.group(1)], cypher)


def bind_optional(cypher: str, params: Mapping[str, Any]) -> str:
    """Resolve each optional filter `($p IS NULL OR pred)` for these parameters: `pred` when $p
    is set, `true` when it is null (left alone when $p is not passed at all).

    Neo4j plans a query text once for every parameter value, and one plan that must also serve
    `$user_id IS NULL` cannot seek the index on `m.user_id`: it scans every Memory. Resolved per
    call, `m.user_id = $user_id` is seen by the planner, and a small scope among 100k memories
    is read through the index. Only null-ness picks the text, so there are at most 2^n plans of
    a query with n optional filters, and no value ever enters the Cypher text.
    """
    optional = _optional_names(cypher)
    nulls = frozenset(n for n in optional if n in params and params[n] is None)
    given = frozenset(n for n in optional if params.get(n) is not None)
    return _bind(cypher, nulls, given) if nulls or given else cypher


@cache
def _optional_names(cypher: str) -> frozenset[str]:
    return frozenset(name for name, _ in _OPTIONAL.findall(cypher))


@lru_cache(maxsize=4096)
def _bind(cypher: str, nulls: frozenset[str], given: frozenset[str]) -> str:
    def resolve(match: re.Match[str]) -> str:
        name, predicate = match.group(1), match.group(2)
        if name in nulls:
            return "true"
        return f"({predicate})" if name in given else match.group(0)

    return _OPTIONAL.sub(resolve, cypher)


def and_(predicate: str) -> str:
    """A predicate as the fill of a marker that follows a condition: ` AND (…)`, or nothing."""
    return f" AND ({predicate})" if predicate else ""
