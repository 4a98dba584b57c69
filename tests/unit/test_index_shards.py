"""Which index partition serves a user (service/store/index_shards.py)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from service.store.index_shards import IndexShards, shard_statements


def test_no_user_or_no_partitions_means_the_global_indexes() -> None:
    assert IndexShards(16).of(None) is None and IndexShards(0).of("alice") is None
    for shards, user in ((IndexShards(16), None), (IndexShards(0), "alice")):
        assert shards.vector_index(user) == "memory_embedding"
        assert shards.text_index(user) == "memory_text"
        assert shards.label(user) is None and shards.counted_label(user) == ":Memory"


def test_a_user_has_one_partition_with_matching_label_indexes_and_count() -> None:
    shards = IndexShards(16)
    shard = shards.of("alice")
    assert shard is not None and 0 <= shard < 16 and shards.of("alice") == shard
    assert shards.label("alice") == f"MemoryShard_{shard}"
    assert shards.vector_index("alice") == f"memory_embedding_shard_{shard}"
    assert shards.text_index("alice") == f"memory_text_shard_{shard}"
    assert shards.counted_label("alice") == f":MemoryShard_{shard}"


def test_users_spread_over_every_partition() -> None:
    counts = Counter(IndexShards(16).of(f"user-{i}") for i in range(1600))
    assert set(counts) == set(range(16)) and max(counts.values()) < 3 * min(counts.values())


def test_the_partition_does_not_depend_on_the_process() -> None:
    # Python's str hash is salted per process; partitions must agree between API processes.
    code = "from service.store.index_shards import IndexShards as S; print(S(16).of('alice'))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(3)
    }
    assert runs == {str(IndexShards(16).of("alice"))}


@pytest.mark.parametrize("bad", [-1, True, "1 } DETACH DELETE", 1.5])
def test_only_checked_integers_enter_a_partition_statement(bad: object) -> None:
    with pytest.raises(ValueError):
        shard_statements("schema_shard", bad, 384)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        shard_statements("schema_shard", 1, bad)  # type: ignore[arg-type]


def test_a_partition_has_a_vector_and_a_full_text_index_on_its_label() -> None:
    vector, text = shard_statements("schema_shard", 7, 384)
    assert "VECTOR INDEX memory_embedding_shard_7" in vector and "(m:MemoryShard_7)" in vector
    assert "`vector.dimensions`: 384" in vector
    assert "FULLTEXT INDEX memory_text_shard_7" in text and "(m:MemoryShard_7)" in text
    assert not any("{shard}" in s or "{dimensions}" in s for s in (vector, text))
