"""Deferred adds against a real Neo4j: stored at once, written by a worker in order per scope,
exactly once, whatever dies when (service/ingest/deferred.py)."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest

from service.api.app import create_app
from service.core.domain import AddMode, AddResult, Scope
from service.ingest.deferred import DeferredWorker
from service.memory import MemoryService
from service.store.database import NothingMatched
from service.store.pending_queries import PendingBatch
from tests.conftest import Neo4jTarget, run_cypher
from tests.integration.test_metrics import parse, value
from tests.integration.test_overload import (
    KNOWN,
    MENTIONS_KNOWN,
    WAIT_S,
    lock_entities,
)
from tests.integration.test_shutdown import engram_serve, until_blocked

pytestmark = pytest.mark.integration

SCOPE = Scope(user_id="dee")
MESSAGES = [
    {"content": "I adopted a greyhound called Biscuit last spring.", "speaker": "Dee"},
    {"content": "My sister Ana teaches chemistry in Lisbon.", "speaker": "Dee"},
]
ADD = """
mutation Add($messages: [MessageInput!]!, $scope: ScopeInput!, $mode: AddMode!) {
  addMessages(messages: $messages, scope: $scope, mode: $mode) {
    __typename ... on AddMessagesSuccess { messageIds added pending }
  }
}"""
PENDING = """
query($scope: ScopeInput!) {
  pendingWork(scope: $scope) {
    __typename ... on PendingWork { batches messages oldestAgeS failed }
  }
  search(query: "greyhound", scope: $scope) { __typename ... on SearchHits { pendingMessages } }
}"""


def worker(mem: MemoryService, **settings: object) -> DeferredWorker:
    """A worker of the test's own, never started: the test runs its steps."""
    return DeferredWorker(mem.deferred, mem.write_pending, mem.settings.model_copy(update=settings))


async def stored(target: Neo4jTarget, label: str, ids: list[str]) -> dict[str, int]:
    """How many nodes carry each id (absent ids: 0)."""
    rows = await run_cypher(
        target,
        f"UNWIND $ids AS id OPTIONAL MATCH (n:{label} {{id: id}}) RETURN id, count(n) AS n",
        ids=ids,
    )
    return {str(r["id"]): int(str(r["n"])) for r in rows}


