"""Multi-hop traversals: an entity by name, its memories, its neighbours, paths between entities.

A hop is Entity <- Memory -> Entity: two entities are one hop apart when a memory mentions both.
Every walk stays inside the caller's scope and goes only through current memories; hub entities
(more than ``hub_limit`` mentions, e.g. the user's employer in every third fact) can be reached
but are never walked through, so one hub cannot turn a 3-hop question into the whole graph.
"""

from __future__ import annotations

from datetime import datetime

from service.core.domain import MAX_ID_CHARS, Scope, StoredMemory, clean_text, instant_or_error
from service.core.errors import NotFoundError, ValidationError
from service.nlp.entities.names import entity_key, identity_form
from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.extractor import RelationType
from service.store.database import Database
from service.store.graph_queries import (
    EntityLink,
    EntityNode,
    EntityPath,
    Neighbor,
    PathStep,
    Relation,
    RelationPage,
    RelationQuery,
    TraversalStore,
    list_relations,
)

__all__ = [
    "EntityLink",
    "EntityNode",
    "EntityPath",
    "GraphTraversal",
    "Neighbor",
    "PathStep",
    "Relation",
    "RelationPage",
    "RelationQuery",
]

MAX_NAME_CHARS = MAX_ID_CHARS
MAX_HOPS = 3  # neighbours; the quantifier in find_neighbors.cypher caps the walk at 3
MAX_PATH_HOPS = 4  # paths; the quantifier in find_path.cypher caps them at 4
MAX_NEIGHBORS = 100
MAX_MEMORIES = 200
DEFAULT_HUB_LIMIT = 200
DEFAULT_MEMORIES_PER_STEP = 5
MAX_RELATIONS_PAGE = 100
MEMORIES_PER_RELATION = 10
DIRECTIONS = ("OUT", "IN", "BOTH")
ENTITY_TYPES = tuple(label.value for label in EntityLabel if label is not EntityLabel.TEMPORAL)


