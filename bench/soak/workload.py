"""The soak's clients: each adds (synchronous or deferred), searches and deletes in its scope,
and retries a write told busy or unavailable with the same message ids, after a backoff."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from bench.soak.records import Attempt, Delete, Op, Outcome, Write, classify
from bench.synthetic import natural_questions, varied_messages
from service.client import EngramClient

T = TypeVar("T")
BATCH = 3  # messages per add
BACKOFF_S, MAX_BACKOFF_S = 0.25, 4.0
# Writes not acknowledged when the time is up keep retrying this long, so that every write
# ends acknowledged or visibly abandoned.
FINISH_S = 90.0


@dataclass(frozen=True)
class Workload:
    scopes: int
    deferred_share: float  # of adds sent deferred
    add_share: float = 0.5
    delete_share: float = 0.15  # the rest are searches
    client_timeout_s: float = 60.0


@dataclass
class Ledger:
    """Everything every client did, for the report."""

    attempts: list[Attempt] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    deletes: list[Delete] = field(default_factory=list)


@dataclass
class Client:
    index: int
    engrams: list[EngramClient]  # one per server process
    workload: Workload
    ledger: Ledger
    stop_at: float  # epoch s: no new operation after it
    rng: random.Random = field(init=False)
    deletable: list[str] = field(default_factory=list)  # memories its adds created

    def __post_init__(self) -> None:
        self.rng = random.Random(self.index)

    @property
    def scope(self) -> str:
        return f"soak-{self.index % self.workload.scopes}"

    @property
    def home(self) -> int:
        return self.index % len(self.engrams)

    async def run(self) -> None:
        questions = natural_questions(self.rng, 200)
        sent = 0
        while time.time() < self.stop_at:
            roll = self.rng.random()
            if roll < self.workload.add_share:
                await self.add(sent)
                sent += BATCH
            elif roll < self.workload.add_share + self.workload.delete_share and self.deletable:
                await self.delete(self.deletable.pop(self.rng.randrange(len(self.deletable))))
            else:
                await self.search(self.rng.choice(questions))

    async def add(self, first: int) -> None:
        messages = varied_messages(self.rng, BATCH, first, datetime.now(UTC))
        payload = [
            {
                "content": m.content,
                "id": f"c{self.index}-{m.id}",
                "timestamp": m.timestamp.isoformat() if m.timestamp else None,
            }
            for m in messages
        ]
        deferred = self.rng.random() < self.workload.deferred_share
        op = Op.ADD_DEFERRED if deferred else Op.ADD
        write = Write(op, self.scope, [str(p["id"]) for p in payload])
        self.ledger.writes.append(write)

        def call(engram: EngramClient) -> Awaitable[Any]:
            if deferred:
                return engram.add(payload, mode="deferred", user_id=self.scope)
            return engram.add(payload, user_id=self.scope)

        result = await self.until_answered(op, call, write.attempts)
        if result is not None:
            write.message_ids = list(result.message_ids)
            self.deletable.extend(result.added)

    async def delete(self, memory_id: str) -> None:
        delete = Delete(self.scope, memory_id)
        self.ledger.deletes.append(delete)
        await self.until_answered(
            Op.DELETE, lambda e: e.delete(memory_id, user_id=self.scope), delete.attempts
        )

    async def search(self, question: str) -> None:
        engram = self.engrams[self.home]
        await self.request(Op.SEARCH, self.home, engram.search(question, user_id=self.scope))

    async def until_answered(
        self, op: Op, call: Callable[[EngramClient], Awaitable[T]], attempts: list[Attempt]
    ) -> T | None:
        """Retry typed refusals (and a gone process, on the other one) until answered or
        until the finishing time is over; None if never answered."""
        server, give_up = self.home, self.stop_at + FINISH_S
        while True:
            attempt, result = await self.request(op, server, call(self.engrams[server]))
            attempts.append(attempt)
            retry = attempt.outcome.typed or attempt.outcome is Outcome.SERVER_GONE
            if not retry or time.time() > give_up:
                return result
            if attempt.outcome is Outcome.SERVER_GONE:
                server = (server + 1) % len(self.engrams)
            await asyncio.sleep(self.backoff(len(attempts)))

    async def request(self, op: Op, server: int, call: Awaitable[T]) -> tuple[Attempt, T | None]:
        started = time.time()
        try:
            result = await call
        except Exception as e:  # every answer is recorded; classify() judges it
            attempt = Attempt(op, server, started, time.time(), classify(e), describe(e))
            self.ledger.attempts.append(attempt)
            return attempt, None
        attempt = Attempt(op, server, started, time.time(), Outcome.OK)
        self.ledger.attempts.append(attempt)
        return attempt, result

    def backoff(self, tries: int) -> float:
        jitter = self.rng.uniform(0.5, 1.0)
        return min(MAX_BACKOFF_S, BACKOFF_S * 2.0 ** min(tries, 5)) * jitter


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]


async def run_clients(urls: list[str], clients: int, workload: Workload, stop_at: float) -> Ledger:
    ledger = Ledger()
    engrams = [EngramClient(url, timeout_s=workload.client_timeout_s) for url in urls]
    try:
        await asyncio.gather(
            *(Client(i, engrams, workload, ledger, stop_at).run() for i in range(clients))
        )
    finally:
        for engram in engrams:
            await engram.__aexit__(None, None, None)
    return ledger
