"""Changes of mind and inferred preferences against a real Neo4j, read through GraphQL: the
pairs of tests/data/changes_of_mind.jsonl retire what they should and nothing else; search
ranks the current fact first and asOf before the change gives the old one; a thing done on
enough days is an inferred LIKES until a contrary statement, or decay, retires it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.api.schema import schema
from service.core.domain import Scope
from service.memory import MemoryService
from service.nlp.entities.names import identity_form
from tests.conftest import Neo4jTarget, run_cypher
from tests.graphql_calls import graphql_caller

PAIRS_PATH = Path(__file__).resolve().parents[1] / "data" / "changes_of_mind.jsonl"
PAIRS = [json.loads(line) for line in PAIRS_PATH.read_text(encoding="utf-8").splitlines()]
BEFORE, AFTER = "2026-09-10T09:00:00Z", "2026-12-10T09:00:00Z"
BETWEEN = "2026-10-01T00:00:00Z"

RELATIONS = """query($s: ScopeInput!, $who: String!, $asOf: DateTime) {
  relations(scope: $s, where: {entity: $who, direction: OUT, types: ["LIKES", "USES", "DOES"]},
            first: 100, asOf: $asOf) {
    __typename ... on RelationConnection { edges { node { type target { name } inferred
      confidence evidence { id } memories { id } } } } } }"""
SEARCH = """query($q: String!, $s: ScopeInput!, $asOf: DateTime) {
  search(query: $q, scope: $s, limit: 10, asOf: $asOf) {
    __typename ... on SearchHits { hits { memory { id sourceText invalidatedAt } } } } }"""


gql = graphql_caller(schema)


async def held(mem: MemoryService, scope: Scope, who: str, as_of: str | None = None) -> set[str]:
    """What ``who`` likes, uses or does, as GraphQL's relations say."""
    data = await gql(mem, RELATIONS, s={"userId": scope.user_id}, who=who, asOf=as_of)
    found = data["relations"]
    if found["__typename"] == "NotFound":
        return set()
    return {identity_form(e["node"]["target"]["name"]) for e in found["edges"]}


async def search(mem: MemoryService, scope: Scope, q: str, as_of: str | None = None) -> list[str]:
    data = await gql(mem, SEARCH, q=q, s={"userId": scope.user_id}, asOf=as_of)
    return [h["memory"]["sourceText"] for h in data["search"]["hits"]]


def said(pairs: list[dict[str, Any]], key: str, at: str) -> list[dict[str, str]]:
    return [{"speaker": p["speaker"], "content": p[key], "timestamp": at} for p in pairs]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_each_pair_retires_what_it_says_and_nothing_else(
    mem: MemoryService, neo4j_target: Neo4jTarget, lang: str
) -> None:
    pairs = [p for p in PAIRS if p["lang"] == lang]
    scope = Scope(user_id=f"changes-{lang}")
    first = await mem.add(said(pairs, "before", BEFORE), scope)
    second = await mem.add(said(pairs, "after", AFTER), scope)
    assert len(second.added) >= sum(1 for p in pairs if p["form"])  # never folded in
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {user_id: $u}) WHERE m.id IN $ids "
        "RETURN m.speaker AS speaker, m.invalidated_at IS NOT NULL AS retired",
        u=scope.user_id,
        ids=first.added,
    )
    retired = {str(r["speaker"]) for r in rows if r["retired"]}
    assert set(second.superseded) <= set(first.added)
    for pair in pairs:
        who = pair["speaker"]
        now, before = await held(mem, scope, who), await held(mem, scope, who, BETWEEN)
        gone = {identity_form(name) for name in pair["retired"]}
        new = {identity_form(name) for name in pair["adopted"]}
        assert gone <= before and not gone & now, pair["id"]
        assert new <= now and not new & before, pair["id"]
        assert (who in retired) == bool(pair["form"]), pair["id"]


@pytest.mark.parametrize(
    ("speaker", "before", "after", "question"),
    [
        (
            "小李",
            "我以前很喜欢喝咖啡，每天两杯。",
            "我现在不喝咖啡了，改喝绿茶。",
            "小李喜欢喝什么？",
        ),
        (
            "Pia",
            "I love coffee, three cups a day at least.",
            "I'm off coffee, it's green tea for me now",
            "What does Pia like to drink?",
        ),
    ],
)
async def test_the_present_ranks_the_current_fact_first_and_as_of_the_old_one(
    mem: MemoryService, speaker: str, before: str, after: str, question: str
) -> None:
    scope = Scope(user_id="changes-ranking")
    await mem.add([{"speaker": speaker, "content": before, "timestamp": BEFORE}], scope)
    await mem.add([{"speaker": speaker, "content": after, "timestamp": AFTER}], scope)
    now = await search(mem, scope, question)
    assert now[0] == after and before not in now
    then = await search(mem, scope, question, as_of=BETWEEN)
    assert then[0] == before and after not in then


