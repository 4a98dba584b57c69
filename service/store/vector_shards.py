"""Vector index partitions: each user's memories also sit in one of Settings.vector_shards indexes.

Neo4j 5.26's vector index cannot filter: it returns its global top k and the caller keeps its
own scope's hits, so a user holding 5% of a 100k store asks for k ≈ 400 to keep 20 (18 ms here,
bench/RESULTS.md). Every memory with a user_id therefore also carries one label
MemoryShard_<i>, i = a stable digest of the user_id modulo the shard count, and each label has
its own vector index (memory_embedding_shard_<i>). A user's search and near-duplicate check ask
that partition, where the user's share is about shard-count times larger, so k falls with it.
The global index `memory_embedding` stays, for scopes without a user and for the store-wide
checks (engram reembed, forget's leftover probe).

When the shard count changes, start-up relabels every memory (one pass over the store) and drops
the partitions the new count does not have; a count of 0 removes them all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from service.store.catalog import query
from service.store.database import Database

GLOBAL_INDEX = "memory_embedding"
LABEL_PREFIX = "MemoryShard_"
INDEX_PREFIX = "memory_embedding_shard_"
RELABEL_USERS_PER_TRANSACTION = 200


@dataclass(frozen=True)
class VectorShards:
    """Which vector index serves a user, and which label counts what that index holds."""

    count: int

    def of(self, user_id: str | None) -> int | None:
        """The user's partition, the same in every process (not Python's salted hash)."""
        if not self.count or user_id is None:
            return None
        digest = hashlib.blake2b(user_id.encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big") % self.count

    def label(self, user_id: str | None) -> str | None:
        shard = self.of(user_id)
        return None if shard is None else f"{LABEL_PREFIX}{shard}"

    def index(self, user_id: str | None) -> str:
        shard = self.of(user_id)
        return GLOBAL_INDEX if shard is None else f"{INDEX_PREFIX}{shard}"

    def counted_label(self, user_id: str | None) -> str:
        """The label whose count (from the count store) is the size of the user's index."""
        return f":{self.label(user_id) or 'Memory'}"


def shard_statement(name: str, shard: int, dimensions: int = 0) -> str:
    """cypher/<name>.cypher for one partition, its integers checked before they enter the text."""
    for value in (shard, dimensions):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"vector shard and dimensions must be integers >= 0, got {value!r}")
    return query(name).replace("{shard}", str(shard)).replace("{dimensions}", str(dimensions))


async def existing_shards(db: Database) -> list[int]:
    rows = await db.read("list_vector_shards")
    return sorted(int(r["name"].removeprefix(INDEX_PREFIX)) for r in rows)


async def drop_shard_indexes(db: Database, keep: int = 0) -> None:
    """Drop every partition index numbered ``keep`` or above (all of them by default)."""
    for shard in await existing_shards(db):
        if shard >= keep:
            await db.run_statement(shard_statement("drop_vector_shard", shard))


async def apply_vector_shards(db: Database, shards: VectorShards, dimensions: int) -> int:
    """Create the partitions' indexes, drop the others, label every user's memories to match.

    Returns how many memories were relabelled (0 on every start after the first).
    """
    for shard in range(shards.count):
        await db.run_statement(shard_statement("schema_vector_shard", shard, dimensions))
    await drop_shard_indexes(db, keep=shards.count)
    users = [r["user_id"] for r in await db.read("list_memory_users")]
    relabelled = 0
    for start in range(0, len(users), RELABEL_USERS_PER_TRANSACTION):
        chunk = users[start : start + RELABEL_USERS_PER_TRANSACTION]
        rows = [{"user_id": u, "label": shards.label(u)} for u in chunk]
        [row] = await db.write("label_vector_shards", {"users": rows})
        relabelled += int(row["relabelled"])
    return relabelled
