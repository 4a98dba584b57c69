"""Overload: search latency under 16 clients against one client, with and without the limit on
requests in flight (ENGRAM_MAX_REQUESTS_IN_FLIGHT), in one run.

    .venv/bin/python -m bench.overload --limits 0,8,4 --seconds 10 --rounds 3

For each limit (0 = none) it starts an `engram serve` (local auth, ports from --port up) on the
bench Neo4j, then runs closed-loop GraphQL searches against each server in turn: one client,
then --clients clients, --seconds each, for --rounds rounds, so that every server shares the
same spells of whatever else the machine runs. A client told Busy (503) waits the Retry-After
it was given and asks again, as a well-behaved client does.
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

from bench.common import bench_settings, ensure_neo4j, percentile, start_server, write_result
from bench.synthetic import natural_questions, varied_messages
from service.core.config import Settings
from service.core.domain import Scope
from service.memory import MemoryService

SEARCH = """query($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope, limit: 10) { __typename } }"""
SCOPES = 8
SEED_BATCH = 50


@dataclass
class Phase:
    """What the clients of one phase saw."""

    seconds: float  # of all the phases it sums
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


async def run_phase(url: str, clients: int, seconds: float, phase: Phase) -> None:
    phase.seconds += seconds
    await asyncio.gather(*(client(url, i, seconds, phase) for i in range(clients)))


async def measure(urls: dict[int, str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each limit's server in turn, one client and then many, round after round: the servers
    share whatever else the machine runs at the time."""
    phases = {(limit, n): Phase(0.0) for limit in urls for n in (1, args.clients)}
    for url in urls.values():
        await run_phase(url, 1, args.warmup, Phase(0.0))  # plans cached, connections open
    for _ in range(args.rounds):
        for n in (1, args.clients):
            for limit, url in urls.items():
                await run_phase(url, n, args.seconds, phases[(limit, n)])
    runs = []
    for limit in urls:
        one, loaded = phases[(limit, 1)].summary(), phases[(limit, args.clients)].summary()
        runs.append(
            {
                "limit": limit,
                "one_client": one,
                f"{args.clients}_clients": loaded,
                "p95_ratio": round(loaded["p95_ms"] / one["p95_ms"], 2),
            }
        )
    return runs


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    await seed(settings, args.messages)
    limits = [int(limit) for limit in args.limits.split(",")]
    servers = {
        limit: start_server(settings, args.port + i, {"ENGRAM_MAX_REQUESTS_IN_FLIGHT": str(limit)})
        for i, limit in enumerate(limits)
    }
    try:
        urls = {limit: f"http://127.0.0.1:{args.port + i}" for i, limit in enumerate(limits)}
        runs = await measure(urls, args)
    finally:
        for server in servers.values():
            server.terminate()
            server.wait(timeout=60)
    result = {
        "clients": args.clients,
        "seconds_per_phase": args.seconds,
        "rounds": args.rounds,
        "runs": runs,
        "messages_per_scope": args.messages,
        "scopes": SCOPES,
    }
    Console().print(result)
    write_result("overload.json", result, "bench.overload")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limits", default="0,4", help="in-flight limits to try; 0 = none")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10, help="per phase and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--messages", type=int, default=200, help="per scope, seeded once")
    parser.add_argument("--port", type=int, default=8111, help="the first server's; one per limit")
    asyncio.run(main(parser.parse_args()))
