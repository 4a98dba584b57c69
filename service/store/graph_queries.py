"""Multi-hop reads over the Entity <- MENTIONS - Memory graph, always inside one caller's scope."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from service.core.domain import Scope, StoredMemory
from service.store.database import Database, Record
from service.store.params import VisibleParams
from service.store.repository import to_memory

# The path searches in order, (typed_only, with_inferred): stated relations, then inferred
# ones too, then memories naming both ends as well.
PATH_TRIES = ((True, False), (True, True), (False, True))
# How many equally short paths find_path ranks at most: a chain of entities is as many paths
# as the product of its steps' parallel relations and memories, so this bounds the work.
TIED_PATHS_LIMIT = 1000


class EntityNode(BaseModel):
    """An entity as stored; ``mention_count`` counts every MENTIONS edge, superseded or not."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    key: str
    aliases: list[str] = Field(default_factory=list)
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    mention_count: int = 0


class Neighbor(BaseModel):
    """An entity ``distance`` hops away; ``via`` names the entities on one shortest path there
    and ``support`` counts the memories that link it to the entities one hop closer."""

    model_config = ConfigDict(frozen=True)

    entity: EntityNode
    distance: int
    via: list[str] = Field(default_factory=list)
    support: int
    relations: list[str] = Field(default_factory=list)  # typed relations to the start entity


MENTIONED_WITH = "MENTIONED_WITH"  # a hop through a memory that mentions both entities


class EntityLink(BaseModel):
    """Two entities and what links them: a typed relation (``kind`` WORKS_AT …, source to target
    as stated) or MENTIONED_WITH (memories name both); ``support`` counts those memories."""

    model_config = ConfigDict(frozen=True)

    source: EntityNode
    target: EntityNode
    kind: str
    support: int


class PathStep(BaseModel):
    """One hop of a path: two entities, what links them (a relation type such as WORKS_AT, or
    MENTIONED_WITH) and the (capped) memories that support it. ``forward`` is false when a
    typed relation points from ``to_entity`` to ``from_entity``."""

    model_config = ConfigDict(frozen=True)

    from_entity: EntityNode
    to_entity: EntityNode
    kind: str = MENTIONED_WITH
    forward: bool = True
    memories: list[StoredMemory]


class EntityPath(BaseModel):
    """A chain of entities and, for each consecutive pair, the memories that connect them."""

    model_config = ConfigDict(frozen=True)

    entities: list[EntityNode]
    steps: list[PathStep]


