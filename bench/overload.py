"""Overload: goodput and how fast a Busy answer comes, from 1 to 256 clients, and a burst of adds.

    .venv/bin/python -m bench.overload --out overload-after.json

One `engram serve` (local auth, the service's default limits unless --env sets others) on the
bench Neo4j. Closed-loop GraphQL searches at each client count of --clients in turn, --seconds
each. A client told Busy (503) waits the Retry-After it was given and asks again, as a
well-behaved client does; with --jitter it waits up to that share longer, at random, as
clients that back off with jitter do (without it, a crowd refused together comes back together
every Retry-After). Then a burst: --burst concurrent synchronous addMessages of one
message each, from one agent into a fresh scope, sent once (no retry), and the scope's messages
counted after.

Reports per client count: searches answered per second (goodput) and its share of the best
count's, p50/p95 of the answered ones, Busy answers per second, their p50/p95 and whether each
carried Retry-After (also apart: the answers to each client's first request, when the whole
crowd arrives in one instant, and the later ones), and the load generator's own event-loop
lag (it runs on the same cores: a Busy answer is measured from the client, so the client's lag
is in it). The scopes are seeded once with synthetic messages and reused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httptools
import httpx
from rich.console import Console

from bench.common import bench_settings, ensure_neo4j, percentile, start_server, write_result
from bench.connection import Answer, Connection
from bench.synthetic import natural_questions, varied_messages
from service.core.config import Settings
from service.core.domain import Scope
from service.memory import MemoryService

SEARCH = """query($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope, limit: 10) { __typename } }"""
ADD = """mutation($messages: [MessageInput!]!, $scope: ScopeInput!) {
  addMessages(messages: $messages, scope: $scope) { __typename } }"""
STATS = "query($scope: ScopeInput!) { stats(scope: $scope) { messages } }"
SCOPES = 8
SEED_BATCH = 50


@dataclass
class Phase:
    """What the clients of one phase saw."""

    seconds: float
    retry_jitter: float = 0.0  # a Busy client waits Retry-After × (1 + this × U(0, 1))
    latencies_ms: list[float] = field(default_factory=list)
    # Busy answers to a client's first request (the whole crowd arrives in the same instant)
    # and to its later ones.
    first_busy_ms: list[float] = field(default_factory=list)
    later_busy_ms: list[float] = field(default_factory=list)
    busy_read_ms: list[float] = field(default_factory=list)  # when this process read them
    busy_without_retry_after: int = 0
    failed: int = 0
    loop_lag_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        answered = len(self.latencies_ms)
        return {
            "goodput_per_s": round(answered / self.seconds, 1),
            "p50_ms": _ms(self.latencies_ms, 50),
            "p95_ms": _ms(self.latencies_ms, 95),
            "answered": answered,
            "busy": len(self.busy_ms),
            "busy_per_s": round(len(self.busy_ms) / self.seconds, 1),
            "busy_p50_ms": _ms(self.busy_ms, 50),
            "busy_p95_ms": _ms(self.busy_ms, 95),
            "busy_first": len(self.first_busy_ms),
            "busy_first_p95_ms": _ms(self.first_busy_ms, 95),
            "busy_later_p50_ms": _ms(self.later_busy_ms, 50),
            "busy_later_p95_ms": _ms(self.later_busy_ms, 95),
            "busy_p95_read_ms": _ms(self.busy_read_ms, 95),
            "busy_without_retry_after": self.busy_without_retry_after,
            "failed": self.failed,
            "client_loop_lag_p95_ms": _ms(self.loop_lag_ms, 95),
        }

    def busy(self, first: bool, answer: Answer) -> None:
        (self.first_busy_ms if first else self.later_busy_ms).append(answer.arrived_ms)
        self.busy_read_ms.append(answer.read_ms)

    @property
    def busy_ms(self) -> list[float]:
        return self.first_busy_ms + self.later_busy_ms


def _ms(values: list[float], q: float) -> float | None:
    return round(percentile(values, q), 1) if values else None


async def seed(settings: Settings, per_scope: int) -> None:
    """Give each bench scope ``per_scope`` messages, unless it already has them."""
    memory = await MemoryService.start(settings)
    try:
        rng = random.Random(11)
        for i in range(SCOPES):
            scope = Scope(user_id=f"overload-{i}")
            if (await memory.store.counts(scope)).get("Message", 0) >= per_scope:
                continue
            messages = varied_messages(rng, per_scope, 0, datetime.now(UTC))
            batches = [
                (messages[j : j + SEED_BATCH], scope) for j in range(0, per_scope, SEED_BATCH)
            ]
            async for _ in memory.add_batches(batches):
                pass
    finally:
        await memory.close()


@dataclass
class Client:
    """One closed-loop client: its connection, its scope and the questions it asks."""

    connection: Connection
    scope: dict[str, str]
    questions: list[str]
    rng: random.Random

    @classmethod
    def numbered(cls, url: str, index: int) -> Client:
        rng = random.Random(index)
        scope = {"userId": f"overload-{index % SCOPES}"}
        return cls(Connection(url), scope, natural_questions(rng, 200), rng)


async def client(it: Client, until: float, phase: Phase) -> None:
    """Closed loop: one search at a time until the time is up, on a connection of its own."""
    connection, scope, questions, rng = it.connection, it.scope, it.questions, it.rng
    try:
        first = True
        while time.monotonic() < until:
            await search_once(connection, rng.choice(questions), scope, phase, first)
            first = False
    finally:
        await connection.close()


async def search_once(
    connection: Connection, question: str, scope: dict[str, str], phase: Phase, first: bool
) -> None:
    """One search, recorded in ``phase``; after a Busy answer, its Retry-After."""
    body = {"query": SEARCH, "variables": {"q": question, "scope": scope}}
    try:
        answer = await connection.post("/graphql", body)
    except (OSError, httptools.HttpParserError):
        phase.failed += 1
        return
    if answer.status == 503:
        phase.busy(first, answer)
        retry_after = answer.headers.get("retry-after")
        phase.busy_without_retry_after += retry_after is None
        await asyncio.sleep(float(retry_after or "1") * (1 + phase.retry_jitter * random.random()))
    elif answered(answer.body):
        phase.latencies_ms.append(answer.arrived_ms)
    else:
        phase.failed += 1


def answered(answer: bytes) -> bool:
    data = json.loads(answer).get("data") or {}
    return bool((data.get("search") or {}).get("__typename") == "SearchHits")


async def loop_lag(until: float, phase: Phase) -> None:
    """How late this process's own event loop wakes a 10 ms sleep."""
    while time.monotonic() < until:
        began = time.perf_counter()
        await asyncio.sleep(0.01)
        phase.loop_lag_ms.append((time.perf_counter() - began) * 1000 - 10)


