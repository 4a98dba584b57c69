"""How many memories a scope, its vector index and its speakers hold, counted once and reused
while fresh.

Both the search route (retrieval.hybrid.embedding_route) and a crowded near-duplicate check
(write_plan.near_duplicate_depth) depend on a scope's share of that index (the store's, or the
user's partition: store/index_shards.py), and a search that names a speaker on which names
speak in the scope and how much (retrieval.hybrid.speaker_route). None needs the exact figure,
so one count serves for Settings.scope_size_ttl_s; Memory.add drops them all, so only another
process's writes can be that late to show (a new speaker's name is then neither taken out of
the question nor ranked by the speaker retriever until the count is taken again).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cachetools import TTLCache

from service.core.config import Settings
from service.core.domain import ScopeParams
from service.store.repository import GraphStore

ScopeKey = tuple[str | None, str | None, str | None]  # (user_id, agent_id, run_id)


@dataclass
class ScopeCounts:
    """The counts a Memory keeps between calls."""

    ttl_s: float
    # scope -> (memories in the scope's vector index, in that scope).
    sizes: TTLCache[ScopeKey, tuple[int, int]] = field(init=False)
    # (scope, name) -> memories of the scope that name speaks (0: not a speaker there).
    speakers: TTLCache[tuple[ScopeKey, str], int] = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = TTLCache(maxsize=10_000, ttl=self.ttl_s)
        self.speakers = TTLCache(maxsize=100_000, ttl=self.ttl_s)

    def clear(self) -> None:
        self.sizes.clear()
        self.speakers.clear()


def scope_counts(settings: Settings) -> ScopeCounts | None:
    """The counts a Memory keeps between calls (None when the TTL is 0: count every time)."""
    ttl = settings.scope_size_ttl_s
    return ScopeCounts(ttl) if ttl > 0 else None


def _key(params: ScopeParams) -> ScopeKey:
    return (params.get("user_id"), params.get("agent_id"), params.get("run_id"))


async def scope_size(
    store: GraphStore, counts: ScopeCounts | None, params: ScopeParams
) -> tuple[int, int]:
    """(memories in the scope's vector index, in the caller's scope), reused while fresh."""
    key = _key(params)
    if counts is None or (size := counts.sizes.get(key)) is None:
        size = await store.scope_share(params)
        if counts is not None:
            counts.sizes[key] = size
    return size


def known_speakers(
    counts: ScopeCounts | None, names: list[str], params: ScopeParams
) -> tuple[dict[str, int], list[str]]:
    """What the fresh counts already say of ``names``, asking nothing: the names known to speak
    in the caller's scope (in the order given, with their memories), and the names not counted
    while fresh."""
    scope = _key(params)
    known = {} if counts is None else {n: counts.speakers.get((scope, n)) for n in names}
    speaking = {n: c for n in names if (c := known.get(n)) is not None and c > 0}
    return speaking, [n for n in names if known.get(n) is None]


async def scope_speakers(
    store: GraphStore, counts: ScopeCounts | None, names: list[str], params: ScopeParams
) -> dict[str, int]:
    """The ``names`` that speak in the caller's scope, in the order given, with how many of
    its memories each speaks; the names not counted while fresh are counted in one query."""
    scope = _key(params)
    known = {} if counts is None else {n: counts.speakers.get((scope, n)) for n in names}
    missing = [n for n in names if known.get(n) is None]
    if missing:
        counted = await store.speaker_counts(missing, params)
        known |= counted
        if counts is not None:
            counts.speakers.update({(scope, n): c for n, c in counted.items()})
    return {n: c for n in names if (c := known.get(n) or 0) > 0}
