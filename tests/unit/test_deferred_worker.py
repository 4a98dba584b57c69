"""The deferred-add worker's own decisions, over a queue kept in a list (the queue's queries
against Neo4j: tests/integration/test_deferred.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from service.core.config import Settings
from service.core.domain import AddResult, MessageIn, PendingWork, Scope
from service.ingest.deferred import DeferredWorker
from service.store.pending_queries import PendingBatch, queue_key


def batch(n: int) -> PendingBatch:
    scope = Scope(user_id="u")
    return PendingBatch(
        id=f"b{n}",
        queue_key=queue_key(scope),
        scope=scope,
        messages=[MessageIn(content=f"message {n}")],
        infer=True,
        actor="test",
        received_at=datetime.now(UTC),
        attempts=0,
    )


class ListStore:
    """The PendingStore calls the worker makes, over a list."""

    def __init__(self, batches: list[PendingBatch]) -> None:
        self.waiting = batches
        self.failures: dict[str, int] = {}
        self.released: list[str] = []

    async def claim(self, holder: str, lease_s: float) -> PendingBatch | None:
        return self.waiting[0] if self.waiting else None

    async def fail(self, b: PendingBatch, error: str, max_attempts: int) -> bool:
        self.failures[b.id] = self.failures.get(b.id, 0) + 1
        if self.failures[b.id] >= max_attempts:
            self.waiting.remove(b)
            return True
        return False

    async def release(self, key: str, holder: str) -> None:
        self.released.append(key)

    async def work(self, scope: Scope | None) -> PendingWork:
        return PendingWork(batches=len(self.waiting))


def worker_over(store: ListStore, write: object, **settings: object) -> DeferredWorker:
    return DeferredWorker(store, write, Settings(_env_file=None, **settings))  # type: ignore[arg-type, call-arg]


async def test_stop_writes_what_waits_within_the_grace_then_returns() -> None:
    store = ListStore([batch(n) for n in range(3)])
    written: list[str] = []

    async def write(b: PendingBatch) -> AddResult:
        written.append(b.id)
        store.waiting.remove(b)
        return AddResult()

    worker = worker_over(store, write, pending_poll_s=60)
    worker.start()
    await asyncio.wait_for(worker.stop(grace_s=5), 5)
    assert written == ["b0", "b1", "b2"] and not store.released


async def test_a_write_cut_short_by_the_grace_lets_go_of_its_queue() -> None:
    store = ListStore([batch(0)])
    started = asyncio.Event()

    async def write(b: PendingBatch) -> AddResult:
        started.set()
        await asyncio.sleep(3600)  # a write that outlives any grace
        return AddResult()

    worker = worker_over(store, write)
    worker.start()
    await asyncio.wait_for(started.wait(), 5)
    await asyncio.wait_for(worker.stop(grace_s=0.1), 5)
    assert store.released == [queue_key(Scope(user_id="u"))]


async def test_a_failing_batch_is_retried_then_set_aside_and_the_next_goes_on() -> None:
    bad, good = batch(0), batch(1)
    store = ListStore([bad, good])

    async def write(b: PendingBatch) -> AddResult:
        if b is bad:
            raise ValueError("cannot parse")
        store.waiting.remove(b)
        return AddResult()

    worker = worker_over(store, write, pending_max_attempts=3)
    assert await worker.drain() == 4  # three tries of the bad one, then the good one
    assert store.failures == {"b0": 3} and not store.waiting


def test_each_exact_scope_has_its_own_queue() -> None:
    keys = {
        queue_key(Scope(user_id="a")),
        queue_key(Scope(user_id="a", agent_id="x")),
        queue_key(Scope(agent_id="a")),
        queue_key(Scope(user_id="a", run_id="x")),
    }
    assert len(keys) == 4 and queue_key(Scope(user_id="a")) == queue_key(Scope(user_id="a"))
