"""Apply cypher/schema.cypher and the vector index partitions idempotently, then wait for the
indexes to come online."""

from __future__ import annotations

from service.store.catalog import query, statements
from service.store.database import Database
from service.store.index_shards import IndexShards, apply_index_shards


def schema_statements(dimensions: int) -> list[str]:
    """The schema's statements with the vector size filled in (a checked integer)."""
    if not isinstance(dimensions, int) or isinstance(dimensions, bool) or dimensions <= 0:
        raise ValueError(f"vector dimensions must be a positive integer, got {dimensions!r}")
    return [s.replace("{dimensions}", str(dimensions)) for s in statements("schema")]


async def apply_schema(db: Database, dimensions: int, wait_s: int = 120) -> None:
    for statement in schema_statements(dimensions):
        await db.run_statement(statement)
    await apply_index_shards(db, IndexShards(db.settings.index_shards), dimensions)
    await db.run_statement(query("await_indexes"), {"seconds": wait_s})
    await fill_happened_bounds(db)


async def fill_happened_bounds(db: Database) -> int:
    """Give memories stored before happened_start/happened_end existed their bounds (without
    them no HAPPENED window would see them); how many were missing. Two index counts tell
    whether any is (100k memories: ~30 ms); only then is every memory read (100k: ~9 s, once)."""
    [row] = await db.read("count_happened_bounds")
    missing = int(row["said"]) - int(row["bounded"])
    if missing > 0:
        await db.run_statement(query("fill_happened_bounds"))
    return max(missing, 0)
