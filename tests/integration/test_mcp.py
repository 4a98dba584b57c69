"""The MCP server through the SDK's own client, against a real Neo4j: over streamable HTTP on the
API app (in process) with API keys, and over stdio (`python -m service.cli mcp`) in its scope."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from service.api.app import create_app
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget
from tests.unit.test_mcp import TOOLS

pytestmark = pytest.mark.integration

KEY_ALICE = "alice-key-0123456789"
KEY_ADMIN = "admin-key-0123456789"
BASE = "http://127.0.0.1:8300"  # loopback: the SDK's DNS-rebinding check accepts the Host
REPO = Path(__file__).resolve().parents[2]

Connect = Callable[[str], AbstractAsyncContextManager[Client]]


@pytest.fixture
def connect(mem: MemoryService, neo4j_target: Neo4jTarget) -> Connect:
    """Open an MCP client with an API key (alice's, or an admin's) on a running app."""
    settings = neo4j_target.settings(
        api_keys={
            KEY_ALICE: {"principal": "alice-app", "user_ids": ["alice"]},
            KEY_ADMIN: {"principal": "admin"},
        }
    )
    return lambda key: mcp_client(create_app(settings, memory=mem), {"X-API-Key": key})


@asynccontextmanager
async def mcp_client(app: FastAPI, headers: dict[str, str]) -> AsyncIterator[Client]:
    """An MCP client over streamable HTTP on the app, in process, with its lifespan running
    (the MCP session manager runs there; it must start and stop in the test's own task)."""
    transport = httpx2.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=transport, base_url=BASE, headers=headers) as http,
        Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client,
    ):
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; fails the test on a tool error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """A tool error's text, without the SDK's "Error executing tool <name>: " prefix."""
    text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
    return text.split(": ", 1)[1] if text.startswith("Error executing tool ") else text


async def test_http_serves_every_tool_in_the_keys_scope(connect: Connect) -> None:
    async with connect(KEY_ALICE) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        added = await call(
            client,
            "add_messages",
            messages=[
                {
                    "content": "I moved to Lisbon last year and I work at Acme Robotics now.",
                    "speaker": "Alice",
                    "timestamp": "2025-03-10T09:00:00Z",
                },
                {
                    "content": "My sister Maria lives in Porto.",
                    "speaker": "Alice",
                    "timestamp": "2025-03-10T09:01:00Z",
                },
            ],
        )
        assert added["added"] and len(added["message_ids"]) == 2

        hits = (await call(client, "search", query="Where does Alice work?"))["hits"]
        acme = next(h for h in hits if "Acme" in h["text"])
        assert acme["line"].startswith("[2025-03-10, Alice] ") and acme["speaker"] == "Alice"
        window = await call(
            client,
            "search",
            query="Acme",
            time_from="2025-03-01T00:00:00Z",
            time_to="2025-04-01T00:00:00Z",
            clock="SAID",
        )
        assert any("Acme" in h["text"] for h in window["hits"])
        before = await call(
            client,
            "search",
            query="Acme",
            time_from="2024-01-01T00:00:00Z",
            time_to="2024-02-01T00:00:00Z",
            clock="SAID",
        )
        assert before["hits"] == []

        block = await call(client, "context", query="Alice's job", token_budget=200)
        assert "Acme" in block["text"] and acme["id"] in block["memory_ids"]

        entity = await call(client, "entity", name="Acme Robotics")
        assert entity["memories"] and "Acme" in entity["memories"][0]["text"]
        assert "Alice" in {n["name"] for n in entity["neighbors"]}
        path = await call(client, "path", source="Acme Robotics", target="Alice")
        assert path["entities"][0] == "Acme Robotics" and path["entities"][-1] == "Alice"
        assert path["steps"][0]["memories"]

        page = await call(client, "list_memories", first=1)
        assert page["total_count"] >= 2 and page["has_next_page"]
        rest = await call(client, "list_memories", first=50, after=page["end_cursor"])
        assert len(rest["memories"]) == page["total_count"] - 1

        got = await call(client, "get_memory", memory_id=acme["id"])
        assert got["id"] == acme["id"] and got["user_id"] == "alice"
        text = "Alice works at Globex Robotics now."
        updated = await call(client, "update_memory", memory_id=acme["id"], text=text)
        assert updated["text"] == text
        deleted = await call(client, "delete_memory", memory_id=acme["id"])
        assert deleted["memory_id"] == acme["id"]
        gone = await client.call_tool("get_memory", {"memory_id": acme["id"]})
        assert gone.is_error and error_text(gone).startswith("NotFound: ")

        verbatim = await call(client, "add_memory", text="Alice prefers tea to coffee.")
        got = await call(client, "get_memory", memory_id=verbatim["added"][0])
        assert got["text"] == "Alice prefers tea to coffee."

        dry = await call(client, "forget")
        assert dry["dry_run"] is True and verbatim["added"][0] in dry["memory_ids"]
        assert (await call(client, "list_memories"))["total_count"] == len(dry["memory_ids"])
        done = await call(client, "forget", dry_run=False)
        assert done["verified"] is True
        assert (await call(client, "list_memories"))["total_count"] == 0


