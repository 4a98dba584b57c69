"""Overload, against a real Neo4j: writes past their slots wait their turn up to a bound and
are then all written; past the bound a write is answered Busy at once, while reads keep their
own slots; a query that outlives ENGRAM_REQUEST_TIMEOUT_S writes nothing.

A request is held in flight without timing: a transaction of the test's own holds a write
lock on the scope's entities, so an add that mentions one waits inside its write transaction,
its messages and memories already written there, until the lock or its deadline goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from neo4j import AsyncGraphDatabase
from service.api.app import create_app
from service.api.door import DoorProtocol
from service.client import EngramClient
from service.core.domain import Scope
from service.core.errors import BusyError
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.integration.test_mcp import error_text, mcp_client
from tests.integration.test_metrics import parse, value

pytestmark = pytest.mark.integration

ADD = """
mutation Add($messages: [MessageInput!]!, $scope: ScopeInput!) {
  addMessages(messages: $messages, scope: $scope) {
    __typename
    ... on AddMessagesSuccess { added }
    ... on TimedOut { message }
  }
}"""
SEARCH = """
query Search($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope) { __typename ... on TimedOut { message } }
}"""
SCOPE = {"userId": "ola"}
KNOWN = [{"content": "Ola works at Acme Robotics in Oslo.", "speaker": "Ola"}]
MENTIONS_KNOWN = [{"content": "Ola is moving from Oslo to Bergen next spring.", "speaker": "Ola"}]
KAYAK_TEXT = "Ola bought a sea kayak last weekend."
KAYAK = [{"content": KAYAK_TEXT, "speaker": "Ola"}]
# Generous: the held add must reach its write transaction before the deadline passes.
DEADLINE_S = 3.0
WAIT_S = 60.0  # what a hang would look like, instead of a stuck test run


@asynccontextmanager
async def lock_entities(target: Neo4jTarget) -> AsyncIterator[None]:
    """Hold a write lock on every Entity until the block ends; then give it up unchanged."""
    auth = (target.user, target.password) if target.password else None
    async with (
        AsyncGraphDatabase.driver(target.uri, auth=auth) as driver,
        driver.session() as session,
    ):
        tx = await session.begin_transaction()
        try:
            await (await tx.run("MATCH (e:Entity) SET e.held = true")).consume()
            yield
        finally:
            await tx.rollback()


async def node_count(target: Neo4jTarget) -> int:
    [row] = await run_cypher(target, "MATCH (n) RETURN count(n) AS n")
    return int(str(row["n"]))


async def blocked_transactions(target: Neo4jTarget) -> int:
    rows = await run_cypher(
        target, "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN status"
    )
    return len(rows)


async def gauge(client: httpx.AsyncClient, name: str) -> float:
    response = await client.get("/metrics")
    assert response.status_code == 200  # never limited
    return value(parse(response.text), name)


@pytest.fixture
async def known_scope(mem: MemoryService) -> MemoryService:
    """A scope whose speaker and places are already Entity nodes."""
    await mem.add(KNOWN, Scope(user_id="ola"))
    return mem


def app_for(mem: MemoryService, target: Neo4jTarget, **settings: object) -> FastAPI:
    """An app over ``mem`` with these settings (no API keys: local mode)."""
    return create_app(target.settings(auth_mode="local", **settings), memory=mem)


def client_for(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")


@dataclass(frozen=True)
class Link:
    """How a test reaches its app: an httpx client, and the URL and transport to give
    EngramClient."""

    client: httpx.AsyncClient
    url: str
    transport: httpx.AsyncBaseTransport | None


Served = Callable[[FastAPI], AbstractAsyncContextManager[Link]]


@asynccontextmanager
async def in_process(app: FastAPI) -> AsyncIterator[Link]:
    transport = httpx.ASGITransport(app=app)
    async with client_for(app) as client:
        yield Link(client, "http://x", transport)


@asynccontextmanager
async def through_the_door(app: FastAPI) -> AsyncIterator[Link]:
    """``app`` served over TCP by uvicorn with the door, as `engram serve` serves it."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=DoorProtocol, log_level="warning")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(WAIT_S):
            while not server.started:
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url, timeout=WAIT_S) as client:
            yield Link(client, url, None)
    finally:
        server.should_exit = True
        await serving


@pytest.fixture(params=["in process", "through the door"])
def served(request: pytest.FixtureRequest) -> Served:
    """Each overload test both ways: the door decides what it can before the app runs, and
    AdmissionLimit the rest, so both must give the same answers."""
    return in_process if request.param == "in process" else through_the_door


