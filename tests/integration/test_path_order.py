"""Which of several equally short paths `path` answers, against a real Neo4j: the one with the
most typed steps, then the most supporting memories, then its entities' names in order; and
the same one every time. A tie needs an exact graph, which the extractor does not promise, so
these graphs are written directly, in the shape the write path gives them (docs/graph.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from service.core.domain import Scope
from service.memory import MemoryService
from service.nlp.entities.names import entity_key, identity_form
from service.retrieval.traversal import EntityPath, GraphTraversal
from tests.conftest import Neo4jTarget, run_cypher

SCOPE = Scope(user_id="ties")
# Each memory mentions the entities it names and supports the relations it states.
SEED = """
UNWIND $memories AS said
CREATE (m:Memory {id: said.id, text: said.text, user_id: $user_id, speaker: 'Ana',
                  said_at: datetime(said.at), created_at: datetime(said.at)})
WITH m, said
UNWIND said.names AS name
MERGE (e:Entity {key: name.key})
  ON CREATE SET e.name = name.name, e.type = 'OTHER', e.user_id = $user_id,
                e.aliases = [name.name], e.alias_keys = [name.form]
CREATE (m)-[:MENTIONS {link: 'name', extractor: 'test'}]->(e)
WITH DISTINCT m, said
UNWIND said.relations AS rel
MATCH (s:Entity {key: rel.source}), (t:Entity {key: rel.target})
CREATE (s)-[:$(rel.type) {memory_id: m.id, confidence: 0.9, extractor: 'test',
                          since: m.said_at, valid_from: m.said_at}]->(t)
"""


@dataclass(frozen=True)
class Said:
    """A memory: its text, the entities it names, and a typed relation it states, if any."""

    text: str
    names: tuple[str, str]
    relation: str | None = None  # from names[0] to names[1]


Seeder = Callable[..., Awaitable[GraphTraversal]]


@pytest.fixture
def seeded(mem: MemoryService, neo4j_target: Neo4jTarget) -> Seeder:
    """Writes the memories (said a second apart, in order) and returns a traversal over them."""

    async def write(*memories: Said) -> GraphTraversal:
        rows = [
            {
                "id": f"m{i}",
                "text": said.text,
                "at": f"2026-01-01T09:00:{i:02d}Z",
                "names": [
                    {"key": entity_key(SCOPE, n), "name": n, "form": identity_form(n)}
                    for n in said.names
                ],
                "relations": [
                    {
                        "source": entity_key(SCOPE, said.names[0]),
                        "type": said.relation,
                        "target": entity_key(SCOPE, said.names[1]),
                    }
                ]
                if said.relation
                else [],
            }
            for i, said in enumerate(memories)
        ]
        await run_cypher(neo4j_target, SEED, memories=rows, **SCOPE.params())
        return GraphTraversal(mem.db)

    return write


def steps(path: EntityPath) -> list[tuple[str, str]]:
    """Each step as (the entity it reaches, its kind)."""
    return [(s.to_entity.name, s.kind) for s in path.steps]


async def same_every_time(graph: GraphTraversal, source: str, target: str) -> EntityPath:
    first = await graph.path(source, target, SCOPE, max_hops=4)
    for _ in range(5):
        assert await graph.path(source, target, SCOPE, max_hops=4) == first
    return first


async def test_typed_steps_win_over_support_and_names(seeded: Seeder) -> None:
    # Both chains are 4 relationships long (a co-mention counts two): Aaron's is better
    # supported (4 memories to 3) and first by name, but Bruno's has two typed steps.
    graph = await seeded(
        Said("Ana is friends with Bruno.", ("Ana", "Bruno"), "FRIEND_OF"),
        Said("Bruno works at Acme.", ("Bruno", "Acme"), "WORKS_AT"),
        Said("Acme opened a shop in Lisbon.", ("Acme", "Lisbon")),
        Said("Ana met Aaron at the pottery class.", ("Ana", "Aaron")),
        Said("Aaron cooked dinner for Ana.", ("Aaron", "Ana")),
        Said("Ana and Aaron went hiking.", ("Ana", "Aaron")),
        Said("Aaron flew to Lisbon.", ("Aaron", "Lisbon")),
    )
    path = await same_every_time(graph, "Ana", "Lisbon")
    assert steps(path) == [
        ("Bruno", "FRIEND_OF"),
        ("Acme", "WORKS_AT"),
        ("Lisbon", "MENTIONED_WITH"),
    ]
    assert [[m.text for m in s.memories] for s in path.steps] == [
        ["Ana is friends with Bruno."],
        ["Bruno works at Acme."],
        ["Acme opened a shop in Lisbon."],
    ]


async def test_the_better_supported_of_two_typed_chains_wins(seeded: Seeder) -> None:
    # Name order alone would answer through Acme; Zenith's chain has three memories to two.
    graph = await seeded(
        Said("Ana works at Acme.", ("Ana", "Acme"), "WORKS_AT"),
        Said("Acme is based in Lisbon.", ("Acme", "Lisbon"), "LOCATED_IN"),
        Said("Ana works at Zenith.", ("Ana", "Zenith"), "WORKS_AT"),
        Said("Ana still works at Zenith.", ("Ana", "Zenith"), "WORKS_AT"),
        Said("Zenith is based in Lisbon.", ("Zenith", "Lisbon"), "LOCATED_IN"),
    )
    path = await same_every_time(graph, "Ana", "Lisbon")
    assert steps(path) == [("Zenith", "WORKS_AT"), ("Lisbon", "LOCATED_IN")]
    assert [m.text for m in path.steps[0].memories] == [
        "Ana still works at Zenith.",
        "Ana works at Zenith.",
    ]
    back = await same_every_time(graph, "Lisbon", "Ana")
    assert steps(back) == [("Zenith", "LOCATED_IN"), ("Ana", "WORKS_AT")]
    assert [s.forward for s in back.steps] == [False, False]


async def test_a_full_tie_goes_to_the_first_names(seeded: Seeder) -> None:
    # The 韩雪 → 墨尔本: two chains alike in every count. Names compare by code point
    # (唐 U+5510 before 彭 U+5F6D), not by pinyin; the chain through 彭磊 is written first.
    graph = await seeded(
        Said("韩雪和彭磊是朋友。", ("韩雪", "彭磊"), "FRIEND_OF"),
        Said("彭磊住在墨尔本。", ("彭磊", "墨尔本"), "LIVES_IN"),
        Said("韩雪和唐果是朋友。", ("韩雪", "唐果"), "FRIEND_OF"),
        Said("唐果住在墨尔本。", ("唐果", "墨尔本"), "LIVES_IN"),
    )
    path = await same_every_time(graph, "韩雪", "墨尔本")
    assert steps(path) == [("唐果", "FRIEND_OF"), ("墨尔本", "LIVES_IN")]
    assert [s.forward for s in path.steps] == [True, True]
    back = await same_every_time(graph, "墨尔本", "韩雪")
    assert [e.name for e in back.entities] == ["墨尔本", "唐果", "韩雪"]
