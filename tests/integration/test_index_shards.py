"""Index partitions per user (service/store/index_shards.py) on a real Neo4j."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.core.domain import Scope, SearchOptions
from service.memory import MemoryService
from service.retrieval.query import QueryPlan, plan_query
from service.store.database import Database
from service.store.index_shards import IndexShards, apply_index_shards
from service.store.repository import GraphStore
from service.store.schema import apply_schema
from tests.conftest import Neo4jTarget, churning, run_cypher

DOG_WALKS = "walking the dog in the park"
NO_TIME_FILTER = QueryPlan(text="", lucene=None, window=None, as_of=None).filter_params()


def users_in_distinct_shards(shards: IndexShards, count: int) -> list[str]:
    """``count`` user ids that fall in ``count`` different partitions."""
    found: dict[int, str] = {}
    for i in range(10_000):
        shard = shards.of(f"user-{i}")
        if shard is not None:
            found.setdefault(shard, f"user-{i}")
        if len(found) == count:
            return list(found.values())
    raise AssertionError("no users in enough distinct partitions")


async def shard_labels(target: Neo4jTarget) -> dict[str, set[str]]:
    """Per memory id, its partition labels, read apart from the code under test."""
    rows = await run_cypher(
        target,
        "MATCH (m:Memory) RETURN m.id AS id, "
        "[l IN labels(m) WHERE l STARTS WITH 'MemoryShard_'] AS labels",
    )
    return {str(r["id"]): set(r["labels"]) for r in rows}  # type: ignore[call-overload]


async def memory_owners(target: Neo4jTarget) -> dict[str, str | None]:
    rows = await run_cypher(target, "MATCH (m:Memory) RETURN m.id AS id, m.user_id AS user")
    return {str(r["id"]): r["user"] for r in rows}  # type: ignore[misc]


async def shard_indexes(target: Neo4jTarget) -> dict[str, list[str]]:
    rows = await run_cypher(
        target,
        "SHOW INDEXES YIELD name, labelsOrTypes, properties, state "
        "WHERE (name STARTS WITH 'memory_embedding_shard_' OR name STARTS WITH "
        "'memory_text_shard_') AND state = 'ONLINE' "
        "RETURN name, labelsOrTypes + properties AS target",
    )
    return {str(r["name"]): list(r["target"]) for r in rows}  # type: ignore[call-overload]


async def add_one_each(mem: MemoryService, doing: str, users: int) -> None:
    """One memory for each of person-0 … person-<users - 1>."""
    for i in range(users):
        user = f"person-{i}"
        await mem.add([{"content": f"{user} {doing}."}], Scope(user_id=user), infer=False)


async def assert_labelled_by_owner(mem: MemoryService, target: Neo4jTarget) -> None:
    """Every memory carries exactly its user's partition label (no label without a user)."""
    labels, owners = await shard_labels(target), await memory_owners(target)
    expected = {i: {mem.store.shards.label(user)} - {None} for i, user in owners.items()}
    assert labels == expected


def partition_names(count: int) -> list[str]:
    kinds = ("embedding", "text")
    return sorted(f"memory_{kind}_shard_{i}" for i in range(count) for kind in kinds)