async def test_http_key_may_not_touch_another_user(connect: Connect, mem: MemoryService) -> None:
    await mem.add([{"content": "Bob leads the secret project Redwood."}], Scope(user_id="bob"))
    async with connect(KEY_ALICE) as client:
        for tool, arguments in (
            ("search", {"query": "secret project"}),
            ("list_memories", {}),
            ("forget", {"dry_run": False}),
        ):
            result = await client.call_tool(tool, {**arguments, "user_id": "bob"})
            assert result.is_error, tool
            assert error_text(result) == "Forbidden: this key may not touch user_id 'bob'"
    async with connect(KEY_ADMIN) as admin:
        hits = (await call(admin, "search", query="secret project", user_id="bob"))["hits"]
        assert [h["text"] for h in hits] == ["Bob leads the secret project Redwood."]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def test_http_refuses_a_missing_or_unknown_key(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    settings = neo4j_target.settings(api_keys={KEY_ALICE: {"principal": "alice-app"}})
    app = create_app(settings, memory=mem)
    transport = httpx2.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=transport, base_url=BASE, headers=ACCEPT) as http,
    ):
        for key in ({}, {"X-API-Key": "not-a-key-at-all-000"}):
            response = await http.post("/mcp", json=INITIALIZE, headers=key)
            assert response.status_code == 401
        answered = await http.post("/mcp", json=INITIALIZE, headers={"X-API-Key": KEY_ALICE})
        assert answered.status_code == 200 and answered.json()["result"]["serverInfo"]


async def test_http_local_mode_needs_no_key(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    await mem.add([{"content": "Carol keeps bees on her roof."}], Scope(user_id="carol"))
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    async with mcp_client(app, {}) as client:
        page = await call(client, "list_memories", user_id="carol")
        assert [m["text"] for m in page["memories"]] == ["Carol keeps bees on her roof."]
        unscoped = await client.call_tool("list_memories", {})
        assert unscoped.is_error and "InvalidInput: scope: " in error_text(unscoped)


async def test_expected_failures_are_tool_errors_not_tracebacks(connect: Connect) -> None:
    async with connect(KEY_ALICE) as client:
        empty = await client.call_tool("add_messages", {"messages": []})
        assert empty.is_error and error_text(empty) == "InvalidInput: no messages to add"
        missing = await client.call_tool("entity", {"name": "Nobody Known"})
        assert missing.is_error
        assert error_text(missing) == "NotFound: no entity named 'Nobody Known' in this scope"
        bad = await client.call_tool("search", {"query": "x", "time_phrase": "\x00"})
        assert bad.is_error and error_text(bad).startswith("InvalidInput: ")
        assert "Traceback" not in error_text(bad)


async def test_stdio_serves_the_configured_scope(neo4j_target: Neo4jTarget, clean_db: None) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "ENGRAM_MCP_USER_ID": "dana",
        "ENGRAM_NEO4J_URI": neo4j_target.uri,
        "ENGRAM_NEO4J_USER": neo4j_target.user,
        "ENGRAM_NEO4J_PASSWORD": neo4j_target.password,
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "service.cli", "mcp"], env=env, cwd=str(REPO)
    )
    async with Client(params, read_timeout_seconds=120) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        added = await call(
            client,
            "add_messages",
            messages=[
                {"content": "I adopted a golden retriever puppy called Biscuit.", "speaker": "Dana"}
            ],
        )
        assert added["added"]
        hits = (await call(client, "search", query="Dana's dog"))["hits"]
        assert hits and "Biscuit" in hits[0]["text"]
        other = await client.call_tool("search", {"query": "dog", "user_id": "erin"})
        assert other.is_error
        assert error_text(other) == "Forbidden: this key may not touch user_id 'erin'"
