"""A crowd's first instant: how fast Busy answers come when 256 clients ask at once.

    .venv/bin/python -m bench.crowd --out crowd.json

bench.overload sees a crowd arrive in one instant once per client count, so its first-instant
figure rests on one sample of ~190 refusals on a noisy host. Here two `engram serve` processes
run side by side on the bench Neo4j: one refusing at the door (service/api/door.py, the
default), one with ENGRAM_REFUSE_AT_DOOR=false, so the app refuses. In turn, --rounds times,
each gets a crowd: --clients keep-alive connections opened first, each sends one search at
once, and the answers are timed from each client's send. Between crowds the server's line
drains (--pause). Reports per variant the Busy answers' p50/p95 over all rounds and the median
of each round's p95, timed from each request's send to its answer's arrival at the client's
socket (bench/connection.py); the p95 as this process read them; the searches answered.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from typing import Any

from rich.console import Console

from bench.common import (
    bench_settings,
    ensure_neo4j,
    free_port,
    percentile,
    start_server,
    write_result,
)
from bench.connection import Answer
from bench.overload import SEARCH, Client, answered, seed

VARIANTS = {"door": {}, "app": {"ENGRAM_REFUSE_AT_DOOR": "false"}}


async def crowd(url: str, clients: int, first_index: int) -> list[Answer]:
    """One crowd's answers."""
    fleet = [Client.numbered(url, first_index + i) for i in range(clients)]
    await asyncio.gather(*(c.connection.open() for c in fleet))

    async def ask(it: Client) -> Answer:
        body = {"query": SEARCH, "variables": {"q": it.questions[0], "scope": it.scope}}
        return await it.connection.post("/graphql", body)

    try:
        return await asyncio.gather(*(ask(c) for c in fleet))
    finally:
        await asyncio.gather(*(c.connection.close() for c in fleet))


def _ms(values: list[float], q: float) -> float | None:
    return round(percentile(values, q), 1) if values else None


def summary(rounds: list[list[Answer]]) -> dict[str, Any]:
    """Busy answers' times at the socket (p50, p95, each round's p95) and as read here."""
    busy = [[a for a in answers if a.status == 503] for answers in rounds]
    arrived = [a.arrived_ms for answers in busy for a in answers]
    searches = [a.arrived_ms for answers in rounds for a in answers if answered(a.body)]
    return {
        "busy": len(arrived),
        "busy_p50_ms": _ms(arrived, 50),
        "busy_p95_ms": _ms(arrived, 95),
        "median_round_p95_ms": round(
            statistics.median(percentile([a.arrived_ms for a in b], 95) for b in busy if b), 1
        ),
        "busy_p95_read_ms": _ms([a.read_ms for answers in busy for a in answers], 95),
        "answered": len(searches),
        "answered_p50_ms": _ms(searches, 50),
    }


async def measure(urls: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    rounds: dict[str, list[list[Answer]]] = {v: [] for v in urls}
    for url in urls.values():  # plans cached, models warm
        await crowd(url, 4, 0)
    for n in range(args.rounds):
        order = list(urls) if n % 2 == 0 else list(reversed(urls))
        for variant in order:
            rounds[variant].append(await crowd(urls[variant], args.clients, n * args.clients))
            await asyncio.sleep(args.pause)
    return {v: summary(r) for v, r in rounds.items()}


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    await seed(settings, args.messages)
    ports = {v: free_port() for v in VARIANTS}
    common = dict(pair.split("=", 1) for pair in args.env)
    servers = [start_server(settings, ports[v], {**common, **env}) for v, env in VARIANTS.items()]
    try:
        urls = {v: f"http://127.0.0.1:{port}" for v, port in ports.items()}
        variants = await measure(urls, args)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=60)
    result = {
        "clients": args.clients,
        "rounds": args.rounds,
        "server_env": common,
        "variants": variants,
        "ratio_busy_p95": round(
            (variants["door"]["busy_p95_ms"] or 0) / (variants["app"]["busy_p95_ms"] or 1), 2
        ),
    }
    Console().print(result)
    write_result(args.out, result, "bench.crowd")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between crowds")
    parser.add_argument("--messages", type=int, default=200, help="per scope, seeded once")
    parser.add_argument("--env", nargs="*", default=[], help="KEY=VALUE for both servers")
    parser.add_argument("--out", default="crowd.json", help="file name in bench/results/")
    asyncio.run(main(parser.parse_args()))
