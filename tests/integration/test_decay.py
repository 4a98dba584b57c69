"""Forgetting by disuse against a real Neo4j: the write path's minimum confidence, decay as an
explicit operation (dry run, floor, the access clock, DECAY events), then eviction of what has
faded; in Python and over GraphQL."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import strawberry

from service.api.context import RequestContext
from service.api.lifecycle import LifecycleMutation, LifecycleQuery
from service.core.auth import Principal
from service.core.domain import Scope
from service.core.errors import ValidationError
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher

ANNA = Scope(user_id="decay-a")
BORIS = Scope(user_id="decay-b")
STATEMENT_CONFIDENCE = 0.9  # what the extractor gives a statement; a question gets 0.6
schema = strawberry.Schema(query=LifecycleQuery, mutation=LifecycleMutation)


def said(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()


def conversation(*texts_and_ages: tuple[str, float]) -> list[dict[str, str]]:
    return [
        {"speaker": "Anna", "content": text, "timestamp": said(age)} for text, age in texts_and_ages
    ]


PIANO = "I bought a second-hand piano for my apartment."
MONET = "My favourite painter is Claude Monet."
MARATHON = "I am training for the Berlin marathon this autumn."
SHOES = "Should I switch my running shoes to a lighter pair?"


async def confidences(target: Neo4jTarget, scope: Scope) -> dict[str, float]:
    """Each memory's confidence by a word of its text (the tests' own look at the database)."""
    rows = await run_cypher(
        target,
        "MATCH (m:Memory {user_id: $u}) RETURN m.text AS text, m.confidence AS confidence",
        u=scope.user_id,
    )
    keys = ("piano", "Monet", "marathon", "shoes")
    return {
        next(k for k in keys if k in str(r["text"])): float(r["confidence"])  # type: ignore[arg-type]
        for r in rows
    }


async def memory_id(target: Neo4jTarget, scope: Scope, word: str) -> str:
    rows = await run_cypher(
        target,
        "MATCH (m:Memory {user_id: $u}) WHERE m.text CONTAINS $w RETURN m.id AS id",
        u=scope.user_id,
        w=word,
    )
    [row] = rows
    return str(row["id"])


async def decay_events(target: Neo4jTarget, scope: Scope) -> list[dict[str, Any]]:
    return await run_cypher(
        target,
        "MATCH (e:MemoryEvent {op: 'DECAY', user_id: $u}) RETURN e.memory_id AS memory_id, "
        "e.actor AS actor, e.old_confidence AS old, e.new_confidence AS new",
        u=scope.user_id,
    )


async def gql(mem: MemoryService, query: str, **variables: Any) -> Any:
    context = RequestContext(mem, Principal.unrestricted("ops"))
    result = await schema.execute(query, variable_values=variables, context_value=context)
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data


# --- minimum confidence on the write path -----------------------------------------------------


async def test_facts_below_the_minimum_confidence_are_not_stored_but_their_message_is(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    strict = replace(mem, settings=mem.settings.model_copy(update={"memory_min_confidence": 0.7}))
    messages = conversation((PIANO, 3), (SHOES, 2))

    result = await strict.add(messages, ANNA)

    assert len(result.added) == 1 and result.below_confidence == 1
    assert await confidences(neo4j_target, ANNA) == {"piano": STATEMENT_CONFIDENCE}
    stored = await run_cypher(
        neo4j_target, "MATCH (m:Message {user_id: $u}) RETURN m.text AS text", u=ANNA.user_id
    )
    assert sorted(str(r["text"]) for r in stored) == sorted([PIANO, SHOES])
    # The default (0.0) keeps both facts; a caller's own memory is never dropped.
    kept = await mem.add(messages, BORIS)
    assert len(kept.added) == 2 and kept.below_confidence == 0
    own = await replace(
        strict, settings=mem.settings.model_copy(update={"memory_min_confidence": 1.0})
    ).add([{"content": SHOES}], Scope(user_id="decay-c"), infer=False)
    assert len(own.added) == 1 and own.below_confidence == 0


# --- decay --------------------------------------------------------------------------------------


async def test_a_dry_run_changes_nothing_and_counts_what_the_real_run_changes(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(conversation((PIANO, 2000), (MONET, 400), (MARATHON, 1)), ANNA)
    await mem.add(conversation((PIANO, 2000)), BORIS)
    before, boris = await confidences(neo4j_target, ANNA), await confidences(neo4j_target, BORIS)
    life = mem.lifecycle

    dry = await life.decay(ANNA, half_life_days=30, dry_run=True)

    assert dry.dry_run and dry.changed == 3
    assert await confidences(neo4j_target, ANNA) == before
    assert await decay_events(neo4j_target, ANNA) == []
    expected_lowest = STATEMENT_CONFIDENCE * 0.5 ** (2000 / 30)
    assert dry.lowest_confidence == pytest.approx(expected_lowest, rel=1e-3)

    real = await life.decay(ANNA, half_life_days=30, dry_run=False, actor="ops")

    assert not real.dry_run and real.changed == dry.changed
    assert real.lowest_confidence == pytest.approx(expected_lowest, rel=1e-3)
    after = await confidences(neo4j_target, ANNA)
    assert after["piano"] == pytest.approx(expected_lowest, rel=1e-3)
    assert after["Monet"] == pytest.approx(STATEMENT_CONFIDENCE * 0.5 ** (400 / 30), rel=1e-3)
    assert after["marathon"] == pytest.approx(STATEMENT_CONFIDENCE * 0.5 ** (1 / 30), rel=1e-3)
    events = await decay_events(neo4j_target, ANNA)
    assert len(events) == real.changed and {e["actor"] for e in events} == {"ops"}
    assert all(e["old"] == STATEMENT_CONFIDENCE and e["new"] < e["old"] for e in events)
    history = await life.history(await memory_id(neo4j_target, ANNA, "piano"), ANNA)
    assert [e.op for e in history] == ["ADD", "DECAY"]
    assert history[-1].new_confidence == pytest.approx(after["piano"])
    assert await confidences(neo4j_target, BORIS) == boris  # another scope is not touched


async def test_an_old_untouched_memory_decays_more_than_a_recently_read_one(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(conversation((PIANO, 10), (MONET, 10)), ANNA)
    life = mem.lifecycle
    await life.get(await memory_id(neo4j_target, ANNA, "Monet"), ANNA)  # read now: clock restarts

    report = await life.decay(ANNA, half_life_days=10, dry_run=False)

    after = await confidences(neo4j_target, ANNA)
    assert after["piano"] == pytest.approx(STATEMENT_CONFIDENCE / 2, abs=0.01)
    assert after["Monet"] > 0.89 and report.changed in (1, 2)
    # A second run charges only the time since the first: no day is counted twice.
    await life.decay(ANNA, half_life_days=10, dry_run=False)
    assert (await confidences(neo4j_target, ANNA))["piano"] == pytest.approx(after["piano"], 1e-3)


async def test_decay_never_goes_below_the_floor_nor_raises_what_is_under_it(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(conversation((PIANO, 2000), (MONET, 2000), (SHOES, 2000)), ANNA)
    life = mem.lifecycle

    report = await life.decay(ANNA, half_life_days=1, floor=0.7, dry_run=False)

    assert report.changed == 2 and report.lowest_confidence == 0.7
    assert await confidences(neo4j_target, ANNA) == {"piano": 0.7, "Monet": 0.7, "shoes": 0.6}
    again = await life.decay(ANNA, half_life_days=1, floor=0.7, dry_run=False)
    assert again.changed == 0 and again.lowest_confidence is None
    assert len(await decay_events(neo4j_target, ANNA)) == 2


async def test_evicting_by_confidence_after_decay_removes_the_faded_memories_only(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(conversation((PIANO, 900), (MONET, 700), (MARATHON, 2)), ANNA)
    life = mem.lifecycle
    piano, monet = [await memory_id(neo4j_target, ANNA, w) for w in ("piano", "Monet")]
    marathon = await memory_id(neo4j_target, ANNA, "marathon")
    assert (await life.evict(ANNA, min_confidence=0.5, dry_run=True)).memory_ids == []

    await life.decay(ANNA, half_life_days=90, floor=0.05, dry_run=False)
    evicted = await life.evict(ANNA, min_confidence=0.5, dry_run=False)

    assert evicted.memory_ids == sorted([piano, monet])
    remaining = await life.get_all(ANNA)
    assert [e.node.id for e in remaining.edges] == [marathon]
    assert [e.op for e in await life.history(piano, ANNA)] == ["ADD", "DECAY", "DELETE"]


@pytest.mark.parametrize(
    ("half_life", "floor", "complaint"),
    [
        (0, 0.0, "halfLifeDays"),
        (-3, 0.0, "halfLifeDays"),
        (math.inf, 0.0, "halfLifeDays"),
        (30, 1.5, "floor"),
        (30, -0.1, "floor"),
        (30, math.nan, "floor"),
    ],
)
async def test_bad_decay_arguments_are_refused_before_anything_changes(
    mem: MemoryService, neo4j_target: Neo4jTarget, half_life: float, floor: float, complaint: str
) -> None:
    await mem.add(conversation((PIANO, 100)), ANNA)
    with pytest.raises(ValidationError, match=complaint):
        await mem.lifecycle.decay(ANNA, half_life_days=half_life, floor=floor, dry_run=False)
    assert await confidences(neo4j_target, ANNA) == {"piano": STATEMENT_CONFIDENCE}


DECAY = """
mutation($s: ScopeInput!, $h: Float!, $f: Float!, $dry: Boolean!) {
  decay(scope: $s, halfLifeDays: $h, floor: $f, dryRun: $dry) {
    __typename
    ... on DecayReport { dryRun changed lowestConfidence halfLifeDays floor }
    ... on InvalidInput { message }
  }
}"""
HISTORY = """
query($id: ID!, $s: ScopeInput!) {
  history(memoryId: $id, scope: $s) {
    ... on MemoryHistory { events { op actor oldConfidence newConfidence } }
  }
}"""


async def test_decay_over_graphql_with_typed_errors(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(conversation((PIANO, 60)), ANNA)
    anna = {"userId": ANNA.user_id}

    bad = (await gql(mem, DECAY, s=anna, h=0.0, f=0.0, dry=False))["decay"]
    worse = (await gql(mem, DECAY, s=anna, h=30.0, f=2.0, dry=False))["decay"]
    dry = (await gql(mem, DECAY, s=anna, h=30.0, f=0.1, dry=True))["decay"]
    real = (await gql(mem, DECAY, s=anna, h=30.0, f=0.1, dry=False))["decay"]

    assert bad["__typename"] == "InvalidInput" and "halfLifeDays" in bad["message"]
    assert worse["__typename"] == "InvalidInput" and "floor" in worse["message"]
    assert dry["dryRun"] is True and real["dryRun"] is False
    assert dry["changed"] == real["changed"] == 1
    assert dry["lowestConfidence"] == pytest.approx(real["lowestConfidence"], rel=1e-3)
    assert real["lowestConfidence"] == pytest.approx(STATEMENT_CONFIDENCE / 4, rel=1e-3)
    assert (real["halfLifeDays"], real["floor"]) == (30.0, 0.1)
    piano = await memory_id(neo4j_target, ANNA, "piano")
    events = (await gql(mem, HISTORY, id=piano, s=anna))["history"]["events"]
    assert [e["op"] for e in events] == ["ADD", "DECAY"]
    assert events[-1]["actor"] == "ops" and events[-1]["oldConfidence"] == STATEMENT_CONFIDENCE
