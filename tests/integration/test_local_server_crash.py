"""A SIGKILLed local Neo4j comes back with `start()`, without anyone deleting a pid file.

As under `make run`: a long-lived process (standing in for `engram serve`) starts the server
and stays alive; the server is SIGKILLed (an OOM kill); a second process starts it again.
Before the fix the killed server stayed a zombie of the first process, its pid still
answered, and Neo4j's launcher refused to start. The test runs its own Neo4j (ports
7887 / 7674, a throw-away data folder) and stops it at the end.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from neo4j import GraphDatabase
from service.core.config import Settings
from service.store.local_server import LocalNeo4j, PidVerdict, ServerState

CHECKOUT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration

BOLT_PORT, HTTP_PORT = 7887, 7674
# What `engram serve` does with the local server: start it, then keep running.
HOLDER = """
import sys, time
from pathlib import Path
from service.core.config import Settings
from service.store.local_server import LocalNeo4j
settings = Settings(_env_file=None, data_dir=Path(sys.argv[1]), neo4j_bolt_port=int(sys.argv[2]),
                    neo4j_http_port=int(sys.argv[3]), neo4j_heap="512m", neo4j_pagecache="256m")
print(LocalNeo4j(settings).start().pid, flush=True)
time.sleep(600)
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LocalNeo4j]:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", BOLT_PORT)) == 0:
            pytest.fail(f"port {BOLT_PORT} is taken: the crash test needs its own Neo4j there")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path,
        neo4j_bolt_port=BOLT_PORT,
        neo4j_http_port=HTTP_PORT,
        neo4j_heap="512m",
        neo4j_pagecache="256m",
    )
    server = LocalNeo4j(settings)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def started_by_serve(server: LocalNeo4j) -> Iterator[int]:
    """The server's pid, started by a process like `engram serve` that keeps running."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    args = [str(server._settings.data_dir), str(BOLT_PORT), str(HTTP_PORT)]
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *args], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait()


def bolt_answers(uri: str) -> bool:
    with GraphDatabase.driver(uri, auth=None) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one")
        return bool(records[0]["one"] == 1)


def test_start_recovers_from_a_sigkilled_server(server: LocalNeo4j, started_by_serve: int) -> None:
    assert server.status().state is ServerState.RUNNING
    assert server.status().pid == started_by_serve

    os.kill(started_by_serve, signal.SIGKILL)
    killed_at = time.monotonic()
    deadline = killed_at + 10
    while server.status().state is not ServerState.CRASHED:
        assert time.monotonic() < deadline, f"status after the kill: {server.status()}"
        time.sleep(0.1)
    left = {check.verdict for check in server.status().stale}
    assert left <= {PidVerdict.GONE, PidVerdict.ZOMBIE}

    status = server.start()
    assert bolt_answers(status.bolt_uri)
    took = time.monotonic() - killed_at
    print(f"SIGKILL to Bolt answering again after start(): {took:.1f}s")
    assert status.running and status.pid != started_by_serve
    assert {check.pid for check in status.removed} == {started_by_serve}
    assert server.status().stale == ()
