"""Per-request DataLoaders: nested fields of a list load in one query, not one per item.

`entity { neighbors { entity { memories } } }` asks for the memories of every neighbour; the
loader gathers the keys asked for in one tick and reads them with one Cypher statement. Loaders
live in the request's context, so nothing is cached across requests (or across callers).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from strawberry.dataloader import DataLoader
from strawberry.types import Info

from service.api.context import RequestContext
from service.core import domain
from service.retrieval.traversal import GraphTraversal

EntityMemories = DataLoader[str, list[domain.StoredMemory]]
SupersedingMemories = DataLoader[tuple[str, domain.Scope], list[domain.StoredMemory]]


def entity_memories(
    info: Info[RequestContext, None],
    graph: GraphTraversal,
    scope: domain.Scope,
    limit: int,
    as_of: datetime | None,
) -> EntityMemories:
    """The request's loader of entity key → memories for these arguments."""
    loaders = info.context.loaders
    key = ("entity_memories", tuple(scope.params().items()), limit, as_of)
    if key not in loaders:

        async def load(keys: Sequence[str]) -> list[list[domain.StoredMemory]]:
            return await graph.memories_of_many(list(keys), scope, limit, as_of)

        loaders[key] = DataLoader(load_fn=load)
    loader: EntityMemories = loaders[key]
    return loader


def superseding_memories(info: Info[RequestContext, None]) -> SupersedingMemories:
    """The request's loader of (memory id, its scope) -> the memories that replaced it."""
    loaders = info.context.loaders
    if "superseding" not in loaders:
        store = info.context.memory.dashboard

        async def load(asks: Sequence[tuple[str, domain.Scope]]) -> list[list[domain.StoredMemory]]:
            found = await store.superseding(asks)
            return [found.get(memory_id, []) for memory_id, _ in asks]

        loaders["superseding"] = DataLoader(load_fn=load)
    loader: SupersedingMemories = loaders["superseding"]
    return loader
