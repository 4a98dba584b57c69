"""Inferred preferences, scored: precision and recall of the inferred LIKES on conversations
written for issue 30 (bench/data/inferred_preferences.json), English and Chinese.

Run: ``python -m bench.inferred_preferences [--data FILE] [--out NAME]`` against the Neo4j of
bench.common (or ENGRAM_NEO4J_URI). Each conversation goes into a scope of its own, one add per
day in order; afterwards the scope's current inferred LIKES, as (speaker, thing), are held
against the conversation's list. Precision = right / inferred, recall = right / expected.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from bench.common import bench_settings, ensure_neo4j, write_result
from service.core.domain import Scope
from service.memory import MemoryService
from service.nlp.entities.names import identity_form

DATA = Path(__file__).resolve().parent / "data" / "inferred_preferences.json"
Pair = tuple[str, str]


@dataclass(frozen=True)
class Scored:
    """One conversation: what should be inferred, and what was."""

    id: str
    lang: str
    expected: frozenset[Pair]
    found: frozenset[Pair]


async def run_conversation(mem: MemoryService, conversation: dict[str, Any]) -> Scored:
    scope = Scope(user_id=f"inferred-bench-{conversation['id']}")
    await mem.store.delete_scope(scope)
    messages = [
        {"speaker": who, "content": text, "timestamp": f"{day}T19:{i % 60:02d}:00Z"}
        for i, (day, who, text) in enumerate(conversation["messages"])
    ]
    by_day = sorted(messages, key=lambda m: m["timestamp"][:10])
    for _, day in groupby(by_day, key=lambda m: m["timestamp"][:10]):
        await mem.add(list(day), scope)
    page = await mem.graph.relations(scope, types=["LIKES"], first=100)
    found = {(r.source.name, identity_form(r.target.name)) for r in page.relations if r.inferred}
    expected = {(who, identity_form(thing)) for who, thing in conversation["inferred"]}
    return Scored(conversation["id"], conversation["lang"], frozenset(expected), frozenset(found))


def figures(scored: list[Scored]) -> dict[str, float | int]:
    right = sum(len(s.expected & s.found) for s in scored)
    found = sum(len(s.found) for s in scored)
    expected = sum(len(s.expected) for s in scored)
    return {
        "conversations": len(scored),
        "expected": expected,
        "inferred": found,
        "right": right,
        "precision": round(100 * right / found, 1) if found else 100.0,
        "recall": round(100 * right / expected, 1) if expected else 100.0,
    }


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    mem = await MemoryService.start(settings)
    try:
        scored = [await run_conversation(mem, c) for c in data["conversations"]]
    finally:
        await mem.close()
    result: dict[str, Any] = {
        lang: figures([s for s in scored if s.lang == lang]) for lang in ("en", "zh")
    }
    result["all"] = figures(scored)
    result["misses"] = [
        {"id": s.id, "missing": sorted(s.expected - s.found), "extra": sorted(s.found - s.expected)}
        for s in scored
        if s.expected != s.found
    ]
    for name in ("en", "zh", "all"):
        print(name, result[name])
    for miss in result["misses"]:
        print("  ", miss)
    print("wrote", write_result(args.out, result, "bench.inferred_preferences"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", default="inferred-preferences.json")
    asyncio.run(main(parser.parse_args()))
