"""Reciprocal-rank fusion with per-retriever weights: rank lists in, one ranking out."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Ranked:
    """One retriever's hit: memory id, the retriever's own score, optional graph evidence."""

    id: str
    score: float
    path: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()


@dataclass
class Fused:
    id: str
    score: float = 0.0
    ranks: dict[str, tuple[int, float]] = field(default_factory=dict)
    path: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()


def reciprocal_rank_fusion(
    results: dict[str, list[Ranked]], weights: dict[str, float], k: int = 60
) -> list[Fused]:
    """Sum of weight / (k + rank) over the retrievers that found each id; ties keep order."""
    fused: dict[str, Fused] = {}
    for retriever, hits in results.items():
        weight = weights.get(retriever, 1.0)
        for rank, hit in enumerate(hits, start=1):
            entry = fused.setdefault(hit.id, Fused(id=hit.id))
            entry.score += weight / (k + rank)
            entry.ranks[retriever] = (rank, hit.score)
            if hit.path and not entry.path:
                entry.path, entry.matched = hit.path, hit.matched
    return sorted(fused.values(), key=lambda f: f.score, reverse=True)
