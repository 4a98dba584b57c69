"""Soak: several clients add and search concurrently against one `engram serve` for a while.

    .venv/bin/python -m bench.soak --clients 6 --seconds 180

The server is a separate process (uvicorn, local auth) on the bench Neo4j. Each client owns a
scope, sends batches of 4 messages with unique ids and searches its own scope in turn; at the
end the Message nodes of every scope are counted against the adds that were acknowledged:
nothing acknowledged may be missing. Reports requests, errors, latency p50/p95 by operation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from bench.common import bench_settings, ensure_neo4j, summary_ms, write_result
from bench.scale import free_port
from bench.synthetic import synthetic_messages
from service.client import EngramClient
from service.core.config import Settings
from service.core.domain import Scope
from service.core.errors import EngramError
from service.memory import MemoryService

QUESTIONS = [
    "What hobby did they start?",
    "Where did they travel?",
    "Who adopted a dog?",
    "What did they say last week?",
    "Where does the sister live?",
]


def start_server(
    settings: Settings, port: int, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ENGRAM_AUTH_MODE": "local",
        "ENGRAM_API_PORT": str(port),
        "ENGRAM_NEO4J_URI": settings.bolt_uri,
        **(extra_env or {}),
    }
    engram = str(Path(sys.executable).parent / "engram")
    # Its log goes to a file: a pipe nobody reads fills up (an access line per request) and
    # then blocks the server mid-request.
    log = Path(tempfile.gettempdir()) / f"engram-bench-serve-{port}.log"
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            [engram, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError(f"the server did not come up within 120 s; its log: {log}")


async def client_loop(
    url: str, index: int, seconds: float, stats: dict[str, list[float]], errors: dict[str, int]
) -> int:
    """One client until the time is up; returns how many messages were acknowledged."""
    acknowledged, batch = 0, 0
    messages = synthetic_messages(4000, seed=index)
    rng = random.Random(index)
    deadline = time.monotonic() + seconds
    async with EngramClient(url, timeout_s=60) as engram:
        while time.monotonic() < deadline:
            chunk = messages[batch * 4 : batch * 4 + 4]
            payload = [
                {
                    "content": m.content,
                    "speaker": m.speaker,
                    "id": f"c{index}-{m.id}",
                    "timestamp": m.timestamp.isoformat() if m.timestamp else None,
                }
                for m in chunk
            ]
            user = f"soak-{index}"
            add = engram.add(payload, user_id=user)
            acknowledged += await timed(stats, errors, "add", add, len(chunk))
            batch += 1
            search = engram.search(rng.choice(QUESTIONS), user_id=user)
            await timed(stats, errors, "search", search, 0)
    return acknowledged


async def timed(
    stats: dict[str, list[float]], errors: dict[str, int], op: str, call: Any, worth: int
) -> int:
    began = time.perf_counter()
    try:
        await call
    except (EngramError, httpx.HTTPError) as e:
        errors[f"{op}: {type(e).__name__}"] += 1
        return 0
    stats[op].append((time.perf_counter() - began) * 1000)
    return worth


async def count_messages(settings: Settings, clients: int) -> list[int]:
    memory = await MemoryService.start(settings)
    try:
        return [
            (await memory.store.counts(Scope(user_id=f"soak-{i}"))).get("Message", 0)
            for i in range(clients)
        ]
    finally:
        await memory.close()


async def wipe(settings: Settings, clients: int) -> None:
    memory = await MemoryService.start(settings)
    try:
        for i in range(clients):
            await memory.store.delete_scope(Scope(user_id=f"soak-{i}"))
    finally:
        await memory.close()


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    await wipe(settings, args.clients)
    port = free_port()
    server = start_server(settings, port)
    stats: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    try:
        url = f"http://127.0.0.1:{port}"
        acked = await asyncio.gather(
            *(client_loop(url, i, args.seconds, stats, errors) for i in range(args.clients))
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    stored = await count_messages(settings, args.clients)
    result = {
        "clients": args.clients,
        "seconds": args.seconds,
        "requests": {op: len(v) for op, v in stats.items()},
        "errors": dict(errors),
        "latency_ms": {op: summary_ms(v) for op, v in stats.items()},
        "messages_acknowledged": sum(acked),
        "messages_stored": sum(stored),
        "nothing_lost": all(s >= a for s, a in zip(stored, acked, strict=True)),
    }
    Console().print(result)
    write_result("soak.json", result, "bench.soak")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=180)
    asyncio.run(main(parser.parse_args()))
