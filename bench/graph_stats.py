"""The entity graph's statistics over scopes a benchmark ingested (by default LoCoMo's).

Run after `python -m bench.locomo …` (same settings, so the same bench Neo4j):
``python -m bench.graph_stats [--prefix locomo-] [--out FILE]``. Per scope and overall:

- memories_with_entity: % of memories that MENTION at least one entity;
- entities_mentioned_once: % of entities with exactly one MENTIONS edge;
- split_names: names (case, spacing, possessive folded) held by more than one entity node of
  one scope;
- junk: entities named like an interjection, greeting or filler of the fixed list below. The
  list is this script's own (a measuring stick), independent of
  nlp_models/stop_entities.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import unicodedata
from collections import Counter
from typing import Any

from bench.common import bench_settings, ensure_neo4j, write_result
from neo4j import AsyncGraphDatabase

JUNK = frozenset(
    [
        "wow",
        "woohoo",
        "awesome",
        "congrats",
        "congratulations",
        "yeah",
        "yep",
        "yup",
        "nope",
        "yay",
        "hey",
        "hi",
        "hello",
        "thanks",
        "haha",
        "hahaha",
        "lol",
        "omg",
        "cool",
        "nice",
        "great",
        "ok",
        "okay",
        "oh",
        "ah",
        "aw",
        "kinda",
        "sorta",
        "felt",
        "k",
        "fri",
        "sat",
        "sun",
        "mon",
        "tue",
        "wed",
        "thu",
        "um",
        "hmm",
        "whoa",
        "dude",
        "bye",
        "gosh",
        "ugh",
        "sure",
        "totally",
    ]
)
STATS = """
MATCH (m:Memory) WHERE m.user_id STARTS WITH $prefix
WITH m.user_id AS scope, count(m) AS memories,
     count(CASE WHEN EXISTS { (m)-[:MENTIONS]->(:Entity) } THEN 1 END) AS linked
CALL (scope) {
  MATCH (e:Entity {user_id: scope})
  RETURN collect({name: e.name, type: e.type,
                  mentions: COUNT { (e)<-[:MENTIONS]-() }}) AS entities
}
RETURN scope, memories, linked, entities ORDER BY scope
"""


def fold(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold()
    text = re.sub(r"[’']s\b", "", text)
    return " ".join(re.sub(r"[^\w\s+#]", " ", text).split())


def scope_stats(memories: int, linked: int, entities: list[dict[str, Any]]) -> dict[str, Any]:
    names = Counter(fold(e["name"]) for e in entities)
    once = sum(1 for e in entities if e["mentions"] == 1)
    junk = sorted({e["name"] for e in entities if fold(e["name"]) in JUNK})
    return {
        "memories": memories,
        "entities": len(entities),
        "memories_with_entity": round(100 * linked / max(memories, 1), 1),
        "entities_mentioned_once": round(100 * once / max(len(entities), 1), 1),
        "split_names": sum(1 for n in names.values() if n > 1),
        "junk": len(junk),
        "junk_names": junk,
    }


async def collect(prefix: str) -> dict[str, Any]:
    settings = bench_settings()
    ensure_neo4j(settings)
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None
    uri = settings.neo4j_uri or settings.bolt_uri
    async with AsyncGraphDatabase.driver(uri, auth=auth) as driver:
        records, _, _ = await driver.execute_query(STATS, {"prefix": prefix})
    rows = [r.data() for r in records]
    scopes = {r["scope"]: scope_stats(r["memories"], r["linked"], r["entities"]) for r in rows}
    total = scope_stats(
        sum(r["memories"] for r in rows),
        sum(r["linked"] for r in rows),
        [e for r in rows for e in r["entities"]],
    )
    # A name split across nodes is counted inside its scope (scopes never share nodes).
    total["split_names"] = sum(s["split_names"] for s in scopes.values())
    return {"overall": total, "scopes": scopes}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.graph_stats", description=__doc__)
    parser.add_argument("--prefix", default="locomo-", help="user ids of the scopes to read")
    parser.add_argument("--out", default="graph-stats.json", help="file under bench/results")
    args = parser.parse_args(argv)
    result = asyncio.run(collect(args.prefix))
    overall = {k: v for k, v in result["overall"].items() if k != "junk_names"}
    print("overall", overall, "junk:", result["overall"]["junk_names"][:20])
    print("wrote", write_result(args.out, result, "bench.graph_stats"))


if __name__ == "__main__":
    main()
