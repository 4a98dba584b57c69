"""Apply cypher/schema.cypher and the vector index partitions idempotently, then wait for the
indexes to come online."""

from __future__ import annotations

import re

from service.store.catalog import query, statements
from service.store.database import Database
from service.store.index_shards import IndexShards, apply_index_shards


def schema_statements(dimensions: int) -> list[str]:
    """The schema's statements with the vector size filled in (a checked integer)."""
    if not isinstance(dimensions, int) or isinstance(dimensions, bool) or dimensions <= 0:
        raise ValueError(f"vector dimensions must be a positive integer, got {dimensions!r}")
    return [s.replace("{dimensions}", str(dimensions)) for s in statements("schema")]


# The memory full-text indexes' names, checked before one enters a DROP statement.
MEMORY_TEXT_INDEX = re.compile(r"memory_text(_shard_\d+)?")


async def apply_schema(db: Database, dimensions: int, wait_s: int = 120) -> None:
    await drop_outdated_text_indexes(db)
    for statement in schema_statements(dimensions):
        await db.run_statement(statement)
    await apply_index_shards(db, IndexShards(db.settings.index_shards), dimensions)
    await db.run_statement(query("await_indexes"), {"seconds": wait_s})
    await fill_happened_bounds(db)


async def drop_outdated_text_indexes(db: Database) -> list[str]:
    """Drop the memory full-text indexes made without context_text (the schema then creates
    them again with it; Neo4j fills them from the stored memories); their names."""
    names = [str(r["name"]) for r in await db.read("list_outdated_text_indexes")]
    for name in names:
        if not MEMORY_TEXT_INDEX.fullmatch(name):
            raise ValueError(f"not a memory full-text index: {name!r}")
        await db.run_statement(query("drop_text_index").replace("{name}", name))
    return names


async def fill_happened_bounds(db: Database) -> int:
    """Give memories stored before happened_start/happened_end existed their bounds (without
    them no HAPPENED window would see them); how many were missing. Two index counts tell
    whether any is, cheaply; only then is every memory read (once)."""
    [row] = await db.read("count_happened_bounds")
    missing = int(row["said"]) - int(row["bounded"])
    if missing > 0:
        await db.run_statement(query("fill_happened_bounds"))
    return max(missing, 0)