class GraphTraversal:
    """Validates traversal requests and runs them through the store."""

    def __init__(
        self,
        db: Database,
        hub_limit: int = DEFAULT_HUB_LIMIT,
        memories_per_step: int = DEFAULT_MEMORIES_PER_STEP,
    ) -> None:
        if hub_limit < 1 or memories_per_step < 1:
            raise ValueError("hub_limit and memories_per_step must be positive")
        self.store = TraversalStore(db)
        self.hub_limit = hub_limit
        self.memories_per_step = memories_per_step

    async def entity(self, name: str, scope: Scope, entity_type: str | None = None) -> EntityNode:
        """The entity called ``name`` (case, possessive and plural do not matter) in the scope.

        Without a type, the most mentioned entity of that name wins (Apple the ORG over Apple
        the CONCEPT when it is mentioned more).
        """
        return await self._lookup(check_name(name, "name"), scope, check_types(entity_type))

    async def memories(
        self, entity: EntityNode, scope: Scope, limit: int = 20, as_of: datetime | None = None
    ) -> list[StoredMemory]:
        """Memories that mention the entity, newest first: current ones, or as of an instant."""
        found = await self.memories_of_many([entity.key], scope, limit, as_of)
        return found[0]

    async def memories_of_many(
        self, keys: list[str], scope: Scope, limit: int = 20, as_of: datetime | None = None
    ) -> list[list[StoredMemory]]:
        """``memories`` for several entities (by key) in one query, in the order of ``keys``."""
        check_range("limit", limit, 1, MAX_MEMORIES)
        # A naive instant is UTC, as on the write path (Neo4j never matches naive to zoned).
        as_of = instant_or_error(as_of)
        found = await self.store.entity_memories(scope, keys, limit, as_of)
        return [found.get(key, []) for key in keys]

    async def neighbors(
        self, entity: EntityNode, scope: Scope, hops: int = 1, limit: int = 25
    ) -> list[Neighbor]:
        """Entities up to ``hops`` hops away: nearest first, then the best supported."""
        check_range("hops", hops, 1, MAX_HOPS)
        check_range("limit", limit, 1, MAX_NEIGHBORS)
        return await self.store.neighbors(scope, entity.key, hops, limit, self.hub_limit)

    async def path(
        self,
        source: str,
        target: str,
        scope: Scope,
        max_hops: int = 3,
        as_of: datetime | None = None,
    ) -> EntityPath:
        """The shortest chain of entities from ``source`` to ``target`` with its evidence:
        typed relations where they exist, co-mentions elsewhere; either end by any alias.

        No path within ``max_hops`` is a NotFoundError, like an unknown name: either way there
        is nothing to show, and the message says which.
        """
        source, target = check_name(source, "from"), check_name(target, "to")
        check_range("maxHops", max_hops, 1, MAX_PATH_HOPS)
        start = await self._lookup(source, scope, ENTITY_TYPES)
        end = await self._lookup(target, scope, ENTITY_TYPES)
        if start.key == end.key:
            return EntityPath(entities=[start], steps=[])
        found = await self.store.path(
            scope,
            start.key,
            end.key,
            max_hops,
            self.hub_limit,
            self.memories_per_step,
            instant_or_error(as_of),
        )
        if found is None:
            raise NotFoundError(
                f"no path from {start.name!r} to {end.name!r} within {max_hops} "
                f"hop{'s' if max_hops > 1 else ''} in this scope"
            )
        return found

    async def relations(
        self,
        scope: Scope,
        types: list[str] | None = None,
        entity: str | None = None,
        direction: str = "BOTH",
        first: int = 20,
        after: str | None = None,
        as_of: datetime | None = None,
    ) -> RelationPage:
        """Typed relations of the scope, current or as of an instant, one page at a time;
        ``entity`` (any name or alias) keeps those it is the source (OUT) or target (IN) of."""
        check_range("first", first, 1, MAX_RELATIONS_PAGE)
        if direction not in DIRECTIONS:
            raise ValidationError(f"direction must be one of {', '.join(DIRECTIONS)}")
        wanted = check_relation_types(types)
        key = None
        if entity is not None:
            key = (await self._lookup(check_name(entity, "entity"), scope, ENTITY_TYPES)).key
        query = RelationQuery(wanted, key, direction, instant_or_error(as_of))
        return await list_relations(
            self.store.db, scope, query, first, after, MEMORIES_PER_RELATION
        )

    async def _lookup(self, name: str, scope: Scope, types: tuple[str, ...]) -> EntityNode:
        """The entity with this name or alias (``types``: the one asked for, or all)."""
        wanted = list(types) if len(types) == 1 else None
        found = await self.store.find_entity(
            scope, entity_key(scope, name), identity_form(name), wanted
        )
        if found is None:
            kind = f"{types[0]} " if len(types) == 1 else ""
            raise NotFoundError(f"no {kind}entity named {name!r} in this scope")
        return found


def check_name(value: str, field: str) -> str:
    """A name to look up: trimmed, not empty, at most MAX_NAME_CHARS, no control characters."""
    value = value.strip()
    if not value:
        raise ValidationError(f"{field} must not be empty")
    if len(value) > MAX_NAME_CHARS:
        raise ValidationError(f"{field} is longer than {MAX_NAME_CHARS} characters")
    try:
        return clean_text(value)
    except ValueError as e:
        raise ValidationError(f"{field}: {e}") from e


def check_types(entity_type: str | None) -> tuple[str, ...]:
    """The entity types to look a name up under: the one asked for, or all of them."""
    if entity_type is None:
        return ENTITY_TYPES
    wanted = entity_type.strip().upper()
    if wanted not in ENTITY_TYPES:
        raise ValidationError(f"type must be one of {', '.join(ENTITY_TYPES)}; got {entity_type!r}")
    return (wanted,)


def check_relation_types(types: list[str] | None) -> tuple[str, ...]:
    """Relation types to keep (none: all), each one of RelationType."""
    known = {t.value for t in RelationType}
    wanted = tuple(t.strip().upper() for t in types or [])
    unknown = [t for t in wanted if t not in known]
    if unknown:
        raise ValidationError(
            f"unknown relation type {unknown[0]!r}: use {', '.join(sorted(known))}"
        )
    return wanted


def check_range(field: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValidationError(f"{field} must be between {low} and {high}; got {value}")
