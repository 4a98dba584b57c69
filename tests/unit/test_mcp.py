"""The MCP layer without a database: scope narrowing, error mapping, the stdio scope, the tool
schemas, and a refused call through the SDK's in-process client."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent

from service.core.auth import ANY, Principal
from service.core.config import Settings
from service.core.domain import Clock, Scope
from service.core.errors import (
    ConfigurationError,
    DatabaseUnavailableError,
    ForbiddenError,
    NotFoundError,
    ValidationError,
)
from service.mcp.tools import Binding, build_server, scope_for, time_filter, tool_errors
from service.mcp.transports import stdio_principal

ALICE_ONLY = Principal("alice-app", frozenset({"alice"}), frozenset({ANY}), frozenset({ANY}))
ANYONE = Principal.unrestricted("admin")


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_a_call_naming_no_scope_gets_the_principals_one_user() -> None:
    assert scope_for(ALICE_ONLY, None, None, None) == Scope(user_id="alice")
    assert scope_for(ALICE_ONLY, None, "planner", None) == Scope(
        user_id="alice", agent_id="planner"
    )


def test_a_call_naming_another_user_is_forbidden() -> None:
    with pytest.raises(ForbiddenError, match="may not touch user_id 'bob'"):
        scope_for(ALICE_ONLY, "bob", None, None)


def test_an_unrestricted_principal_must_name_a_scope() -> None:
    with pytest.raises(ValidationError, match=r"scope: .*at least one of user_id"):
        scope_for(ANYONE, None, None, None)
    with pytest.raises(ValidationError, match="scope: "):
        scope_for(ANYONE, "", None, None)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (NotFoundError("no memory 'm1' in this scope"), "NotFound: no memory 'm1' in this scope"),
        (
            ForbiddenError("this key may not touch user_id 'x'"),
            "Forbidden: this key may not touch user_id 'x'",
        ),
        (ValidationError("no messages to add"), "InvalidInput: no messages to add"),
        (
            DatabaseUnavailableError("bolt://secret-host:7687 refused"),
            "DatabaseUnavailable: the database is unavailable; retry later",
        ),
    ],
)
def test_engram_errors_become_tool_errors_named_as_in_graphql(error: Exception, text: str) -> None:
    with pytest.raises(ToolError) as raised, tool_errors():
        raise error
    assert str(raised.value) == text


def test_unexpected_errors_are_left_to_the_sdk_which_masks_them() -> None:
    with pytest.raises(KeyError), tool_errors():
        raise KeyError("internal detail")


def test_time_filter_from_flat_arguments() -> None:
    assert time_filter(None, None, None, "SAID") is None
    window = time_filter("last month", None, None, "HAPPENED")
    assert window is not None and window.phrase == "last month" and window.clock is Clock.HAPPENED


def test_stdio_needs_a_configured_scope() -> None:
    with pytest.raises(ConfigurationError, match="ENGRAM_MCP_USER_ID"):
        stdio_principal(settings())


def test_stdio_principal_is_limited_to_the_configured_ids() -> None:
    principal = stdio_principal(settings(mcp_user_id="dana", mcp_principal="desktop"))
    assert principal.name == "desktop"
    assert principal.user_ids == {"dana"} and principal.agent_ids == {ANY}
    assert scope_for(principal, None, None, None) == Scope(user_id="dana")


def _no_memory(_: object) -> Any:
    raise AssertionError("a refused call must not reach the Memory service")


# Every tool an MCP client must find (the integration test calls each of them).
TOOLS = {
    "add_messages",
    "add_memory",
    "search",
    "context",
    "entity",
    "path",
    "profile",
    "changes",
    "list_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "forget",
}


async def test_tools_and_their_schemas() -> None:
    server = build_server(Binding(_no_memory, lambda _: ALICE_ONLY))
    tools = {t.name: t for t in await server.list_tools()}
    assert set(tools) == TOOLS
    search = tools["search"].input_schema["properties"]
    assert search["clock"]["anyOf"][0]["enum"] == ["SAID", "HAPPENED"]
    assert tools["forget"].input_schema["properties"]["dry_run"]["default"] is True
    assert tools["forget"].annotations is not None and tools["forget"].annotations.destructive_hint
    assert all(t.output_schema for t in tools.values())


async def test_a_forbidden_call_is_an_error_result_in_process() -> None:
    server = build_server(Binding(_no_memory, lambda _: ALICE_ONLY))
    async with Client(server) as client:
        result = await client.call_tool("search", {"query": "x", "user_id": "bob"})
    assert result.is_error
    text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
    assert text == "Error executing tool search: Forbidden: this key may not touch user_id 'bob'"