async def run_phase(url: str, clients: int, seconds: float, jitter: float = 0.0) -> Phase:
    """``clients`` closed-loop clients for ``seconds``. Their connections are opened first, as
    a fleet of keep-alive clients has them, so the crowd's first requests arrive together."""
    # Made before the clock, too: 256 clients making their questions as they start kept the
    # load generator's loop from reading the first answers for ~0.2 s.
    fleet = [Client.numbered(url, i) for i in range(clients)]
    await asyncio.gather(*(c.connection.open() for c in fleet))
    phase = Phase(seconds, jitter)
    until = time.monotonic() + seconds
    await asyncio.gather(loop_lag(until, phase), *(client(c, until, phase) for c in fleet))
    return phase


async def burst(url: str, size: int) -> dict[str, Any]:
    """``size`` adds at once from one agent into a new scope; what each answered, and how many
    of their messages the scope holds after."""
    scope = {"userId": f"burst-{uuid.uuid4().hex[:8]}", "agentId": "burst-agent"}
    rng = random.Random(5)
    messages = varied_messages(rng, size, 0, datetime.now(UTC))

    async def add(http: httpx.AsyncClient, i: int) -> str:
        message = {"content": messages[i].content, "id": f"burst-{i}"}
        variables = {"messages": [message], "scope": scope}
        response = await http.post("/graphql", json={"query": ADD, "variables": variables})
        if response.status_code == 503:
            return "Busy"
        data = response.json().get("data") or {}
        return str((data.get("addMessages") or {}).get("__typename", "error"))

    async def add_alone(i: int) -> str:
        async with httpx.AsyncClient(base_url=url, timeout=120) as http:
            return await add(http, i)

    began = time.perf_counter()
    answers = await asyncio.gather(*(add_alone(i) for i in range(size)))
    seconds = round(time.perf_counter() - began, 2)
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        stats = await http.post("/graphql", json={"query": STATS, "variables": {"scope": scope}})
    stored = stats.json()["data"]["stats"]["messages"]
    tally = {kind: answers.count(kind) for kind in sorted(set(answers))}
    return {"adds": size, "answers": tally, "messages_stored": stored, "seconds": seconds}


async def measure(url: str, counts: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    await run_phase(url, 1, args.warmup)  # plans cached, connections open
    phases = {n: (await run_phase(url, n, args.seconds, args.jitter)).summary() for n in counts}
    peak = max(p["goodput_per_s"] for p in phases.values()) or 1.0
    return [
        {"clients": n, **p, "goodput_share_of_peak": round(p["goodput_per_s"] / peak, 2)}
        for n, p in phases.items()
    ]


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    await seed(settings, args.messages)
    env = dict(pair.split("=", 1) for pair in args.env)
    server = start_server(settings, args.port, env)
    url = f"http://127.0.0.1:{args.port}"
    try:
        counts = [int(n) for n in args.clients.split(",")]
        phases = await measure(url, counts, args)
        burst_result = await burst(url, args.burst) if args.burst else None
    finally:
        server.terminate()
        server.wait(timeout=60)
    result = {
        "label": args.label,
        "server_env": env,
        "seconds_per_phase": args.seconds,
        "retry_jitter": args.jitter,
        "phases": phases,
        "burst": burst_result,
        "messages_per_scope": args.messages,
        "scopes": SCOPES,
    }
    Console().print(result)
    write_result(args.out, result, "bench.overload")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", default="1,4,16,64,256", help="client counts, in turn")
    parser.add_argument("--seconds", type=float, default=20, help="per client count")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--burst", type=int, default=40, help="concurrent adds; 0 = none")
    parser.add_argument("--messages", type=int, default=200, help="per scope, seeded once")
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="a Busy client waits Retry-After × (1 + JITTER × U(0, 1)); 0: exactly Retry-After",
    )
    parser.add_argument("--env", nargs="*", default=[], help="KEY=VALUE for the server")
    parser.add_argument("--label", default="", help="recorded with the result")
    parser.add_argument("--out", default="overload.json", help="file name in bench/results/")
    parser.add_argument("--port", type=int, default=8111)
    asyncio.run(main(parser.parse_args()))
