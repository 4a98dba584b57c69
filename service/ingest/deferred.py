"""Deferred adds: the messages are stored at once as pending work in Neo4j, and a worker in the
service writes them later (docs/write-path.md, "Deferred adds").

A batch is a (:PendingAdd) node in its scope's (:PendingQueue). A worker leases one queue at a
time (Settings.pending_lease_s) and writes its oldest batch, so a scope's batches are written
one after another, in order, however many processes run a worker. A batch's node is deleted in
the transaction that writes its result: a crash before that commit leaves the batch to be
written again (by any worker, once the lease ends), one after it leaves nothing to redo. So
nothing received is lost and nothing is written twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from contextlib import suppress
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol

from service.core.config import Settings
from service.core.domain import AddResult, PendingWork
from service.core.errors import DatabaseUnavailableError
from service.store.database import NothingMatched
from service.store.pending_queries import PendingBatch, PendingStore

log = logging.getLogger(__name__)

# An idle worker backs off up to this while Neo4j does not answer.
MAX_BACKOFF_S = 30.0
# The worker reports the queue's size to its observers at most this often.
REPORT_EVERY_S = 5.0


class Outcome(StrEnum):
    """What became of a batch a worker took (the metrics' `outcome` label)."""

    WRITTEN = "written"
    RETRIED = "retried"  # failed; tried again later
    FAILED = "failed"  # failed pending_max_attempts times; set aside
    TAKEN = "taken"  # another worker wrote it first


class PendingObserver(Protocol):
    def count_deferred(self, outcome: Outcome, waited_s: float | None) -> None: ...

    def show_pending(self, work: PendingWork) -> None: ...


Writer = Callable[[PendingBatch], Awaitable[AddResult]]


class DeferredWorker:
    """Writes pending batches one at a time, from start() until stop()."""

    def __init__(
        self,
        store: PendingStore,
        write: Writer,
        settings: Settings,
        observers: Iterable[PendingObserver] = (),
    ) -> None:
        self.store = store
        self.write = write
        self.settings = settings
        self.observers = observers
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._drain_until: float | None = None  # set by stop()
        self._held: str | None = None  # the queue of the batch being written
        self._reported = 0.0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="engram-deferred-worker")

    def wake(self) -> None:
        """Look for work now (this process just received some)."""
        self._wake.set()

    async def stop(self, grace_s: float) -> None:
        """Go on writing what waits for up to ``grace_s``, then stop; a batch cut short is
        rolled back and its queue let go, for another worker to take up at once."""
        if self._task is None:
            return
        self._drain_until = time.monotonic() + grace_s
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=grace_s)
        except TimeoutError:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._task = None
        if self._held is not None:
            held, self._held = self._held, None
            with suppress(DatabaseUnavailableError):  # then its lease ends on its own
                await self.store.release(held, self.holder)

    async def write_next(self) -> bool:
        """Take the next batch no one holds and write it; False when none waits."""
        batch = await self.store.claim(self.holder, self.settings.pending_lease_s)
        if batch is None:
            return False
        self._held = batch.queue_key
        try:
            await self.write(batch)
        except NothingMatched:
            log.info("pending batch %s was written by another worker", batch.id)
            outcome = Outcome.TAKEN
        except DatabaseUnavailableError:
            raise  # the batch waits; its lease ends while Neo4j is away
        except Exception as e:  # anything else: a bad batch must not stop the queue
            log.exception("pending batch %s failed", batch.id)
            error, most = f"{type(e).__name__}: {e}", self.settings.pending_max_attempts
            outcome = (
                Outcome.FAILED if await self.store.fail(batch, error, most) else Outcome.RETRIED
            )
        else:
            outcome = Outcome.WRITTEN
        self._held = None
        waited = (datetime.now(UTC) - batch.received_at).total_seconds()
        for observer in list(self.observers):
            observer.count_deferred(outcome, waited if outcome is Outcome.WRITTEN else None)
        return True

    async def drain(self) -> int:
        """Write what waits until nothing does; how many batches were taken."""
        taken = 0
        while await self.write_next():
            taken += 1
        return taken

    async def _run(self) -> None:
        backoff = self.settings.pending_poll_s
        while True:
            self._wake.clear()  # before looking: work received meanwhile wakes the next sleep
            try:
                found = await self.write_next()
                await self._report()
                backoff = self.settings.pending_poll_s
            except DatabaseUnavailableError as e:
                log.warning("deferred adds wait: %s", e)
                found, backoff = False, min(backoff * 2, MAX_BACKOFF_S)
            except Exception:  # the worker must outlive any one failure
                log.exception("deferred-add worker")
                found = False
            if self._draining_is_over(found):
                return
            if not found:
                await self._sleep(backoff)

    def _draining_is_over(self, found: bool) -> bool:
        if self._drain_until is None:
            return False
        return not found or time.monotonic() >= self._drain_until

    async def _sleep(self, seconds: float) -> None:
        with suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)

    async def _report(self) -> None:
        """The queue's size to the observers (metrics), every REPORT_EVERY_S at most."""
        now = time.monotonic()
        if not self.observers or now - self._reported < REPORT_EVERY_S:
            return
        self._reported = now
        work = await self.store.work(None)
        for observer in list(self.observers):
            observer.show_pending(work)
