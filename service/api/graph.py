"""GraphQL for the entity graph: an entity with its memories and neighbours, paths between two.

`entity` and `path` return unions (expected failures are typed results). The list fields under
`Entity` cannot: their expected failures (say `hops: 5`) are raised as Engram errors, which the
schema's MaskErrors lets through with their message, as for the dashboard's `timeline`.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry
from strawberry.types import Info

from service.api import loaders
from service.api.auth import scope_for
from service.api.context import RequestContext
from service.api.types import (
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    Memory,
    NotFound,
    PageInfo,
    ScopeInput,
    TimedOut,
    problem,
)
from service.core import domain
from service.core.errors import EngramError
from service.memory import MemoryService
from service.retrieval import traversal
from service.retrieval.traversal import GraphTraversal


def graph(info: Info[RequestContext, None]) -> GraphTraversal:
    memory: MemoryService = info.context.memory
    return memory.graph


@strawberry.enum(description="Which end of a typed relation an entity is.")
class Direction(Enum):
    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"


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
            name=node.name,
            type=node.type,
            aliases=node.aliases,
            first_seen=node.first_seen,
            last_seen=node.last_seen,
            mention_count=node.mention_count,
            node=node,
            scope=scope,
        )

    @strawberry.field(description="Memories that mention it, newest first; current unless asOf.")
    async def memories(
        self, info: Info[RequestContext, None], limit: int = 20, as_of: datetime | None = None
    ) -> list[Memory]:
        loader = loaders.entity_memories(info, graph(info), self.scope, limit, as_of)
        return [Memory.of(m) for m in await loader.load(self.node.key)]

    @strawberry.field(description="Typed relations it is the source (OUT) or target (IN) of.")
    async def relations(
        self,
        info: Info[RequestContext, None],
        direction: Direction = Direction.BOTH,
        type: list[str] | None = None,
        first: int = 20,
        as_of: datetime | None = None,
    ) -> list[Relation]:
        page = await graph(info).relations(
            self.scope, type, self.node.name, direction.value, first, None, as_of
        )
        return [Relation.of(r, self.scope) for r in page.relations]

    @strawberry.field(description="Entities up to `hops` (1-3) hops away, nearest first.")
    async def neighbors(
        self, info: Info[RequestContext, None], hops: int = 1, limit: int = 25
    ) -> list[Neighbor]:
        found = await graph(info).neighbors(self.node, self.scope, hops=hops, limit=limit)
        return [Neighbor.of(n, self.scope) for n in found]


@strawberry.type(description="An entity some hops away and how it is reached.")
class Neighbor:
    entity: Entity
    distance: int
    via: list[str] = strawberry.field(description="The entities passed on one shortest path.")
    support: int = strawberry.field(description="Memories linking it to the entities one closer.")
    relations: list[str] = strawberry.field(
        description="Typed relations between it and the entity asked about (WORKS_AT …)."
    )

    @classmethod
    def of(cls, neighbor: traversal.Neighbor, scope: domain.Scope) -> Neighbor:
        return cls(
            entity=Entity.of(neighbor.entity, scope),
            distance=neighbor.distance,
            via=neighbor.via,
            support=neighbor.support,
            relations=neighbor.relations,
        )


@strawberry.type(description="A typed relation between two entities and the memories behind it.")
class Relation:
    id: strawberry.ID
    type: str = strawberry.field(description="WORKS_AT, LIVES_IN, LOCATED_IN, FAMILY_OF …")
    source: Entity
    target: Entity
    valid_from: datetime | None
    valid_to: datetime | None
    confidence: float | None
    memories: list[Memory] = strawberry.field(description="The memories that state it.")
    inferred: bool = strawberry.field(
        default=False,
        description="Never stated: a LIKES inferred from a thing done on several days, or kin "
        "inferred from a chain of family ties; its evidence says from what (docs/graph.md).",
    )
    evidence: list[Memory] = strawberry.field(
        default_factory=list,
        description="For an inferred relation, the memories of the things done it is inferred "
        "from; empty for a stated one.",
    )

    @classmethod
    def of(cls, r: traversal.Relation, scope: domain.Scope) -> Relation:
        return cls(
            id=strawberry.ID(r.id),
            type=r.type,
            source=Entity.of(r.source, scope),
            target=Entity.of(r.target, scope),
            valid_from=r.valid_from,
            valid_to=r.valid_to,
            confidence=r.confidence,
            memories=[Memory.of(m) for m in r.memories],
            inferred=r.inferred,
            evidence=[Memory.of(m) for m in r.evidence],
        )


@strawberry.type
class RelationEdge:
    cursor: str
    node: Relation


@strawberry.type(description="A page of typed relations.")
class RelationConnection:
    edges: list[RelationEdge]
    page_info: PageInfo
    total_count: int


@strawberry.input(description="Which relations: of these types, around this entity (any alias).")
class RelationWhereInput:
    types: list[str] | None = None
    entity: str | None = None
    direction: Direction = Direction.BOTH


@strawberry.type(description="Two entities and what links them.")
class EntityLink:
    source: Entity
    target: Entity
    kind: str = strawberry.field(
        description="The relation type (WORKS_AT …), from source to target, or MENTIONED_WITH: "
        "memories name both."
    )
    support: int = strawberry.field(description="The memories behind it.")

    @classmethod
    def of(cls, link: traversal.EntityLink, scope: domain.Scope) -> EntityLink:
        return cls(
            source=Entity.of(link.source, scope),
            target=Entity.of(link.target, scope),
            kind=link.kind,
            support=link.support,
        )


@strawberry.type(description="One hop of a path and the memories that support it.")
class PathStep:
    from_: Entity = strawberry.field(name="from")
    to: Entity
    kind: str = strawberry.field(
        description="The relation type (WORKS_AT …) or MENTIONED_WITH: a memory names both."
    )
    forward: bool = strawberry.field(description="False when a relation points from `to`.")
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
                PathStep(
                    from_=Entity.of(s.from_entity, scope),
                    to=Entity.of(s.to_entity, scope),
                    kind=s.kind,
                    forward=s.forward,
                    memories=[Memory.of(m) for m in s.memories],
                )
                for s in path.steps
            ],
        )


EntityResult = Annotated[
    Entity | NotFound | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("EntityResult"),
]
RelationsResult = Annotated[
    RelationConnection | NotFound | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("RelationsResult"),
]
PathResult = Annotated[
    EntityPath | NotFound | InvalidInput | DatabaseUnavailable | TimedOut | Forbidden,
    strawberry.union("PathResult"),
]


@strawberry.type
class GraphQuery:
    @strawberry.field(description="An entity by name; case, possessive and plural do not matter.")
    async def entity(
        self,
        info: Info[RequestContext, None],
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
        info: Info[RequestContext, None],
        source: Annotated[str, strawberry.argument(name="from")],
        to: str,
        scope: ScopeInput,
        max_hops: int = 3,
        as_of: datetime | None = None,
    ) -> PathResult:
        try:
            where = scope_for(info, scope)
            found = await graph(info).path(source, to, where, max_hops=max_hops, as_of=as_of)
        except EngramError as e:
            return problem(e)
        return EntityPath.of(found, where)

    @strawberry.field(description="Typed relations of one scope, current unless asOf, paged.")
    async def relations(
        self,
        info: Info[RequestContext, None],
        scope: ScopeInput,
        where: RelationWhereInput | None = None,
        first: int = 20,
        after: str | None = None,
        as_of: datetime | None = None,
    ) -> RelationsResult:
        try:
            allowed = scope_for(info, scope)
            w = where or RelationWhereInput()
            page = await graph(info).relations(
                allowed, w.types, w.entity, w.direction.value, first, after, as_of
            )
        except EngramError as e:
            return problem(e)
        edges = [RelationEdge(cursor=r.id, node=Relation.of(r, allowed)) for r in page.relations]
        return RelationConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                has_previous_page=after is not None,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
            ),
            total_count=page.total_count,
        )
