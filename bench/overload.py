"""Overload: search latency under 16 clients against one client, with and without the limit on
requests in flight (ENGRAM_MAX_REQUESTS_IN_FLIGHT), in one run.

    .venv/bin/python -m bench.overload --limits 0,8,4 --seconds 20

For each limit (0 = none) it starts `engram serve` (local auth) on the bench Neo4j, then runs
closed-loop GraphQL searches: one client, then --clients clients, --seconds each. A client told
Busy (503) waits the Retry-After it was given and asks again, as a well-behaved client does.
Reports per phase: searches answered per second, p50/p95/p99 of the answered ones, the busy
share of all answers, and p95 under load over p95 of one client (the figure to compare:
absolute times on a shared machine move from run to run). The scopes are seeded once with
synthetic messages and reused.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
from rich.console import Console

from bench.common import bench_settings, ensure_neo4j, percentile, write_result
from bench.soak import start_server
from bench.synthetic import natural_questions, varied_messages
from service.config import Settings
from service.domain import Scope
from service.memory import Memory

SEARCH = """query($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope, limit: 10) { __typename } }"""
SCOPES = 8
SEED_BATCH = 50


@dataclass
class Phase:
    """What the clients of one phase saw."""

    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    busy: int = 0
    failed: int = 0

    def summary(self) -> dict[str, Any]:
        answered = len(self.latencies_ms)
        return {
            "searches_per_s": round(answered / self.seconds, 1),
            "p50_ms": round(percentile(self.latencies_ms, 50), 1),
            "p95_ms": round(percentile(self.latencies_ms, 95), 1),
            "p99_ms": round(percentile(self.latencies_ms, 99), 1),
            "answered": answered,
            "busy": self.busy,
            "busy_share": round(self.busy / max(1, answered + self.busy), 3),
            "failed": self.failed,
        }


async def seed(settings: Settings, per_scope: int) -> None:
    """Give each bench scope ``per_scope`` messages, unless it already has them."""
    memory = await Memory.start(settings)
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


async def client(url: str, index: int, seconds: float, phase: Phase) -> None:
    """Closed loop: one search at a time until the time is up."""
    rng = random.Random(index)
    questions = natural_questions(rng, 200)
    scope = {"userId": f"overload-{index % SCOPES}"}
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        while time.monotonic() < deadline:
            body = {"query": SEARCH, "variables": {"q": rng.choice(questions), "scope": scope}}
            began = time.perf_counter()
            response = await http.post("/graphql", json=body)
            if response.status_code == 503:
                phase.busy += 1
                await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
            elif answered(response):
                phase.latencies_ms.append((time.perf_counter() - began) * 1000)
            else:
                phase.failed += 1


def answered(response: httpx.Response) -> bool:
    data = response.json().get("data") or {}
    return bool((data.get("search") or {}).get("__typename") == "SearchHits")


async def run_phase(url: str, clients: int, seconds: float) -> dict[str, Any]:
    phase = Phase(seconds)
    await asyncio.gather(*(client(url, i, seconds, phase) for i in range(clients)))
    return phase.summary()


async def measure_limit(settings: Settings, limit: int, args: argparse.Namespace) -> dict[str, Any]:
    server = start_server(settings, args.port, {"ENGRAM_MAX_REQUESTS_IN_FLIGHT": str(limit)})
    try:
        url = f"http://127.0.0.1:{args.port}"
        await run_phase(url, 1, args.warmup)  # plans cached, connections open
        one = await run_phase(url, 1, args.seconds)
        loaded = await run_phase(url, args.clients, args.seconds)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ratio = round(loaded["p95_ms"] / one["p95_ms"], 2)
    return {"limit": limit, "one_client": one, f"{args.clients}_clients": loaded,
            "p95_ratio": ratio}  # fmt: skip


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    await seed(settings, args.messages)
    runs = [await measure_limit(settings, int(limit), args) for limit in args.limits.split(",")]
    result = {"clients": args.clients, "seconds": args.seconds, "runs": runs,
              "messages_per_scope": args.messages, "scopes": SCOPES}  # fmt: skip
    Console().print(result)
    write_result("overload.json", result, "bench.overload")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limits", default="0,8", help="in-flight limits to try; 0 = none")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--messages", type=int, default=200, help="per scope, seeded once")
    parser.add_argument("--port", type=int, default=8111)
    asyncio.run(main(parser.parse_args()))
