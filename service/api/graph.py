"""GraphQL for the entity graph: an entity with its memories and neighbours, paths between two.

`entity` and `path` return unions (expected failures are typed results). The list fields under
`Entity` cannot: their expected failures (say `hops: 5`) are raised as Engram errors, which the
schema's MaskErrors lets through with their message, as for the dashboard's `timeline`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from service import domain
from service.api import loaders
from service.api.auth import scope_for
from service.api.types import (
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    Memory,
    NotFound,
    ScopeInput,
    problem,
)
from service.errors import EngramError
from service.memory import Memory as MemoryService
from service.retrieval import traversal
from service.retrieval.traversal import GraphTraversal


def graph(info: Info[Any, None]) -> GraphTraversal:
    memory: MemoryService = info.context["memory"]
    return GraphTraversal(memory.db, hub_limit=memory.settings.graph_hub_limit)


@strawberry.type(description="A person, organisation, place, tool … named in the memories.")
class Entity:
    name: str
    type: str
    aliases: list[str]
    first_seen: datetime | None
    last_seen: datetime | None
    mention_count: int = strawberry.field(description="Every mention, superseded ones included.")
    node: strawberry.Private[traversal.EntityNode]
    scope: strawberry.Private[domain.Scope]

    @classmethod
    def of(cls, node: traversal.EntityNode, scope: domain.Scope) -> Entity:
        """The entity as GraphQL; ``scope`` (already authorised) is where its fields read."""
        return cls(
            name=node.name, type=node.type, aliases=node.aliases, first_seen=node.first_seen,
            last_seen=node.last_seen, mention_count=node.mention_count, node=node, scope=scope,
        )  # fmt: skip

    @strawberry.field(description="Memories that mention it, newest first; current unless asOf.")
    async def memories(
        self, info: Info[Any, None], limit: int = 20, as_of: datetime | None = None
    ) -> list[Memory]:
        loader = loaders.entity_memories(info, graph(info), self.scope, limit, as_of)
        return [Memory.of(m) for m in await loader.load(self.node.key)]

    @strawberry.field(description="Entities up to `hops` (1-3) hops away, nearest first.")
    async def neighbors(
        self, info: Info[Any, None], hops: int = 1, limit: int = 25
    ) -> list[Neighbor]:
        found = await graph(info).neighbors(self.node, self.scope, hops=hops, limit=limit)
        return [Neighbor.of(n, self.scope) for n in found]


@strawberry.type(description="An entity some hops away and how it is reached.")
class Neighbor:
    entity: Entity
    distance: int
    via: list[str] = strawberry.field(description="The entities passed on one shortest path.")
    support: int = strawberry.field(description="Memories linking it to the entities one closer.")

    @classmethod
    def of(cls, neighbor: traversal.Neighbor, scope: domain.Scope) -> Neighbor:
        return cls(
            entity=Entity.of(neighbor.entity, scope), distance=neighbor.distance,
            via=neighbor.via, support=neighbor.support,
        )  # fmt: skip


@strawberry.type(description="One hop of a path and the memories that mention both entities.")
class PathStep:
    from_: Entity = strawberry.field(name="from")
    to: Entity
    memories: list[Memory]


@strawberry.type(description="The shortest chain of entities between two, with its evidence.")
class EntityPath:
    entities: list[Entity]
    steps: list[PathStep]

    @classmethod
    def of(cls, path: traversal.EntityPath, scope: domain.Scope) -> EntityPath:
        return cls(
            entities=[Entity.of(e, scope) for e in path.entities],
            steps=[
                PathStep(from_=Entity.of(s.from_entity, scope), to=Entity.of(s.to_entity, scope),
                         memories=[Memory.of(m) for m in s.memories])
                for s in path.steps
            ],
        )  # fmt: skip


EntityResult = Annotated[
    Entity | NotFound | InvalidInput | DatabaseUnavailable | Forbidden,
    strawberry.union("EntityResult"),
]
PathResult = Annotated[
    EntityPath | NotFound | InvalidInput | DatabaseUnavailable | Forbidden,
    strawberry.union("PathResult"),
]


@strawberry.type
class GraphQuery:
    @strawberry.field(description="An entity by name; case, possessive and plural do not matter.")
    async def entity(
        self,
        info: Info[Any, None],
        name: str,
        scope: ScopeInput,
        entity_type: Annotated[str | None, strawberry.argument(name="type")] = None,
    ) -> EntityResult:
        try:
            where = scope_for(info, scope)
            node = await graph(info).entity(name, where, entity_type)
        except EngramError as e:
            return problem(e)
        return Entity.of(node, where)

    @strawberry.field(description="The shortest chain of entities from one to another.")
    async def path(
        self,
        info: Info[Any, None],
        source: Annotated[str, strawberry.argument(name="from")],
        to: str,
        scope: ScopeInput,
        max_hops: int = 3,
    ) -> PathResult:
        try:
            where = scope_for(info, scope)
            found = await graph(info).path(source, to, where, max_hops=max_hops)
        except EngramError as e:
            return problem(e)
        return EntityPath.of(found, where)
