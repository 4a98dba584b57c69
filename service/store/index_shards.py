"""Index partitions: each user's memories also sit in one of Settings.index_shards partitions.

Neo4j 5.26's vector and full-text index queries cannot filter: they return the index's global
top k and the caller keeps its own scope's hits. A user holding 5% of a 100k store asks the
vector index for k ≈ 400 to keep 20, and Lucene scores every matching memory of
the store (bench/RESULTS.md). So every memory with a user_id also carries one label
MemoryShard_<i> (i = a stable digest of the user_id modulo the shard count), and each label has
its own vector index (memory_embedding_shard_<i>) and full-text index (memory_text_shard_<i>).
A user's search and near-duplicate check ask the partition, where the user's share is about
shard-count times larger: k falls with it, and Lucene scores ~1/shard-count of the documents.
The global indexes stay, for scopes without a user and the store-wide checks (engram reembed,
forget's leftover probe).

When the shard count changes, start-up relabels every memory (one pass over the store) and drops
the partitions the new count does not have; a count of 0 removes them all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from neo4j.exceptions import ClientError, TransientError

from service.store.catalog import statements
from service.store.database import Database

GLOBAL_VECTOR_INDEX = "memory_embedding"
GLOBAL_TEXT_INDEX = "memory_text"
LABEL_PREFIX = "MemoryShard_"
VECTOR_PREFIX = "memory_embedding_shard_"
TEXT_PREFIX = "memory_text_shard_"
RELABEL_USERS_PER_TRANSACTION = 200
# A chunk whose memory another process deletes mid-statement runs again, at most this often.
RELABEL_ATTEMPTS = 5
_ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"


@dataclass(frozen=True)
class IndexShards:
    """Which indexes serve a user, and which label counts what they hold."""

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

    def vector_index(self, user_id: str | None) -> str:
        shard = self.of(user_id)
        return GLOBAL_VECTOR_INDEX if shard is None else f"{VECTOR_PREFIX}{shard}"

    def text_index(self, user_id: str | None) -> str:
        shard = self.of(user_id)
        return GLOBAL_TEXT_INDEX if shard is None else f"{TEXT_PREFIX}{shard}"

    def counted_label(self, user_id: str | None) -> str:
        """The label whose count (from the count store) is how many memories the indexes hold."""
        return f":{self.label(user_id) or 'Memory'}"

    def counted_labels(self) -> list[str]:
        """Every label counted_label gives for a user."""
        if not self.count:
            return [":Memory"]
        return [f":{LABEL_PREFIX}{shard}" for shard in range(self.count)]


def shard_statements(name: str, shard: int, dimensions: int = 0) -> list[str]:
    """cypher/<name>.cypher for one partition, its integers checked before they enter the text."""
    for value in (shard, dimensions):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"shard and dimensions must be integers >= 0, got {value!r}")
    return [
        s.replace("{shard}", str(shard)).replace("{dimensions}", str(dimensions))
        for s in statements(name)
    ]


async def existing_shards(db: Database) -> list[int]:
    """The partitions that have at least one index, whatever count they were made for."""
    names = [r["name"] for r in await db.read("list_shard_indexes")]
    return sorted({int(n.removeprefix(VECTOR_PREFIX).removeprefix(TEXT_PREFIX)) for n in names})


async def drop_shard_indexes(db: Database, keep: int = 0, vector_only: bool = False) -> None:
    """Drop the indexes of every partition numbered ``keep`` or above (all by default); with
    ``vector_only``, their vector indexes only (engram reembed, for another vector size)."""
    for shard in await existing_shards(db):
        if shard >= keep:
            name = "drop_vector_shard" if vector_only else "drop_shard"
            for statement in shard_statements(name, shard):
                await db.run_statement(statement)


async def apply_index_shards(db: Database, shards: IndexShards, dimensions: int) -> int:
    """Label every user's memories for this shard count, create its partitions' indexes, drop
    the others. Returns how many memories were relabelled.

    The labels are written before the indexes change, so partitions that match the count mean
    the last start finished labelling for it; then only memories written meanwhile without a
    label (by a process with partitions off) can be missing one, which the count store shows.
    Only then is every memory of every user read (100k: 0.2 s when nothing changes).
    """
    done = await existing_shards(db) == list(range(shards.count))
    relabelled = 0 if done and await _all_labelled(db, shards) else await _relabel(db, shards)
    for shard in range(shards.count):
        for statement in shard_statements("schema_shard", shard, dimensions):
            await db.run_statement(statement)
    await drop_shard_indexes(db, keep=shards.count)
    return relabelled


async def _all_labelled(db: Database, shards: IndexShards) -> bool:
    """Each memory with a user carries at most one partition label, so the partitions' label
    counts (from the count store) add up to the memories with a user when none is missing.
    With partitions off there is nothing to carry (the last start removed the labels)."""
    if not shards.count:
        return True
    labelled = 0
    anyone = {"user_id": None, "agent_id": None, "run_id": None}
    for shard in range(shards.count):
        fill = {"index_label": f":{LABEL_PREFIX}{shard}"}
        [row] = await db.read("count_scope_memories", anyone, fill)
        labelled += int(row["total"])
    [row] = await db.read("count_user_memories")
    return labelled == int(row["memories"])


async def _relabel(db: Database, shards: IndexShards) -> int:
    users = [r["user_id"] for r in await db.read("list_memory_users")]
    relabelled = 0
    for start in range(0, len(users), RELABEL_USERS_PER_TRANSACTION):
        chunk = users[start : start + RELABEL_USERS_PER_TRANSACTION]
        rows = [{"user_id": u, "label": shards.label(u)} for u in chunk]
        relabelled += await _label_chunk(db, rows)
    return relabelled


async def _label_chunk(db: Database, rows: list[dict[str, str | None]]) -> int:
    """Label one chunk of users' memories. Reads are read-committed, so a memory that another
    process deletes after the MATCH found it fails the statement (EntityNotFound) and rolls it
    back; labelling is idempotent, so the chunk simply runs again."""
    tries = 0
    while True:
        try:
            [row] = await db.write("label_shards", {"users": rows})
            return int(row["relabelled"])
        except (ClientError, TransientError) as e:
            # A deadlock with the deleting process is transient too: the chunk runs again.
            tries += 1
            again = isinstance(e, TransientError) or e.code == _ENTITY_NOT_FOUND
            if not again or tries == RELABEL_ATTEMPTS:
                raise