async def test_each_users_memories_share_one_partition_label_with_its_own_indexes(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    users = [f"person-{i}" for i in range(12)]
    for user in users:
        await mem.add(
            [
                {"content": f"{user} keeps bees on the roof."},
                {"content": f"{user} repairs old bicycles."},
            ],
            Scope(user_id=user),
            infer=False,
        )
    await mem.add([{"content": "The agent keeps its own notes."}], Scope(agent_id="a"), infer=False)
    owners = await memory_owners(neo4j_target)
    labels = await shard_labels(neo4j_target)
    by_user: dict[str, set[str]] = {}
    for memory_id, user in owners.items():
        if user is None:
            assert labels[memory_id] == set()  # no user: the global indexes only
            continue
        assert len(labels[memory_id]) == 1
        by_user.setdefault(user, set()).update(labels[memory_id])
    assert set(by_user) == set(users) and all(len(v) == 1 for v in by_user.values())
    used = set().union(*by_user.values())
    assert len(used) > 1  # twelve users do not all hash to one partition of 16
    indexes = await shard_indexes(neo4j_target)
    assert sorted(indexes) == partition_names(mem.settings.index_shards)
    for label in used:
        shard = label.removeprefix("MemoryShard_")
        assert indexes[f"memory_embedding_shard_{shard}"] == [label, "embedding"]
        assert indexes[f"memory_text_shard_{shard}"] == [
            label,
            "text",
            "source_text",
            "context_text",
        ]


async def test_a_user_crowded_out_of_the_global_index_is_ranked_in_its_partition(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    big_id, mid_id = users_in_distinct_shards(mem.store.shards, 2)
    big, mid = Scope(user_id=big_id), Scope(user_id=mid_id)
    await mem.add(
        [
            {"content": f"My dog number {i} loves long walks in the park.", "id": f"b{i}"}
            for i in range(400)
        ],
        big,
        infer=False,
    )
    mine = [f"I walked my dog Rex to the park on day {i}." for i in range(12)]
    await mem.add([{"content": text} for text in mine], mid, infer=False)
    # No exact scan and the usual over-fetch only (30): the global indexes' top 30 hold the
    # big user's walks, the partition's hold mid's own. The words as written: with their
    # other forms ("walked") mid's memories would outrank the big user's on words alone.
    narrow = {
        "exact_scan_max": 0,
        "vector_overfetch": 1,
        "retriever_depth": 5,
        "fulltext_word_forms": False,
    }
    sharded = replace(mem, settings=mem.settings.model_copy(update=narrow))
    embedding = (await mem.embedder.aembed([DOG_WALKS]))[0]
    probe = {**mid.params(), **NO_TIME_FILTER, "embedding": embedding, "fetch_k": 30, "limit": 30}
    global_only = GraphStore(mem.db, IndexShards(0))
    assert len((await global_only.retrieve("vector", probe)).hits) < 10
    lucene = plan_query(DOG_WALKS, SearchOptions(), word_forms=False).lucene
    text = {
        **probe,
        "memory_lucene": lucene,
        "entity_lucene": lucene,
        "text_fetch_k": 30,
        "max_entities": 8,
        "hub_limit": 20,
        "hop_decay": 0.3,
        "preload": 10,
        "relations": {"types": []},
    }
    assert len((await global_only.retrieve_text(text))["fulltext"]) < 10
    ran, retrieve = [], sharded.store.retrieve

    async def recording(name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        ran.append((name, params.get("fetch_k")))
        return await retrieve(name, params)

    monkeypatch.setattr(sharded.store, "retrieve", recording)
    hits = await sharded.search(DOG_WALKS, mid, limit=10)
    assert len(hits) == 10 and {h.memory.text for h in hits} <= set(mine)
    assert all({r.retriever for r in h.retrievers} >= {"vector", "fulltext"} for h in hits)
    assert [k for name, k in ran if name == "vector"] == [30]
    assert "scope_scan" not in {name for name, _ in ran}


async def test_a_new_shard_count_relabels_every_memory_and_drops_the_partitions_it_lacks(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await add_one_each(mem, "plays the cello", 10)
    try:
        for count in (3, 0):
            db = Database(neo4j_target.settings(index_shards=count))
            try:
                await apply_schema(db, mem.embedder.dimensions)
            finally:
                await db.close()
            labels = await shard_labels(neo4j_target)
            indexes = await shard_indexes(neo4j_target)
            assert sorted(indexes) == partition_names(count)
            expected = {f"MemoryShard_{i}" for i in range(count)}
            assert all(
                len(found) == min(count, 1) and found <= expected for found in labels.values()
            )
    finally:  # the shared service's count again, for the tests after this one
        await apply_schema(mem.db, mem.embedder.dimensions)
    await assert_labelled_by_owner(mem, neo4j_target)


async def test_a_start_reads_every_memory_only_when_a_label_is_missing(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await add_one_each(mem, "grows tomatoes", 5)
    shards, dimensions = mem.store.shards, mem.embedder.dimensions
    assert await apply_index_shards(mem.db, shards, dimensions) == 0
    # A memory written without its label (say, by a process with partitions off).
    await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {user_id: 'person-3'}) "
        "REMOVE m:$([l IN labels(m) WHERE l STARTS WITH 'MemoryShard_'][0])",
    )
    assert await apply_index_shards(mem.db, shards, dimensions) == 1
    await assert_labelled_by_owner(mem, neo4j_target)


CHURN_CREATE = """UNWIND range(1, 2000) AS i
CREATE (:Memory {id: 'churn-' + i, user_id: 'churner-' + (i % 20), text: 'churn'})"""
CHURN_DELETE = "MATCH (m:Memory) WHERE m.id STARTS WITH 'churn-' DETACH DELETE m"


async def test_start_up_relabels_beside_another_process_deleting_memories(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    """Found by bench.soak: a service process restarted while the other one deleted memories
    failed to start, with EntityNotFound from label_shards (a memory deleted after the MATCH
    found it). Memories written here without a partition label make start-up relabel."""
    shards, dimensions = mem.store.shards, mem.embedder.dimensions
    async with churning(neo4j_target, CHURN_CREATE, CHURN_DELETE):
        for _ in range(20):
            await apply_index_shards(mem.db, shards, dimensions)
