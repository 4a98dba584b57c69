"""Metrics and logs without a database: labels, error kinds, registries, JSON lines."""

from __future__ import annotations

import json
import logging

import pytest
from graphql import parse
from mcp_types import CallToolResult, TextContent
from prometheus_client.parser import text_string_to_metric_families

from service.api.metrics import operation_label
from service.core.domain import AddResult
from service.core.errors import (
    DatabaseUnavailableError,
    NotFoundError,
    QueryTimeoutError,
    ValidationError,
)
from service.mcp.metrics import _is_unknown_tool, tool_error_kind
from service.observability.logs import JsonFormatter, RequestIdFilter, request_id
from service.observability.metrics import ErrorKind, Metrics, kind_of


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return None


@pytest.mark.parametrize(
    ("query", "operation_name", "label"),
    [
        ("query Mine { search(query: 1) { x } }", None, "search"),
        ("{ b: search { x } a: context { x } c: search { x } }", None, "context,search"),
        ("{ a { x } b { x } c { x } d { x } }", None, "a,b,c,..."),
        ("query A { a { x } } query B { b { x } }", "B", "b"),
        ("query A { a { x } } query B { b { x } }", "C", "invalid"),
    ],
)
def test_operation_label_is_root_fields_never_the_client_name(
    query: str, operation_name: str | None, label: str
) -> None:
    assert operation_label(parse(query), operation_name) == label


def test_two_apps_count_in_their_own_registries() -> None:
    first, second = Metrics(), Metrics()  # the default registry would refuse the second
    first.count_write(
        AddResult(message_ids=["m1", "m2"], added=["a"], updated=["u1", "u2"], superseded=["s"])
    )
    assert sample(first, "engram_messages_written_total") == 2
    assert sample(first, "engram_memories_added_total") == 1
    assert sample(first, "engram_memories_updated_total") == 2
    assert sample(first, "engram_memories_superseded_total") == 1
    assert sample(second, "engram_messages_written_total") == 0


def test_database_unavailable_error_marks_neo4j_down() -> None:
    metrics = Metrics()
    metrics.neo4j_up.set(1)
    metrics.count_error("graphql", ErrorKind.DATABASE_UNAVAILABLE)
    assert sample(metrics, "engram_neo4j_up") == 0
    kind = "DatabaseUnavailable"
    assert sample(metrics, "engram_errors_total", surface="graphql", kind=kind) == 1


def test_model_load_seconds() -> None:
    metrics = Metrics()
    metrics.set_model_load({"spacy": 1500.0, "embedding": 250.0})
    assert sample(metrics, "engram_model_load_seconds", model="spacy") == 1.5
    assert sample(metrics, "engram_model_load_seconds", model="embedding") == 0.25


def test_error_kinds_of_raised_exceptions() -> None:
    assert kind_of(DatabaseUnavailableError()) is ErrorKind.DATABASE_UNAVAILABLE
    assert kind_of(NotFoundError()) is ErrorKind.NOT_FOUND
    assert kind_of(ValidationError()) is ErrorKind.INVALID_INPUT
    assert kind_of(QueryTimeoutError()) is ErrorKind.TIMED_OUT
    assert kind_of(KeyError()) is ErrorKind.UNEXPECTED


def tool_error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def test_mcp_tool_errors_are_named_as_graphql_names_them() -> None:
    assert tool_error_kind(tool_error("NotFound: no memory m1")) is ErrorKind.NOT_FOUND
    wrapped = tool_error("Error executing tool get_memory: NotFound: no memory 'm0'")
    assert tool_error_kind(wrapped) is ErrorKind.NOT_FOUND
    assert tool_error_kind(tool_error("Forbidden: this key may not")) is ErrorKind.FORBIDDEN
    assert tool_error_kind(tool_error("TimedOut: the deadline passed")) is ErrorKind.TIMED_OUT
    crash = tool_error("Error executing tool search")  # the SDK keeps a crash's text
    assert tool_error_kind(crash) is ErrorKind.UNEXPECTED
    bad_arguments = tool_error("Error executing tool search: 1 validation error for search")
    assert tool_error_kind(bad_arguments) is ErrorKind.INVALID_REQUEST
    assert tool_error_kind(tool_error("Unknown tool: x")) is ErrorKind.INVALID_REQUEST
    assert _is_unknown_tool(tool_error("Unknown tool: drop_everything"))
    assert not _is_unknown_tool(tool_error("InvalidInput: no messages to add"))


def test_json_log_line_carries_the_request_id() -> None:
    record = logging.LogRecord("engram.access", logging.INFO, "x", 1, "GET %s", ("/m",), None)
    record.fields = {"status": 200}
    token = request_id.set("r-1")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "r-1"
    assert line["message"] == "GET /m" and line["status"] == 200 and line["level"] == "INFO"


def test_outside_a_request_the_id_is_none() -> None:
    record = logging.LogRecord("engram", logging.WARNING, "x", 1, "late", None, None)
    RequestIdFilter().filter(record)
    assert json.loads(JsonFormatter().format(record))["request_id"] is None
