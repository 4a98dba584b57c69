"""Entities deleted while an add reads the scope's entities for linking (found by bench.soak).

Neo4j reads at read-committed: a node that a concurrent transaction deletes after the MATCH
found it reads back with null properties. A memory's delete removes the entities no memory
mentions any more, so an add beside it read an entity without a name, and the linker failed
with a TypeError ("Unexpected error" to the client).
"""

from __future__ import annotations

import pytest

from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, churning

pytestmark = pytest.mark.integration

CREATE = """UNWIND range(1, 300) AS i
CREATE (:Entity {key: 'race-' + i, name: 'Name ' + i, type: 'PERSON', type_confidence: 0.5,
                 aliases: [], user_id: 'race', last_seen: datetime()})"""
DELETE = "MATCH (e:Entity {user_id: 'race'}) DETACH DELETE e"


async def test_entities_deleted_during_the_linker_read_are_left_out(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    async with churning(neo4j_target, CREATE, DELETE):
        for _ in range(400):
            known = await mem.store.link_entities(Scope(user_id="race"))
            assert all(isinstance(k.name, str) and isinstance(k.type, str) for k in known)