def add_request(messages: list[dict[str, str]]) -> dict[str, object]:
    return {"query": ADD, "variables": {"messages": messages, "scope": SCOPE}}


def held_add(client: httpx.AsyncClient) -> asyncio.Task[httpx.Response]:
    """Start an add that mentions the known entities: under lock_entities it waits in Neo4j."""
    return asyncio.create_task(client.post("/graphql", json=add_request(MENTIONS_KNOWN)))


async def until_gauge(client: httpx.AsyncClient, name: str, at_least: float) -> None:
    while await gauge(client, name) < at_least:
        await asyncio.sleep(0.02)


async def test_past_the_bound_a_write_is_busy_at_once_and_reads_still_run(
    known_scope: MemoryService, neo4j_target: Neo4jTarget, served: Served
) -> None:
    search = {"query": SEARCH, "variables": {"q": "where", "scope": SCOPE}}
    app = app_for(
        known_scope,
        neo4j_target,
        max_writes_in_flight=1,
        max_requests_waiting=0,
        busy_retry_after_s=2,
        busy_retry_after_max_s=2,  # no spread (slots.retry_after): the answer is exactly 2
    )
    async with served(app) as link:
        client = link.client
        async with lock_entities(neo4j_target):
            held = held_add(client)
            await until_gauge(client, "engram_requests_in_flight", 1)

            refused = await client.post("/graphql", json=add_request(KNOWN))
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "2"
            [error] = refused.json()["errors"]
            assert error["extensions"] == {"code": "Busy", "retryAfter": 2}
            tool = {"name": "add_messages", "arguments": {"messages": KNOWN, "user_id": "ola"}}
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": tool}
            mcp = await client.post("/mcp", json=call)
            assert mcp.status_code == 503 and mcp.json()["error"]["message"].startswith("Busy:")
            assert (await client.get("/healthz")).status_code == 200  # never limited
            async with EngramClient(link.url, transport=link.transport) as engram:
                with pytest.raises(BusyError) as busy:
                    await engram.add(KNOWN, user_id="ola")
                assert busy.value.retry_after_s == 2
                read = await client.post("/graphql", json=search)  # reads have their own slots
                assert read.json()["data"]["search"]["__typename"] == "SearchHits"
            assert not held.done()
        # The lock is gone: the held add lands, and the slot it took is free again.
        done = await asyncio.wait_for(held, WAIT_S)
        assert done.json()["data"]["addMessages"]["__typename"] == "AddMessagesSuccess"
        again = await client.post("/graphql", json=add_request(KNOWN))
        assert again.json()["data"]["addMessages"]["__typename"] == "AddMessagesSuccess"
        samples = parse((await client.get("/metrics")).text)
    assert value(samples, "engram_errors_total", surface="graphql", kind="Busy") == 2
    assert value(samples, "engram_errors_total", surface="mcp", kind="Busy") == 1


