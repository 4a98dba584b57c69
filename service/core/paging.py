"""Cursor-paged results (Relay-style connections), as every layer hands them on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

N = TypeVar("N")


@dataclass(frozen=True)
class Edge(Generic[N]):
    cursor: str
    node: N


@dataclass(frozen=True)
class Page(Generic[N]):
    """One page of a Relay-style connection."""

    edges: list[Edge[N]]
    has_next_page: bool
    end_cursor: str | None
    total_count: int
