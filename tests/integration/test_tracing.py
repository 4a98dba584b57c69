"""With tracing on, a request leaves one trace: FastAPI's HTTP span, the GraphQL operation's
span and the stages of the search or add under it; an MCP tool call gets the SDK's span with
Engram's stages under it. Spans go to the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from service.api.app import create_app
from service.memory import MemoryService
from service.observability import tracing
from tests.conftest import Neo4jTarget
from tests.integration.test_graphql import ADD, MESSAGES, SEARCH
from tests.integration.test_mcp import call, mcp_client

SEARCH_STAGES = {
    "engram.search.plan",
    "engram.search.retrieve",
    "engram.search.embed_query",
    "engram.search.fuse",
    "engram.search.explain",
}
ADD_STAGES = {f"engram.add.{s}" for s in ("nlp", "embedding", "link", "reconcile", "write")}


@pytest.fixture(scope="module")
def exporter() -> Iterator[InMemorySpanExporter]:
    """One provider for the module: OpenTelemetry's global provider (which FastAPI and the MCP
    SDK trace into) is set once per process."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)
    provider.shutdown()  # the global provider stays, recording nothing


@pytest.fixture
def spans(exporter: InMemorySpanExporter) -> Iterator[InMemorySpanExporter]:
    exporter.clear()
    yield exporter


def named(spans: InMemorySpanExporter) -> dict[str, ReadableSpan]:
    return {s.name: s for s in spans.get_finished_spans()}


def parent_of(span: ReadableSpan, by_name: dict[str, ReadableSpan]) -> str | None:
    ids = {s.context.span_id: name for name, s in by_name.items()}
    return None if span.parent is None else ids[span.parent.span_id]


async def test_graphql_search_and_add_are_traced_stage_by_stage(
    mem: MemoryService, neo4j_target: Neo4jTarget, spans: InMemorySpanExporter
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    scope = {"userId": "bea"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        added = await client.post(
            "/graphql", json={"query": ADD, "variables": {"messages": MESSAGES, "scope": scope}}
        )
        assert added.json()["data"]["addMessages"]["__typename"] == "AddMessagesSuccess"
        written = named(spans)
        spans.clear()
        found = await client.post(
            "/graphql", json={"query": SEARCH, "variables": {"q": "cello", "scope": scope}}
        )
        assert found.json()["data"]["search"]["hits"]
    read = named(spans)

    assert {n for n, s in written.items() if parent_of(s, written) == "engram.add"} >= ADD_STAGES
    assert parent_of(written["engram.add"], written) == "mutation addMessages"

    assert set(read) >= SEARCH_STAGES
    assert parent_of(read["engram.search.embed_query"], read) == "engram.search.retrieve"
    assert parent_of(read["engram.search.retrieve"], read) == "engram.search"
    assert parent_of(read["engram.search"], read) == "query search"
    operation = read["query search"]
    assert operation.attributes is not None
    assert operation.attributes["graphql.operation.name"] == "Search"
    assert read["engram.search"].attributes == {"engram.limit": 2, "engram.hits": 2}
    # FastAPI's own span for the request is the root: one trace from HTTP to the stages.
    assert operation.parent is not None and {s.context.trace_id for s in read.values()} == {
        operation.context.trace_id
    }
    assert [s.kind for s in read.values() if s.parent is None] == [SpanKind.SERVER]


async def test_a_refused_operation_is_marked_failed(
    mem: MemoryService, neo4j_target: Neo4jTarget, spans: InMemorySpanExporter
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        await client.post("/graphql", json={"query": "{ noSuchField }"})
    failed = named(spans)["graphql invalid"]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes is not None and failed.attributes["error.type"] == "InvalidRequest"


async def test_an_mcp_tool_call_is_traced_with_the_search_under_it(
    mem: MemoryService, neo4j_target: Neo4jTarget, spans: InMemorySpanExporter
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    async with mcp_client(app, {}) as client:
        await call(client, "search", query="cello", user_id="bea")
    server = [s for s in spans.get_finished_spans() if s.kind is SpanKind.SERVER]
    by_name = {s.name: s for s in spans.get_finished_spans()}
    tool = by_name["tools/call search"]
    assert tool in server and tool.attributes is not None
    assert tool.attributes["gen_ai.tool.name"] == "search"
    assert parent_of(by_name["engram.search"], by_name) == "tools/call search"
