"""The cost of a refusal: the server's CPU per request when nearly every request is refused.

    .venv/bin/python -m bench.refusal_cost --out refusal-cost.json

Under a crowd, a process refuses hundreds of requests a second on the one event loop that
also runs the searches it admitted, and a crowd arriving in one instant is refused one after
another: the last waits for all the refusals ahead of it. So what a refusal costs the loop is
what the last of a crowd waits. Each variant is `engram serve`'s app under uvicorn with one
read slot and no line (ENGRAM_MAX_READS_IN_FLIGHT=1, ENGRAM_MAX_REQUESTS_WAITING=0), so all but
one search at a time is answered Busy; --clients closed-loop clients ask again at once for
--seconds, and the server process's CPU time (user + system, from /proc) is divided by the
requests it answered. Variants, in turn, --rounds times:

- ``h11+access``: uvicorn's pure-Python HTTP parser and its own access line, as `engram serve`
  ran before;
- ``h11``: the same, with only Engram's access line (engram.access);
- ``httptools``: uvicorn's C parser, with only Engram's access line;
- ``door``: the same, refusing at the door (service/api/door.py): `engram serve` now.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.common import bench_settings, ensure_neo4j, free_port, start_server, write_result
from bench.connection import Connection
from bench.overload import SEARCH
from service.core.config import Settings

VARIANTS = {
    "h11+access": ("h11", True),
    "h11": ("h11", False),
    "httptools": ("httptools", False),
    "door": ("service.api.door:DoorProtocol", False),
}
SERVE = """
import sys, uvicorn
from service.api.app import create_app
from service.core.config import get_settings
settings = get_settings()
uvicorn.run(create_app(settings), host="127.0.0.1", port=settings.api_port,
            http=sys.argv[1], access_log=sys.argv[2] == "on")
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, clients: int, seconds: float) -> dict[int, int]:
    """Closed-loop searches from ``clients`` connections; answers counted by status."""
    statuses: dict[int, int] = {}
    body = {"query": SEARCH, "variables": {"q": "where do I work", "scope": {"userId": "rc"}}}
    until = time.monotonic() + seconds

    async def client() -> None:
        connection = Connection(url)
        try:
            while time.monotonic() < until:
                status = (await connection.post("/graphql", body)).status
                statuses[status] = statuses.get(status, 0) + 1
        finally:
            await connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return statuses


def measure(settings: Settings, variant: str, args: argparse.Namespace) -> dict[str, Any]:
    http, access_log = VARIANTS[variant]
    port = free_port()
    # One read slot and no line: all but one search at a time is refused.
    limits = {"ENGRAM_MAX_READS_IN_FLIGHT": "1", "ENGRAM_MAX_REQUESTS_WAITING": "0"}
    serve = [sys.executable, "-c", SERVE, http, "on" if access_log else "off"]
    server = start_server(settings, port, limits, serve)
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(load(url, args.clients, 2.0))  # connections, plans, caches
        began_cpu, began = cpu_seconds(server.pid), time.monotonic()
        statuses = asyncio.run(load(url, args.clients, args.seconds))
        cpu, took = cpu_seconds(server.pid) - began_cpu, time.monotonic() - began
    finally:
        server.terminate()
        server.wait(30)
    answered = sum(statuses.values())
    return {
        "requests_per_s": round(answered / took, 1),
        "busy_share": round(statuses.get(503, 0) / answered, 3),
        "cpu_ms_per_request": round(1000 * cpu / answered, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="refusal-cost.json", help="file name in bench/results/")
    args = parser.parse_args()
    settings = bench_settings()
    ensure_neo4j(settings)
    runs: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            runs[variant].append(measure(settings, variant, args))
    cost = {
        v: round(statistics.median(r["cpu_ms_per_request"] for r in rs), 4)
        for v, rs in runs.items()
    }
    before = cost["h11+access"]
    result = {
        "clients": args.clients,
        "seconds": args.seconds,
        "cpu_ms_per_request": cost,
        "ratio_to_before": {v: round(c / before, 2) for v, c in cost.items()},
        "runs": runs,
    }
    Console().print(result)
    write_result(args.out, result, "bench.refusal_cost")


if __name__ == "__main__":
    main()
