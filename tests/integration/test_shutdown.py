"""SIGTERM to `engram serve`, against a real Neo4j: it stops taking connections, lets the request
in flight finish, and stops; a request still running at ENGRAM_SHUTDOWN_GRACE_S is cancelled
and its transaction rolled back.

The request is held in flight by the test's own lock on the scope's entities, as in
test_overload.py, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.conftest import Neo4jTarget
from tests.integration.test_overload import (
    WAIT_S,
    blocked_transactions,
    held_add,
    known_scope,  # noqa: F401 (a fixture)
    lock_entities,
    node_count,
)

# Each test's scope already has the entities that the held add mentions.
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("known_scope")]

START_S = 180.0  # the models load in the new process
Served = tuple[subprocess.Popen[bytes], str]  # the process, its URL


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def engram_serve(target: Neo4jTarget, **settings: str) -> Iterator[Served]:
    """`engram serve` on a free port of the test Neo4j (local auth), up; killed if still running."""
    port = free_port()
    env = {
        **os.environ,
        "ENGRAM_AUTH_MODE": "local",
        "ENGRAM_API_PORT": str(port),
        "ENGRAM_NEO4J_URI": target.uri,
        "ENGRAM_NEO4J_USER": target.user,
        "ENGRAM_NEO4J_PASSWORD": target.password,
    }
    env.update({f"ENGRAM_{name.upper()}": value for name, value in settings.items()})
    engram = str(Path(sys.executable).parent / "engram")
    server = subprocess.Popen([engram, "serve"], env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(server, url)
        yield server, url
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()


def wait_for_health(server: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and server.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise AssertionError(f"engram serve did not come up (exit code {server.poll()})")


async def until_blocked(target: Neo4jTarget) -> None:
    """Until a transaction waits for the test's lock: the held add is inside its write."""
    while await blocked_transactions(target) == 0:
        await asyncio.sleep(0.05)


async def until_refused(url: str) -> None:
    """Until the server takes no new connection.

    A connection the kernel queued just before the listener closed is dropped unanswered, which
    is the same refusal seen a moment earlier.
    """
    async with httpx.AsyncClient(base_url=url, timeout=1) as fresh:
        while True:
            try:
                await fresh.get("/healthz")
            except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError):
                return
            await asyncio.sleep(0.05)


async def test_sigterm_lets_the_request_in_flight_finish(neo4j_target: Neo4jTarget) -> None:
    with engram_serve(neo4j_target, request_timeout_s="0", shutdown_grace_s="120") as (server, url):
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_S) as client:
            async with lock_entities(neo4j_target):
                held = held_add(client)
                await asyncio.wait_for(until_blocked(neo4j_target), WAIT_S)
                server.send_signal(signal.SIGTERM)
                await asyncio.wait_for(until_refused(url), WAIT_S)
                assert server.poll() is None and not held.done()  # draining
            answer = await asyncio.wait_for(held, WAIT_S)
        assert answer.json()["data"]["addMessages"]["__typename"] == "AddMessagesSuccess"
        # uvicorn ends a clean shutdown by raising the signal it caught again.
        assert await asyncio.to_thread(server.wait, WAIT_S) in (0, -signal.SIGTERM)


async def test_sigterm_stops_at_the_grace_deadline_and_rolls_back(
    neo4j_target: Neo4jTarget,
) -> None:
    before = await node_count(neo4j_target)
    with engram_serve(neo4j_target, request_timeout_s="0", shutdown_grace_s="1") as (server, url):
        async with (
            httpx.AsyncClient(base_url=url, timeout=WAIT_S) as client,
            lock_entities(neo4j_target),
        ):
            held = held_add(client)
            await asyncio.wait_for(until_blocked(neo4j_target), WAIT_S)
            server.send_signal(signal.SIGTERM)
            # It stops while the lock is still held: the request could never have finished.
            await asyncio.to_thread(server.wait, WAIT_S)
            [outcome] = await asyncio.gather(held, return_exceptions=True)
    assert isinstance(outcome, httpx.HTTPError) or (
        isinstance(outcome, httpx.Response) and outcome.status_code >= 500
    )
    assert await node_count(neo4j_target) == before
