"""Searches while memories are deleted (found by bench.soak).

Neo4j reads at read-committed: a memory that a concurrent transaction deletes after the search
found it in the full-text index loads as an empty map. The search failed with a validation
error ("Unexpected error" to the client) instead of leaving the gone memory out.
"""

from __future__ import annotations

import pytest

from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, churning

pytestmark = pytest.mark.integration

SCOPE = Scope(user_id="searcher")
# Copies of the scope's one memory, with its labels (its index partition) and properties.
CLONE = """MATCH (m:Memory {user_id: 'searcher'}) WHERE NOT m.id STARTS WITH 'copy-'
UNWIND range(1, 300) AS i
CREATE (c:Memory)
SET c = m {.*, id: 'copy-' + i}
SET c:$(labels(m))"""
DELETE = "MATCH (c:Memory) WHERE c.id STARTS WITH 'copy-' DETACH DELETE c"


async def test_memories_deleted_during_a_search_are_left_out(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    text = "Ana keeps bees on the roof of the library."
    await mem.add([{"content": text}], SCOPE, infer=False)
    async with churning(neo4j_target, CLONE, DELETE):
        for _ in range(150):
            hits = await mem.search("bees on the library roof", SCOPE)
            assert all(hit.memory.text == text for hit in hits)
