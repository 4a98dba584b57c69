"""The soak's verdict from Neo4j itself, over Bolt: which messages exist (and how often), which
deleted memories are back, and whether any fact is stored twice. Also waits for deferred adds
to drain first."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

import neo4j
from bench.soak.records import Delete, Write
from bench.soak.report import Stored, message_ids

# Every message id the clients sent, with how many nodes carry it and when the first was made.
MESSAGES = """
UNWIND $ids AS id
MATCH (m:Message {id: id})
WITH id, count(m) AS copies, min(m.created_at) AS created
RETURN id, copies, created.epochMillis AS created_ms
"""
# Deleted memories that exist at the end, with the messages they came from.
DELETED_LIVE = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg:Message)
RETURN id, collect(msg.id) AS sources
"""
# The same fact twice: current memories of one scope with the same text hash.
DUPLICATE_MEMORIES = """
MATCH (m:Memory)
WHERE m.user_id STARTS WITH 'soak-' AND m.invalidated_at IS NULL
WITH m.user_id AS user_id, m.hash AS hash, collect(m.id) AS ids
WHERE size(ids) > 1
RETURN user_id, hash, ids
"""
# A memory's history with more ADD events than its creations can explain (one, plus one
# after each DELETE): a write applied twice to the history.
EXTRA_ADD_EVENTS = """
MATCH (e:MemoryEvent)
WHERE e.user_id STARTS WITH 'soak-' AND e.op IN ['ADD', 'DELETE']
WITH e.memory_id AS id,
     sum(CASE e.op WHEN 'ADD' THEN 1 ELSE 0 END) AS adds,
     sum(CASE e.op WHEN 'DELETE' THEN 1 ELSE 0 END) AS deletes
WHERE adds > deletes + 1
RETURN count(id) AS memories, coalesce(sum(adds - deletes - 1), 0) AS extra
"""
# Deferred adds still stored as pending work: waiting, or set aside as failed, with errors.
PENDING_LEFT = """
MATCH (p:PendingAdd)
RETURN count(p) AS batches, count(p.failed_at) AS failed, collect(p.last_error)[..5] AS errors
"""


@dataclass(frozen=True)
class Duplicates:
    messages: list[str]  # ids stored more than once
    memories: list[list[str]]  # groups of current memories of one scope and text hash
    extra_add_events: int


@dataclass(frozen=True)
class PendingLeft:
    batches: int
    failed: int
    errors: list[str]


@dataclass(frozen=True)
class Drain:
    drained: bool
    seconds: float
    timeout_s: float
    last_seen: dict[str, object]


async def drain_pending(url: str, timeout_s: float) -> Drain:
    """Poll /healthz until no deferred add is pending (or failed), up to ``timeout_s``."""
    began = time.monotonic()
    pending: dict[str, object] = {}
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        while time.monotonic() - began < timeout_s:
            try:
                pending = (await http.get("/healthz")).json().get("pending") or {}
            except (httpx.HTTPError, ValueError):
                pending = {"error": "healthz did not answer"}
            if pending.get("batches", 0) == 0 and "error" not in pending:
                return Drain(True, round(time.monotonic() - began, 1), timeout_s, pending)
            await asyncio.sleep(1.0)
    return Drain(False, round(time.monotonic() - began, 1), timeout_s, pending)


async def read_stored(
    uri: str, writes: Iterable[Write], deletes: Iterable[Delete]
) -> tuple[Stored, Duplicates, PendingLeft]:
    """What Neo4j holds of the soak's writes and deletes; the duplicates; pending left."""
    ids = [i for w in writes for i in message_ids(w)]
    deleted = sorted({d.memory_id for d in deletes if d.acknowledged})
    # Quiet: before any deferred add, the PendingAdd label does not exist (a warning).
    quiet = neo4j.NotificationMinimumSeverity.OFF
    async with neo4j.AsyncGraphDatabase.driver(
        uri, auth=None, notifications_min_severity=quiet
    ) as driver:
        rows, _, _ = await driver.execute_query(MESSAGES, ids=ids)
        live, _, _ = await driver.execute_query(DELETED_LIVE, ids=deleted)
        groups, _, _ = await driver.execute_query(DUPLICATE_MEMORIES)
        [events], _, _ = await driver.execute_query(EXTRA_ADD_EVENTS)
        [pending], _, _ = await driver.execute_query(PENDING_LEFT)
    stored = Stored(
        message_created={r["id"]: r["created_ms"] / 1000 for r in rows},
        live_memories={r["id"] for r in live},
        memory_sources={r["id"]: list(r["sources"]) for r in live},
    )
    duplicates = Duplicates(
        messages=[r["id"] for r in rows if r["copies"] > 1],
        memories=[list(g["ids"]) for g in groups],
        extra_add_events=int(events["extra"]),
    )
    left = PendingLeft(pending["batches"], pending["failed"], list(pending["errors"]))
    return stored, duplicates, left