def days_ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


def climbs(who: str, friend: str, ages: list[float]) -> list[dict[str, str]]:
    """``who`` climbing on days this many days ago (texts of their own: a text said by two
    speakers without a pronoun would be one memory)."""
    texts = [
        f"Went climbing at the crag with {friend}.",
        f"I went climbing again after work with {friend}, my forearms are done.",
        f"Climbed for two hours tonight with {friend}, and sent the blue route.",
        f"I went climbing this morning before the rain, {friend} belayed.",
    ]
    return [
        {"speaker": who, "content": text, "timestamp": days_ago(age)}
        for text, age in zip(texts, ages, strict=False)
    ]


async def inferred(mem: MemoryService, scope: Scope, who: str) -> dict[str, dict[str, Any]]:
    data = await gql(mem, RELATIONS, s={"userId": scope.user_id}, who=who, asOf=None)
    edges = data["relations"].get("edges", [])
    return {
        identity_form(e["node"]["target"]["name"]): e["node"]
        for e in edges
        if e["node"]["type"] == "LIKES"
    }


async def test_a_thing_done_on_enough_days_is_an_inferred_like_until_said_otherwise(
    mem: MemoryService,
) -> None:
    scope = Scope(user_id="inferred-climbing")
    weekly = [56.0, 42.0, 28.0, 14.0]
    stated = [{"speaker": "Di", "content": "I love climbing.", "timestamp": days_ago(60)}]
    batches = [
        climbs("Ana", "Theo", weekly) + climbs("Ben", "Uma", weekly[:2]),
        climbs("Cy", "Vic", [3.0, 3.0, 3.0, 3.0]),
        stated + climbs("Di", "Wes", weekly),
    ]
    for batch in batches:
        await mem.add(batch, scope)
    ana = await inferred(mem, scope, "Ana")
    assert ana["climbing"]["inferred"] and len(ana["climbing"]["evidence"]) == 4
    assert 0.3 < ana["climbing"]["confidence"] < 0.8
    assert "climbing" not in await inferred(mem, scope, "Ben")  # two days only
    assert "climbing" not in await inferred(mem, scope, "Cy")  # four times, one day
    di = await inferred(mem, scope, "Di")
    assert not di["climbing"]["inferred"] and not di["climbing"]["evidence"]  # stated, not inferred
    # A contrary statement retires it; the things done stay, and asOf still shows it.
    quit_at = days_ago(1)
    await mem.add([{"speaker": "Ana", "content": "I quit climbing.", "timestamp": quit_at}], scope)
    assert "climbing" not in await inferred(mem, scope, "Ana")
    data = await gql(mem, RELATIONS, s={"userId": scope.user_id}, who="Ana", asOf=days_ago(2))
    assert any(e["node"]["inferred"] for e in data["relations"]["edges"])


async def test_an_inferred_like_fades_when_the_evidence_stops(mem: MemoryService) -> None:
    scope = Scope(user_id="inferred-fading")
    old = climbs("Ana", "Theo", [400.0, 409.0, 418.0, 427.0])
    await mem.add(old + climbs("Ben", "Uma", [2.0, 11.0, 20.0, 29.0]), scope)
    before = await inferred(mem, scope, "Ben")
    assert "climbing" in await inferred(mem, scope, "Ana")
    dry = await mem.lifecycle.decay(scope, half_life_days=30, dry_run=True)
    assert (dry.preferences_faded, dry.preferences_retired) == (2, 1)
    assert "climbing" in await inferred(mem, scope, "Ana")  # a dry run changes nothing
    done = await mem.lifecycle.decay(scope, half_life_days=30, dry_run=False)
    assert (done.preferences_faded, done.preferences_retired) == (2, 1)
    assert "climbing" not in await inferred(mem, scope, "Ana")
    after = (await inferred(mem, scope, "Ben"))["climbing"]
    assert 0 < after["confidence"] < before["climbing"]["confidence"]
