"""Admission without a database: which paths are limited, the busy answers, the deadline."""

from __future__ import annotations

import json
import time

import pytest

from service.api.admission import Surface, busy_response, limited_surface
from service.core.config import Settings
from service.core.deadline import deadline_after, deadline_passed, transaction_timeout
from service.core.errors import QueryTimeoutError


@pytest.mark.parametrize(
    ("scope_type", "path", "surface"),
    [
        ("http", "/graphql", Surface.GRAPHQL),
        ("http", "/graphql/", Surface.GRAPHQL),
        ("http", "/mcp", Surface.MCP),
        ("http", "/healthz", None),
        ("http", "/metrics", None),
        ("http", "/graphiql-assets/graphiql.min.js", None),
        ("http", "/graphqlx", None),
        ("websocket", "/graphql", None),
    ],
)
def test_only_graphql_and_mcp_are_limited(scope_type: str, path: str, surface: Surface) -> None:
    assert limited_surface({"type": scope_type, "path": path}) is surface


def test_busy_answers_say_busy_and_when_to_retry() -> None:
    settings = Settings.model_construct(max_requests_in_flight=3, busy_retry_after_s=5)
    graphql = busy_response(Surface.GRAPHQL, settings)
    assert graphql.status_code == 503 and graphql.headers["Retry-After"] == "5"
    [error] = json.loads(bytes(graphql.body))["errors"]
    assert error["extensions"] == {"code": "Busy", "retryAfter": 5}
    assert "3 requests" in error["message"]
    mcp = json.loads(bytes(busy_response(Surface.MCP, settings).body))
    assert mcp["jsonrpc"] == "2.0" and mcp["error"]["message"].startswith("Busy: ")


def test_no_deadline_outside_a_request() -> None:
    assert transaction_timeout() is None and not deadline_passed()
    with deadline_after(None):
        assert transaction_timeout() is None


def test_a_transaction_gets_what_is_left_of_the_deadline() -> None:
    with deadline_after(30.0):
        left = transaction_timeout()
        assert left is not None and 0 < left <= 30.0 and not deadline_passed()
    assert transaction_timeout() is None  # the block's deadline ends with it


def test_past_the_deadline_no_transaction_starts() -> None:
    with deadline_after(0.0):
        time.sleep(0.001)
        assert deadline_passed()
        with pytest.raises(QueryTimeoutError):
            transaction_timeout()