async def test_a_deferred_add_is_pending_until_the_worker_writes_it(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    deferred = await mem.add(MESSAGES, SCOPE, mode=AddMode.DEFERRED)
    assert deferred.pending and len(deferred.message_ids) == 2 and not deferred.added
    retried = await mem.add(MESSAGES, SCOPE, mode=AddMode.DEFERRED)  # its answer was lost
    assert retried.message_ids == deferred.message_ids
    assert set((await stored(neo4j_target, "Message", deferred.message_ids)).values()) == {0}
    work = await mem.pending_work(SCOPE)
    assert (work.batches, work.messages, work.failed) == (1, 2, 0)
    assert work.oldest_age_s is not None and work.oldest_age_s >= 0
    assert (await mem.pending_work(Scope(user_id="someone-else"))).batches == 0

    assert await worker(mem).drain() == 1
    assert set((await stored(neo4j_target, "Message", deferred.message_ids)).values()) == {1}
    assert (await mem.pending_work(SCOPE)).batches == 0
    hits = await mem.search("What is the name of the dog?", SCOPE)
    assert any("Biscuit" in h.memory.text for h in hits)
    # The ids were those a synchronous add gives: the same messages again write nothing.
    again = await mem.add(MESSAGES, SCOPE)
    assert again.message_ids == deferred.message_ids and not again.added


async def test_batches_of_a_scope_are_written_in_the_order_received_by_racing_workers(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    sent: list[AddResult] = []
    for n in range(6):
        message = {"content": f"Note {n}: I repainted room number {n} in blue.", "speaker": "Dee"}
        sent.append(await mem.add([message], SCOPE, mode=AddMode.DEFERRED))
    other = await mem.add(MESSAGES, Scope(user_id="eve"), mode=AddMode.DEFERRED)

    first, second = worker(mem), worker(mem)
    taken = await asyncio.gather(first.drain(), second.drain())
    assert sum(taken) == 7
    ids = [r.message_ids[0] for r in sent]
    rows = await run_cypher(
        neo4j_target,
        "UNWIND $ids AS id MATCH (m:Message {id: id}) RETURN m.id AS id ORDER BY m.created_at",
        ids=ids,
    )
    assert [r["id"] for r in rows] == ids  # each once, written in the order received
    assert set((await stored(neo4j_target, "Message", other.message_ids)).values()) == {1}


async def test_a_batch_held_by_a_worker_that_died_is_written_once_after_its_lease(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    deferred = await mem.add(MESSAGES, SCOPE, mode=AddMode.DEFERRED)
    dead = await mem.deferred.claim("a-worker-that-dies", lease_s=1.0)
    assert isinstance(dead, PendingBatch)
    alive = worker(mem)
    assert not await alive.write_next()  # the queue is held while the lease runs
    await asyncio.sleep(1.2)
    assert await alive.write_next() and not await alive.write_next()
    memories = await run_cypher(neo4j_target, "MATCH (m:Memory) RETURN count(m) AS n")

    with pytest.raises(NothingMatched):  # the dead worker's late write is refused whole
        await mem.write_pending(dead)
    assert await run_cypher(neo4j_target, "MATCH (m:Memory) RETURN count(m) AS n") == memories
    assert set((await stored(neo4j_target, "Message", deferred.message_ids)).values()) == {1}


async def test_a_batch_that_keeps_failing_is_set_aside_and_the_scope_goes_on(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    async def broken(batch: PendingBatch) -> AddResult:
        raise RuntimeError("extraction blew up")

    await mem.add(MESSAGES[:1], SCOPE, mode=AddMode.DEFERRED)
    later = await mem.add(MESSAGES[1:], SCOPE, mode=AddMode.DEFERRED)
    failing = DeferredWorker(
        mem.deferred, broken, mem.settings.model_copy(update={"pending_max_attempts": 2})
    )
    assert await failing.write_next() and await failing.write_next()  # twice the first batch
    work = await mem.pending_work(SCOPE)
    assert (work.batches, work.failed) == (1, 1)
    [row] = await run_cypher(
        neo4j_target, "MATCH (p:PendingAdd) WHERE p.failed_at IS NOT NULL RETURN p.last_error AS e"
    )
    assert "extraction blew up" in str(row["e"])

    assert await worker(mem).drain() == 1
    assert set((await stored(neo4j_target, "Message", later.message_ids)).values()) == {1}


async def test_delete_all_and_forget_take_the_scopes_pending_adds_with_them(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(MESSAGES, SCOPE, mode=AddMode.DEFERRED)
    await mem.delete_all(SCOPE)
    assert await worker(mem).drain() == 0
    assert (await mem.pending_work(SCOPE)).batches == 0

    await mem.add(MESSAGES, SCOPE)
    await mem.add(
        [{"content": "I moved to Porto in May.", "speaker": "Dee"}], SCOPE, mode=AddMode.DEFERRED
    )
    report = await mem.forget(SCOPE, dry_run=False)
    assert report.verified, report.leftovers
    rows = await run_cypher(neo4j_target, "MATCH (p:PendingAdd) RETURN count(p) AS n")
    assert rows[0]["n"] == 0


async def test_graphql_defers_and_reads_say_what_is_pending(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    scope = {"userId": SCOPE.user_id}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        variables = {"messages": MESSAGES, "scope": scope, "mode": "DEFERRED"}
        added = (await client.post("/graphql", json={"query": ADD, "variables": variables})).json()
        assert added["data"]["addMessages"]["pending"] is True
        assert added["data"]["addMessages"]["added"] == []
        reads = await client.post(
            "/graphql", json={"query": PENDING, "variables": {"scope": scope}}
        )
        data = reads.json()["data"]
        assert data["pendingWork"]["batches"] == 1 and data["pendingWork"]["messages"] == 2
        assert data["search"]["pendingMessages"] == 2
        health = (await client.get("/healthz")).json()
        assert health["pending"]["batches"] == 1 and health["pending"]["failed"] == 0

        mem.start_worker()  # as `engram serve` does
        try:
            await asyncio.wait_for(until_nothing_pending(client, scope), WAIT_S)
        finally:
            await mem.stop_worker()
        metrics = parse((await client.get("/metrics")).text)
        assert value(metrics, "engram_deferred_batches_total", outcome="written") == 1
        assert value(metrics, "engram_messages_written_total") == 2
    assert set(
        (await stored(neo4j_target, "Message", added["data"]["addMessages"]["messageIds"])).values()
    ) == {1}


async def until_nothing_pending(client: httpx.AsyncClient, scope: dict[str, str]) -> None:
    while True:
        reads = await client.post(
            "/graphql", json={"query": PENDING, "variables": {"scope": scope}}
        )
        if reads.json()["data"]["pendingWork"]["batches"] == 0:
            return
        await asyncio.sleep(0.1)


async def test_a_deferred_add_survives_the_service_killed_in_the_middle_of_its_write(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(KNOWN, Scope(user_id="ola"))  # entities the held write waits on
    variables = {"messages": MENTIONS_KNOWN, "scope": {"userId": "ola"}, "mode": "DEFERRED"}
    with engram_serve(neo4j_target, pending_lease_s="2") as (server, url):
        async with (
            httpx.AsyncClient(base_url=url, timeout=WAIT_S) as client,
            lock_entities(neo4j_target),
        ):
            answer = await client.post("/graphql", json={"query": ADD, "variables": variables})
            ids = answer.json()["data"]["addMessages"]["messageIds"]
            # The worker took the batch and waits inside its write transaction.
            await asyncio.wait_for(until_blocked(neo4j_target), WAIT_S)
            server.send_signal(signal.SIGKILL)
            await asyncio.to_thread(server.wait, WAIT_S)
    assert set((await stored(neo4j_target, "Message", ids)).values()) == {0}

    with engram_serve(neo4j_target) as (_, url):
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_S) as client:
            await asyncio.wait_for(until_nothing_pending(client, {"userId": "ola"}), WAIT_S)
    assert set((await stored(neo4j_target, "Message", ids)).values()) == {1}
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory)-[:DERIVED_FROM]->(:Message {id: $id}) RETURN m.text AS text",
        id=ids[0],
    )
    assert rows and len({r["text"] for r in rows}) == len(rows)  # each memory once
