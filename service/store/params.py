"""The parameters of the search statements, typed: what the read path hands the store.

One TypedDict rather than a dataclass: each statement reads its own subset of the keys, the
read path composes them (`{**scope, **filters, "limit": k}`), and the driver takes the mapping
as it is. mypy checks every key written against these declarations.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from service.core.domain import ScopeParams


class WindowParams(TypedDict):
    """A time window's bounds as memory_visible reads them (all None without a window)."""

    said_from: datetime | None
    said_to: datetime | None
    happened_from: datetime | None
    happened_to: datetime | None


class FilterParams(WindowParams):
    """What memory_visible filters on besides the scope."""

    as_of: datetime | None


class VisibleParams(ScopeParams, FilterParams):
    """What memory_visible reads: the scope, an instant (or now), a time window."""


class Cover(TypedDict):
    """What an embedding ranking loads with its answer (cypher/fragments/ranked_hits.cypher)."""

    first: int
    known: list[str]
    loaded: list[str]
    speakers: list[str]


class RelationTypes(TypedDict):
    """Typed relations the graph retriever follows (in a map: Neo4j keys plans by parameter
    types, and an empty list types differently)."""

    types: list[str]


class SearchParams(ScopeParams, total=False):
    """Every parameter a search statement may read; the scope's are always there."""

    as_of: datetime | None
    said_from: datetime | None
    said_to: datetime | None
    happened_from: datetime | None
    happened_to: datetime | None
    limit: int
    # embedding rankings
    embedding: list[float]
    window_cap: int
    cover: Cover
    fetch_k: int
    speakers: list[str]
    vector_index: str
    # full-text and graph (cypher/search_text.cypher)
    text_index: str
    memory_lucene: str
    text_fetch_k: int
    entity_lucene: str
    max_entities: int
    hub_limit: int
    hop_decay: float
    preload: int
    relations: RelationTypes
    # lookups by id or name
    ids: list[str]
    names: list[str]


def search_params(scope: ScopeParams, filters: FilterParams, limit: int) -> SearchParams:
    """A search's base parameters: its scope, its time filters and how many rows a ranking
    returns; the retrievers add their own."""
    return SearchParams(
        user_id=scope["user_id"],
        agent_id=scope["agent_id"],
        run_id=scope["run_id"],
        as_of=filters["as_of"],
        said_from=filters["said_from"],
        said_to=filters["said_to"],
        happened_from=filters["happened_from"],
        happened_to=filters["happened_to"],
        limit=limit,
    )