async def test_the_client_retries_a_busy_answer_until_a_slot_is_free(
    known_scope: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    app = app_for(
        known_scope,
        neo4j_target,
        max_writes_in_flight=1,
        max_requests_waiting=0,
        busy_retry_after_s=1,
        busy_retry_after_max_s=1,
    )
    transport = httpx.ASGITransport(app=app)
    async with (
        client_for(app) as client,
        EngramClient("http://x", transport=transport, busy_retries=5) as engram,
    ):
        async with lock_entities(neo4j_target):
            held = held_add(client)
            await until_gauge(client, "engram_requests_in_flight", 1)
            retried = asyncio.create_task(engram.add(KAYAK, user_id="ola"))
            await asyncio.wait_for(refused_once(client), WAIT_S)  # while the slot is taken
        # The lock is gone: the held add ends, and a retry takes the slot it frees.
        await asyncio.wait_for(held, WAIT_S)
        result = await asyncio.wait_for(retried, WAIT_S)
    assert result.added  # written after one or more Busy answers, and only once:
    rows = await run_cypher(
        neo4j_target, "MATCH (m:Message {text: $text}) RETURN count(m) AS n", text=KAYAK_TEXT
    )
    assert rows[0]["n"] == 1


async def refused_once(client: httpx.AsyncClient) -> None:
    """Until the metrics count a Busy answer to a GraphQL request."""
    while True:
        samples = parse((await client.get("/metrics")).text)
        if value(samples, "engram_errors_total", surface="graphql", kind="Busy") >= 1:
            return
        await asyncio.sleep(0.02)


async def test_a_burst_of_adds_waits_its_turn_and_is_all_written(
    known_scope: MemoryService, neo4j_target: Neo4jTarget, served: Served
) -> None:
    burst = [
        [{"content": f"Ola took the ferry from Oslo on day {i}.", "id": f"burst-{i}"}]
        for i in range(12)
    ]
    app = app_for(known_scope, neo4j_target, max_writes_in_flight=1, write_wait_s=WAIT_S)
    async with served(app) as link:
        client = link.client
        async with lock_entities(neo4j_target):
            adds = [
                asyncio.create_task(client.post("/graphql", json=add_request(messages)))
                for messages in burst
            ]
            # One add holds the only write slot, waiting on the lock; the rest wait for it.
            await until_gauge(client, "engram_requests_waiting", len(burst) - 1)
            assert await gauge(client, "engram_requests_in_flight") == 1
        answers = await asyncio.wait_for(asyncio.gather(*adds), WAIT_S)
    kinds = [a.json()["data"]["addMessages"]["__typename"] for a in answers]
    assert kinds == ["AddMessagesSuccess"] * len(burst)
    counts = await known_scope.store.counts(Scope(user_id="ola"))
    assert counts["Message"] == len(KNOWN) + len(burst)


async def test_past_the_waiting_bound_a_write_is_refused_and_those_waiting_are_written(
    known_scope: MemoryService, neo4j_target: Neo4jTarget, served: Served
) -> None:
    settings = {"max_writes_in_flight": 1, "max_requests_waiting": 2, "write_wait_s": WAIT_S}
    app = app_for(known_scope, neo4j_target, **settings)
    async with served(app) as link:
        client = link.client
        async with lock_entities(neo4j_target):
            held = [held_add(client)]
            await until_gauge(client, "engram_requests_in_flight", 1)
            held += [held_add(client), held_add(client)]
            await until_gauge(client, "engram_requests_waiting", 2)
            refused = await client.post("/graphql", json=add_request(KNOWN))
            assert refused.status_code == 503 and "Retry-After" in refused.headers
        answers = await asyncio.wait_for(asyncio.gather(*held), WAIT_S)
    kinds = {a.json()["data"]["addMessages"]["__typename"] for a in answers}
    assert kinds == {"AddMessagesSuccess"}


SendAdd = Callable[[], Coroutine[Any, Any, str]]  # answers the result's type name
Adder = Callable[[FastAPI], AbstractAsyncContextManager[SendAdd]]


@asynccontextmanager
async def over_graphql(app: FastAPI) -> AsyncIterator[SendAdd]:
    """The held add over GraphQL; it answers its result's type name."""
    async with client_for(app) as client:

        async def add() -> str:
            response = await client.post("/graphql", json=add_request(MENTIONS_KNOWN))
            return str(response.json()["data"]["addMessages"]["__typename"])

        yield add


@asynccontextmanager
async def over_mcp(app: FastAPI) -> AsyncIterator[SendAdd]:
    """The held add as an MCP tool call; it answers the error's type name, as GraphQL's."""
    async with mcp_client(app, {}) as client:

        async def add() -> str:
            result = await client.call_tool(
                "add_messages", {"messages": MENTIONS_KNOWN, "user_id": "ola"}
            )
            return error_text(result).split(":")[0] if result.is_error else "AddMessagesSuccess"

        yield add


@pytest.mark.parametrize(("surface", "adder"), [("graphql", over_graphql), ("mcp", over_mcp)])
async def test_a_write_past_its_deadline_is_rolled_back_whole(
    surface: str, adder: Adder, known_scope: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    before = await node_count(neo4j_target)
    app = app_for(known_scope, neo4j_target, request_timeout_s=DEADLINE_S)
    async with adder(app) as send_add, lock_entities(neo4j_target):
        add = asyncio.create_task(send_add())
        # The add waits inside its write transaction, its messages and memories written.
        while not add.done() and await blocked_transactions(neo4j_target) == 0:
            await asyncio.sleep(0.05)
        assert not add.done(), "the add never reached its write transaction"
        answer = await asyncio.wait_for(add, WAIT_S)  # with the lock still held

    assert answer == "TimedOut"
    assert await node_count(neo4j_target) == before
    samples = parse(app.state.metrics.exposition().decode())
    assert value(samples, "engram_errors_total", surface=surface, kind="TimedOut") == 1


async def test_past_its_deadline_a_search_starts_no_query(
    known_scope: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    # A deadline one microsecond after the request arrives has passed before any query.
    app = app_for(known_scope, neo4j_target, request_timeout_s=1e-6)
    async with client_for(app) as client:
        search = {"query": SEARCH, "variables": {"q": "where does Ola work", "scope": SCOPE}}
        answer = await client.post("/graphql", json=search)
    assert answer.json()["data"]["search"]["__typename"] == "TimedOut"
