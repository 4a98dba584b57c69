"""Maximal marginal relevance: keep the ranking's relevance but stop near-copies from filling
the top k, so that answers spread over several sessions (multi-hop questions) are reached."""

from __future__ import annotations

import numpy as np


def mmr_order(
    ids: list[str],
    relevance: list[float],
    embeddings: dict[str, list[float]],
    k: int,
    weight: float,
) -> list[str]:
    """Greedy MMR: pick argmax weight * rel - (1 - weight) * max cosine to those picked.

    Relevance is scaled to [0, 1] by the best score; ids without an embedding keep their
    place at the end. ``weight`` 1.0 returns the input order.
    """
    usable = [i for i, id_ in enumerate(ids) if id_ in embeddings]
    if weight >= 1.0 or len(usable) < 2:
        return ids[:k]
    top = max(relevance[i] for i in usable) or 1.0
    rel = np.array([relevance[i] / top for i in usable])
    vecs = np.array([embeddings[ids[i]] for i in usable], dtype=np.float32)
    sims = vecs @ vecs.T
    picked: list[int] = []
    closest = np.full(len(usable), -np.inf)
    for _ in range(min(k, len(usable))):
        penalty = np.where(np.isinf(closest), 0.0, closest)
        score = weight * rel - (1.0 - weight) * penalty
        score[picked] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        closest = np.maximum(closest, sims[best])
    order = [ids[usable[i]] for i in picked]
    rest = [id_ for id_ in ids if id_ not in set(order)]
    return (order + rest)[:k]
