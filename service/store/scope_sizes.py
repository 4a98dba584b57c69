"""How many memories a scope and its vector index hold, counted once and reused while fresh.

Both the search route (retrieval.hybrid.embedding_route) and a crowded near-duplicate check
(write_plan.near_duplicate_depth) depend on a scope's share of that index (the store's, or the
user's partition: store/index_shards.py); neither needs the exact figure, so one count serves
for Settings.scope_size_ttl_s (Memory.add drops them all).
"""

from __future__ import annotations

from typing import Any

from cachetools import TTLCache

from service.config import Settings
from service.store.repository import GraphStore

# (user_id, agent_id, run_id) -> (memories in the scope's vector index, in that scope).
ScopeSizes = TTLCache[tuple[str | None, str | None, str | None], tuple[int, int]]


def scope_sizes(settings: Settings) -> ScopeSizes | None:
    """The cache a Memory keeps between calls (None when the TTL is 0: count every time)."""
    ttl = settings.scope_size_ttl_s
    return TTLCache(maxsize=10_000, ttl=ttl) if ttl > 0 else None


async def scope_size(
    store: GraphStore, sizes: ScopeSizes | None, params: dict[str, Any]
) -> tuple[int, int]:
    """(memories in the scope's vector index, in the caller's scope), reused while fresh."""
    key = (params.get("user_id"), params.get("agent_id"), params.get("run_id"))
    if sizes is None or (size := sizes.get(key)) is None:
        size = await store.scope_share(params)
        if sizes is not None:
            sizes[key] = size
    return size