class TraversalStore:
    """Runs the traversal queries of the catalogue and returns typed results."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def find_entity(
        self, scope: Scope, key: str, form: str, types: list[str] | None
    ) -> EntityNode | None:
        """The entity with this key, else the most mentioned one with ``form`` among its
        aliases, of one of ``types`` (any when None)."""
        params = {**scope.params(), "key": key, "form": form, "types": types}
        rows = await self.db.read("find_entity", params)
        return to_entity(rows[0]["entity"]) if rows else None

    async def entity_memories(
        self, scope: Scope, keys: list[str], limit: int, as_of: datetime | None
    ) -> dict[str, list[StoredMemory]]:
        """Per entity key, the memories that mention it; one query for all the keys."""
        rows = await self.db.read(
            "fetch_entity_memories", {**visibility(scope, as_of), "keys": keys, "limit": limit}
        )
        return {r["key"]: [to_memory(m) for m in r["memories"]] for r in rows}

    async def neighbors(
        self, scope: Scope, key: str, hops: int, limit: int, hub_limit: int
    ) -> list[Neighbor]:
        params = {
            **visibility(scope),
            "key": key,
            "hops": hops,
            "limit": limit,
            "hub_limit": hub_limit,
        }
        rows = await self.db.read("find_neighbors", params)
        near = [r["entity"]["key"] for r in rows if r["distance"] == 1]
        typed = await self.db.read(
            "find_neighbor_relations", {**visibility(scope), "key": key, "keys": near}
        )
        kinds = {r["key"]: sorted(r["types"]) for r in typed}
        return [
            Neighbor(
                entity=to_entity(r["entity"]),
                distance=r["distance"],
                via=r["via"],
                support=r["support"],
                relations=kinds.get(r["entity"]["key"], []),
            )
            for r in rows
        ]

    async def path(
        self,
        scope: Scope,
        from_key: str,
        to_key: str,
        max_hops: int,
        hub_limit: int,
        per_step: int,
        as_of: datetime | None = None,
    ) -> EntityPath | None:
        """The shortest path within ``max_hops``, or None when there is none; among equally
        short ones, the same every time (cypher/find_path.cypher says which)."""
        params = {
            **visibility(scope, as_of),
            "from_key": from_key,
            "to_key": to_key,
            "max_hops": max_hops,
            "hub_limit": hub_limit,
            "per_step": per_step,
            "path_limit": TIED_PATHS_LIMIT,
        }
        # Typed relations alone first: they say how two things are linked, where a memory that
        # names both (its speaker's "my", a list of places) may only say they met in a sentence.
        # Among typed ones, those stated before those inferred (family.py, preferences.py).
        rows: list[Record] = []
        for typed_only, with_inferred in PATH_TRIES:
            tried = {**params, "typed_only": typed_only, "with_inferred": with_inferred}
            rows = await self.db.read("find_path", tried)
            if rows:
                break
        if not rows:
            return None
        entities = [to_entity(e) for e in rows[0]["entities"]]
        steps = [
            PathStep(
                from_entity=left,
                to_entity=right,
                kind=step["kind"],
                forward=step["source_key"] in (None, left.key),
                memories=[to_memory(m) for m in step["memories"]],
            )
            for left, right, step in zip(entities[:-1], entities[1:], rows[0]["steps"], strict=True)
        ]
        return EntityPath(entities=entities, steps=steps)


def visibility(scope: Scope, as_of: datetime | None = None) -> VisibleParams:
    """Parameters of {{memory_visible}}: the scope, current or as of an instant, no time window."""
    return {
        **scope.params(),
        "as_of": as_of,
        "said_from": None,
        "said_to": None,
        "happened_from": None,
        "happened_to": None,
    }


def to_entity(record: Record) -> EntityNode:
    """An Entity projection as the model (missing fields unset)."""
    return EntityNode.model_validate({k: v for k, v in record.items() if v is not None})


class Relation(BaseModel):
    """A typed relation between two entities with the memories that state it."""

    model_config = ConfigDict(frozen=True)

    id: str
    type: str
    source: EntityNode
    target: EntityNode
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    confidence: float | None = None
    memories: list[StoredMemory] = Field(default_factory=list)
    # Inferred from things done, not stated (service/ingest/preferences.py): its evidence.
    inferred: bool = False
    evidence: list[StoredMemory] = Field(default_factory=list)


@dataclass(frozen=True)
class RelationQuery:
    """Which relations to list: of some types (all when empty), around one entity."""

    types: tuple[str, ...] = ()
    entity_key: str | None = None
    direction: str = "BOTH"  # OUT: the entity is the source; IN: the target
    as_of: datetime | None = None


@dataclass(frozen=True)
class RelationPage:
    relations: list[Relation]
    has_next_page: bool
    total_count: int


async def list_relations(
    db: Database,
    scope: Scope,
    query: RelationQuery,
    first: int,
    after: str | None,
    per_relation: int,
) -> RelationPage:
    """One page of the scope's relations, ordered by (source key, type, target key); ``after``
    is the id of the last relation of the previous page."""
    params = {
        **visibility(scope, query.as_of),
        "types": list(query.types) or None,
        "entity_key": query.entity_key,
        "direction": query.direction,
        "after": after,
        "limit": first + 1,
        "per_relation": per_relation,
    }
    [row] = await db.read("list_relations", params)
    rows = row["rows"]
    relations = [
        Relation(
            id=r["id"],
            type=r["type"],
            source=to_entity(r["source"]),
            target=to_entity(r["target"]),
            valid_from=r["valid_from"],
            valid_to=r["valid_to"],
            confidence=r["confidence"],
            memories=[to_memory(m) for m in r["memories"]],
            inferred=bool(r["inferred"]),
            evidence=[to_memory(m) for m in r["evidence"]],
        )
        for r in rows[:first]
    ]
    return RelationPage(relations, len(rows) > first, int(row["total"]))
