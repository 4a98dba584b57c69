"""Shared bench plumbing: a Neo4j of its own (unless ENGRAM_NEO4J_URI is set), results, stats."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from service.core.config import Settings
from service.store.local_server import LocalNeo4j

RESULTS = Path(__file__).resolve().parent / "results"
BENCH_DATA = Path.home() / ".cache" / "engram" / "bench-data"


def bench_settings(**overrides: Any) -> Settings:
    """Settings from the environment; without a URI, a local server on bench-only ports/data."""
    settings = Settings()
    if settings.neo4j_uri is None:
        local = {
            "data_dir": BENCH_DATA,
            "neo4j_bolt_port": 7698,
            "neo4j_http_port": 7485,
            "neo4j_heap": "2g",
            "neo4j_pagecache": "1g",
        }
        settings = settings.model_copy(update={**local, **overrides})
    return settings


@contextmanager
def scratch_neo4j(settings: Settings, bolt_port: int, http_port: int) -> Iterator[Settings]:
    """``settings`` as they are when they name a Neo4j (ENGRAM_NEO4J_URI), else a throw-away
    local server on these ports in a temporary folder, stopped and deleted after."""
    if settings.neo4j_uri is not None:
        yield settings
        return
    folder = Path(tempfile.mkdtemp(prefix="engram-bench-neo4j-"))
    local = {"data_dir": folder, "neo4j_bolt_port": bolt_port, "neo4j_http_port": http_port}
    settings = settings.model_copy(update=local)
    server = LocalNeo4j(settings)
    server.start()
    try:
        yield settings
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def ensure_neo4j(settings: Settings) -> None:
    if settings.uses_local_server:
        LocalNeo4j(settings).start()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    settings: Settings,
    port: int,
    extra_env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> subprocess.Popen[bytes]:
    """`engram serve` (or ``command``, which serves the app itself) with local auth on
    ``port`` against the settings' Neo4j, once /healthz answers."""
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
            command or [engram, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=stderr
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


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def summary_ms(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "mean": round(statistics.fmean(values), 2) if values else float("nan"),
    }


def write_result(name: str, payload: dict[str, Any], module: str) -> Path:
    """bench/results/<name> with the exact command that produced it."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    command = f".venv/bin/python -m {module} {shlex.join(sys.argv[1:])}".strip()
    payload = {**payload, "command": command}
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    return path
