"""Which vector index partition serves a user (service/store/vector_shards.py)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from service.store.vector_shards import VectorShards, shard_statement


def test_no_user_or_no_partitions_means_the_global_index() -> None:
    assert VectorShards(16).of(None) is None and VectorShards(0).of("alice") is None
    for shards, user in ((VectorShards(16), None), (VectorShards(0), "alice")):
        assert shards.index(user) == "memory_embedding"
        assert shards.label(user) is None and shards.counted_label(user) == ":Memory"


def test_a_user_has_one_partition_with_matching_label_index_and_count() -> None:
    shards = VectorShards(16)
    shard = shards.of("alice")
    assert shard is not None and 0 <= shard < 16 and shards.of("alice") == shard
    assert shards.label("alice") == f"MemoryShard_{shard}"
    assert shards.index("alice") == f"memory_embedding_shard_{shard}"
    assert shards.counted_label("alice") == f":MemoryShard_{shard}"


def test_users_spread_over_every_partition() -> None:
    counts = Counter(VectorShards(16).of(f"user-{i}") for i in range(1600))
    assert set(counts) == set(range(16)) and max(counts.values()) < 3 * min(counts.values())


def test_the_partition_does_not_depend_on_the_process() -> None:
    # Python's str hash is salted per process; partitions must agree between API processes.
    code = "from service.store.vector_shards import VectorShards as V; print(V(16).of('alice'))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(3)}  # fmt: skip
    assert runs == {str(VectorShards(16).of("alice"))}


@pytest.mark.parametrize("bad", [-1, True, "1 } DETACH DELETE", 1.5])
def test_only_checked_integers_enter_a_partition_statement(bad: object) -> None:
    with pytest.raises(ValueError):
        shard_statement("schema_vector_shard", bad, 384)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        shard_statement("schema_vector_shard", 1, bad)  # type: ignore[arg-type]


def test_a_partition_statement_names_its_label_and_size() -> None:
    statement = shard_statement("schema_vector_shard", 7, 384)
    assert "memory_embedding_shard_7" in statement and "(m:MemoryShard_7)" in statement
    assert "`vector.dimensions`: 384" in statement and "{" + "shard}" not in statement
