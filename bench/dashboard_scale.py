"""The dashboard's queries on one scope of many memories: is the page usable at 100k?

    ENGRAM_NEO4J_URI=bolt://127.0.0.1:7801 .venv/bin/python -m bench.dashboard_scale

Memories, entities, mentions and typed relations are written straight into Neo4j (no NLP, no
embeddings: search is measured by bench.scale), once per size; the run then times, through the
GraphQL schema in-process, each query the dashboard sends when a person opens a scope, lists a
timeline bucket, pages through memories, expands a hub entity and asks for a path.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.common import bench_settings, ensure_neo4j, summary_ms, write_result
from neo4j import AsyncGraphDatabase
from service.api.context import RequestContext
from service.api.schema import schema
from service.core.auth import Principal
from service.core.config import Settings
from service.memory import MemoryService

USER = "dashboard-scale"
START = "2025-01-01T00:00:00Z"
SEED = [
    """MATCH (n {user_id: $user}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS""",
    """UNWIND range(0, $entities - 1) AS i
    CREATE (:Entity {key: $user + '|e' + i, name: 'Entity ' + i, user_id: $user,
      type: ['PERSON', 'ORG', 'PLACE'][i % 3], aliases: ['Entity ' + i],
      alias_keys: ['entity ' + i],
      first_seen: datetime($start), last_seen: datetime($start)})""",
    """UNWIND range(0, $memories - 1) AS i
    CALL (i) {
      WITH i, datetime($start) + duration({minutes: 5 * i}) AS said
      CREATE (m:Memory {id: 'dash-' + i, user_id: $user, text: 'Synthetic fact ' + i,
        speaker: ['Alice', 'Bob'][i % 2], said_at: said, created_at: said,
        happened_start: said, happened_end: said, confidence: 1.0, lang: 'en',
        source_ids: []})
      WITH m, i
      MATCH (a:Entity {key: $user + '|e' + (i % $entities)})
      MATCH (b:Entity {key: $user + '|e' + ((i * 7 + 1) % $entities)})
      CREATE (m)-[:MENTIONS {start: 0, end: 1, role: 'object'}]->(a)
      CREATE (m)-[:MENTIONS {start: 0, end: 1, role: 'object'}]->(b)
    } IN TRANSACTIONS OF 10000 ROWS""",
    """UNWIND range(0, $entities - 2) AS i
    MATCH (s:Entity {key: $user + '|e' + i}), (t:Entity {key: $user + '|e' + (i + 1)})
    MATCH (m:Memory {id: 'dash-' + i})
    CREATE (s)-[:WORKS_AT {memory_id: m.id, since: m.said_at, confidence: 1.0}]->(t)""",
]
SCOPE = {"userId": USER}
FEBRUARY = {"gte": "2025-02-01T00:00:00Z", "lt": "2025-03-01T00:00:00Z"}
MEMORY = "id text speaker saidAt validFrom invalidatedAt supersededBy { id text }"
PROBES: dict[str, tuple[str, dict[str, Any]]] = {
    "open: scopes + viewer": ("{ viewer { principal } scopes { userId memories } }", {}),
    "open: stats + type counts": (
        """query($s: ScopeInput!) { stats(scope: $s) { memories currentMemories messages
        entities firstSaidAt lastSaidAt } entityTypeCounts(scope: $s) { type count } }""",
        {"s": SCOPE},
    ),
    "timeline: month, said": (
        "query($s: ScopeInput!) { timeline(scope: $s, bucket: MONTH) { bucketStart count } }",
        {"s": SCOPE},
    ),
    "timeline: day, happened": (
        """query($s: ScopeInput!) { timeline(scope: $s, bucket: DAY, clock: HAPPENED) {
        bucketStart count } }""",
        {"s": SCOPE},
    ),
    "memories: first page": (
        f"""query($s: ScopeInput!) {{ memories(scope: $s, sort: [{{saidAt: DESC}}]) {{
        ... on MemoryConnection {{ totalCount edges {{ node {{ {MEMORY} }} }} }} }} }}""",
        {"s": SCOPE},
    ),
    "memories: a month's bucket": (
        f"""query($s: ScopeInput!, $w: MemoryWhereInput) {{ memories(scope: $s, where: $w,
        sort: [{{saidAt: DESC}}]) {{ ... on MemoryConnection {{ totalCount
        edges {{ node {{ {MEMORY} }} }} }} }} }}""",
        {"s": SCOPE, "w": {"happenedStart": FEBRUARY}},
    ),
    "entities: first page": (
        """query($s: ScopeInput!) { entities(scope: $s, sort: [{mentionCount: DESC}]) {
        ... on EntityConnection { totalCount edges { node { name type mentionCount } } } } }""",
        {"s": SCOPE},
    ),
    "entity: expand a hub": (
        """query($s: ScopeInput!) { entity(name: "Entity 1", scope: $s) { __typename ... on Entity {
        name memories(limit: 10) { id text } neighbors(hops: 1, limit: 12) {
        entity { name } support relations } relations(first: 50) { type
        source { name } target { name } memories { id } } } } }""",
        {"s": SCOPE},
    ),
    "profile: a hub entity": (
        """query($s: ScopeInput!) { profile(scope: $s, entity: "Entity 1") { __typename
        ... on Profile { groups { kind facts { value since evidence { id } } } } } }""",
        {"s": SCOPE},
    ),
    "changes: the timeline's (whole scope)": (
        """query($s: ScopeInput!) { changes(scope: $s, limit: 200) { __typename
        ... on ChangeList { truncated changes { type kind at summary } } } }""",
        {"s": SCOPE},
    ),
    "changes: one month, by phrase": (
        """query($s: ScopeInput!) { changes(scope: $s, phrase: "February 2025") { __typename
        ... on ChangeList { changes { summary before { value } after { value } } } } }""",
        {"s": SCOPE},
    ),
    "path: 3 hops": (
        """query($s: ScopeInput!) { path(from: "Entity 1", to: "Entity 4", scope: $s,
        maxHops: 3) { __typename ... on EntityPath { steps { kind memories { id } } } } }""",
        {"s": SCOPE},
    ),
}


async def seed(settings: Settings, memories: int, entities: int) -> None:
    """The synthetic scope anew: `memories` memories over `entities` entities (0: removed)."""
    params = {"user": USER, "memories": memories, "entities": entities, "start": START}
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None
    uri = settings.neo4j_uri or settings.bolt_uri
    async with AsyncGraphDatabase.driver(uri, auth=auth) as driver:
        for statement in SEED if memories else SEED[:1]:
            async with driver.session(database=settings.neo4j_database) as session:
                await (await session.run(statement, params)).consume()


async def measure(memory: MemoryService, repeats: int) -> dict[str, dict[str, float]]:
    timings: dict[str, dict[str, float]] = {}
    for name, (query, variables) in PROBES.items():
        elapsed = []
        for _ in range(repeats + 1):  # the first run plans the query: left out
            start = time.perf_counter()
            # A context per request, as the app makes one (its loaders live that long).
            context = RequestContext(memory, Principal.unrestricted("bench"))
            result = await schema.execute(query, variable_values=variables, context_value=context)
            elapsed.append((time.perf_counter() - start) * 1000)
            assert result.errors is None, (name, result.errors)
            assert "NotFound" not in str(result.data), (name, result.data)
        timings[name] = summary_ms(elapsed[1:])
    return timings


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--entities", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    settings = bench_settings()
    ensure_neo4j(settings)
    memory = await MemoryService.start(settings)
    try:
        started = time.perf_counter()
        await seed(settings, args.memories, args.entities)
        seeded_s = round(time.perf_counter() - started, 1)
        timings = await measure(memory, args.repeats)
    finally:
        await seed(settings, 0, 0)
        await memory.close()
    table = Table(title=f"dashboard queries, one scope of {args.memories:,} memories")
    for column in ("query", "p50 ms", "p95 ms"):
        table.add_column(column)
    for name, t in timings.items():
        table.add_row(name, str(t["p50"]), str(t["p95"]))
    Console().print(table)
    payload = {
        "memories": args.memories,
        "entities": args.entities,
        "seed_s": seeded_s,
        "timings_ms": timings,
    }
    print(write_result("dashboard_scale.json", payload, "bench.dashboard_scale"))


if __name__ == "__main__":
    asyncio.run(main())
