"""Overload fails fast, against a real Neo4j: past ENGRAM_MAX_REQUESTS_IN_FLIGHT a request is
answered Busy at once, and a query that outlives ENGRAM_REQUEST_TIMEOUT_S writes nothing.

A request is held in flight without timing: a transaction of the test's own holds a write
lock on the scope's entities, so an add that mentions one waits inside its write transaction,
its messages and memories already written there, until the lock or its deadline goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest

from neo4j import AsyncGraphDatabase
from service.api.app import create_app
from service.domain import Scope
from service.memory import Memory
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
  search(query: $q, scope: $scope) { __typename }
}"""
SCOPE = {"userId": "ola"}
KNOWN = [{"content": "Ola works at Acme Robotics in Oslo.", "speaker": "Ola"}]
MENTIONS_KNOWN = [{"content": "Ola is moving from Oslo to Bergen next spring.", "speaker": "Ola"}]
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
async def known_scope(mem: Memory) -> Memory:
    """A scope whose speaker and places are already Entity nodes."""
    await mem.add(KNOWN, Scope(user_id="ola"))
    return mem


def client_for(mem: Memory, target: Neo4jTarget, **settings: object) -> httpx.AsyncClient:
    """An HTTP client of an app over ``mem`` with these settings (no API keys: local mode)."""
    app = create_app(target.settings(auth_mode="local", **settings), memory=mem)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")


def add_request(messages: list[dict[str, str]]) -> dict[str, object]:
    return {"query": ADD, "variables": {"messages": messages, "scope": SCOPE}}


def held_add(client: httpx.AsyncClient) -> asyncio.Task[httpx.Response]:
    """Start an add that mentions the known entities: under lock_entities it waits in Neo4j."""
    return asyncio.create_task(client.post("/graphql", json=add_request(MENTIONS_KNOWN)))


async def test_past_the_limit_the_answer_is_busy_at_once(
    known_scope: Memory, neo4j_target: Neo4jTarget
) -> None:
    search = {"query": SEARCH, "variables": {"q": "where", "scope": SCOPE}}
    async with client_for(
        known_scope, neo4j_target, max_requests_in_flight=1, busy_retry_after_s=2
    ) as client:
        async with lock_entities(neo4j_target):
            held = held_add(client)
            while await gauge(client, "engram_requests_in_flight") < 1:
                await asyncio.sleep(0.02)

            refused = await client.post("/graphql", json=search)
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "2"
            [error] = refused.json()["errors"]
            assert error["extensions"] == {"code": "Busy", "retryAfter": 2}
            mcp = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert mcp.status_code == 503 and mcp.json()["error"]["message"].startswith("Busy:")
            assert (await client.get("/healthz")).status_code == 200  # never limited
            assert not held.done()
        # The lock is gone: the held add lands, and the slot it took is free again.
        done = await asyncio.wait_for(held, WAIT_S)
        assert done.json()["data"]["addMessages"]["__typename"] == "AddMessagesSuccess"
        again = await client.post("/graphql", json=search)
        assert again.json()["data"]["search"]["__typename"] == "SearchHits"
        samples = parse((await client.get("/metrics")).text)
    assert value(samples, "engram_errors_total", surface="graphql", kind="Busy") == 1
    assert value(samples, "engram_errors_total", surface="mcp", kind="Busy") == 1


async def test_a_write_past_its_deadline_is_rolled_back_whole(
    known_scope: Memory, neo4j_target: Neo4jTarget
) -> None:
    before = await node_count(neo4j_target)
    async with client_for(known_scope, neo4j_target, request_timeout_s=DEADLINE_S) as client:
        async with lock_entities(neo4j_target):
            add = held_add(client)
            # The add waits inside its write transaction, its messages and memories written.
            while not add.done() and await blocked_transactions(neo4j_target) == 0:
                await asyncio.sleep(0.05)
            assert not add.done(), "the add never reached its write transaction"
            answer = await asyncio.wait_for(add, WAIT_S)  # with the lock still held
        samples = parse((await client.get("/metrics")).text)

    assert answer.json()["data"]["addMessages"]["__typename"] == "TimedOut"
    assert await node_count(neo4j_target) == before
    assert value(samples, "engram_errors_total", surface="graphql", kind="TimedOut") == 1


async def test_an_mcp_tool_past_its_deadline_writes_nothing(
    known_scope: Memory, neo4j_target: Neo4jTarget
) -> None:
    """The deadline reaches the tools, which run in a task the MCP SDK starts per request."""
    before = await node_count(neo4j_target)
    settings = neo4j_target.settings(auth_mode="local", request_timeout_s=DEADLINE_S)
    app = create_app(settings, memory=known_scope)
    async with mcp_client(app, {}) as client, lock_entities(neo4j_target):
        call = client.call_tool("add_messages", {"messages": MENTIONS_KNOWN, "user_id": "ola"})
        result = await asyncio.wait_for(call, WAIT_S)
    assert result.is_error and error_text(result).startswith("TimedOut:")
    assert await node_count(neo4j_target) == before
