"""/metrics over HTTP: counters that move with real requests, the key it needs, request ids."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Iterator

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

from service.api.app import create_app
from service.memory import MemoryService
from tests.conftest import Neo4jTarget

KEY = "metrics-test-key-0123456789"
SCRAPER_KEY = "scraper-only-key-0123456789"
ADD = """mutation($scope: ScopeInput!, $messages: [MessageInput!]!) {
  addMessages(messages: $messages, scope: $scope) {
    __typename ... on AddMessagesSuccess { added } } }"""
SEARCH = """query($scope: ScopeInput!, $limit: Int!) {
  search(query: "Where does Alice work?", scope: $scope, limit: $limit) {
    __typename ... on SearchHits { hits { memory { text } } } } }"""
SCOPE = {"userId": "alice"}
MESSAGES = [
    {"content": "Alice works at Acme as a data engineer in Berlin.", "role": "USER"},
    {"content": "Bob moved to Lisbon last spring to start a bakery.", "role": "USER"},
]

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
async def client(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[httpx.AsyncClient]:
    settings = neo4j_target.settings(api_keys={KEY: {"principal": "app"}}, metrics_key=SCRAPER_KEY)
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://test", headers={"X-API-Key": KEY}
    ) as http:
        yield http


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200
    return parse(response.text)


async def graphql(client: httpx.AsyncClient, query: str, **variables: object) -> dict[str, object]:
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200
    body: dict[str, object] = response.json()
    return body


async def test_search_and_add_move_their_counters(client: httpx.AsyncClient) -> None:
    before = await scrape(client)
    await graphql(client, ADD, scope=SCOPE, messages=MESSAGES)
    await graphql(client, ADD, scope=SCOPE, messages=MESSAGES)  # a repeat writes nothing new
    await graphql(client, SEARCH, scope=SCOPE, limit=5)
    after = await scrape(client)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("engram_graphql_requests_total", operation="addMessages") == 2
    assert moved("engram_graphql_requests_total", operation="search") == 1
    assert moved("engram_graphql_request_duration_seconds_count", operation="search") == 1
    assert moved("engram_graphql_request_duration_seconds_sum", operation="search") > 0
    assert moved("engram_messages_written_total") == 4  # message ids, repeats included
    added = moved("engram_memories_added_total")
    assert added >= 2  # the repeat added none: a second count would make it 4 or more
    assert added < 4
    assert moved("engram_errors_total", surface="graphql", kind="InvalidInput") == 0


async def test_invalid_input_counts_as_an_error(client: httpx.AsyncClient) -> None:
    before = await scrape(client)
    result = await graphql(client, ADD, scope=SCOPE, messages=[])  # "no messages to add"
    assert result["data"] == {"addMessages": {"__typename": "InvalidInput"}}
    await graphql(client, "{ search { nope } }")  # refused before it runs
    after = await scrape(client)
    errors = "engram_errors_total"
    assert (
        value(after, errors, surface="graphql", kind="InvalidInput")
        - value(before, errors, surface="graphql", kind="InvalidInput")
        == 1
    )
    assert value(after, errors, surface="graphql", kind="InvalidRequest") > value(
        before, errors, surface="graphql", kind="InvalidRequest"
    )
    assert (
        value(after, "engram_graphql_requests_total", operation="invalid")
        == value(before, "engram_graphql_requests_total", operation="invalid") + 1
    )


async def test_healthz_sets_neo4j_up(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).status_code == 200
    assert value(await scrape(client), "engram_neo4j_up") == 1


async def test_metrics_refuse_a_caller_without_a_key(client: httpx.AsyncClient) -> None:
    refused = [
        {"X-API-Key": ""},
        {"X-API-Key": "not-a-key-at-all-000"},
        {"X-API-Key": "", "Authorization": "Bearer not-the-scraper-key-0000"},
        {"X-API-Key": "", "Authorization": SCRAPER_KEY},  # not a bearer token
    ]
    for headers in refused:
        response = await client.get("/metrics", headers=headers)
        assert response.status_code == 401, headers
        assert "engram_" not in response.text
    scraper = {"X-API-Key": "", "Authorization": f"Bearer {SCRAPER_KEY}"}
    response = await client.get("/metrics", headers=scraper)
    assert response.status_code == 200 and "engram_graphql_requests_total" in response.text


async def test_metrics_are_open_in_local_mode(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert (await http.get("/metrics")).status_code == 200


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What Engram's log handler writes, once an app with ENGRAM_LOG_FORMAT=json installed it."""
    buffer = io.StringIO()
    yield buffer
    for handler in logging.getLogger().handlers:
        if handler.get_name() == "engram":
            logging.getLogger().removeHandler(handler)


async def test_request_id_in_header_and_json_log(
    mem: MemoryService, neo4j_target: Neo4jTarget, json_log: io.StringIO
) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local", log_format="json"), memory=mem)
    [handler] = [h for h in logging.getLogger().handlers if h.get_name() == "engram"]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(json_log)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        given = await http.post(
            "/graphql",
            json={"query": SEARCH, "variables": {"scope": SCOPE, "limit": 3}},
            headers={"X-Request-ID": "trace-42.abc"},
        )
        fresh = await http.get("/healthz")
        hostile = await http.get("/healthz", headers={"X-Request-ID": "a b\n{}"})
    assert given.headers["X-Request-ID"] == "trace-42.abc"
    assert len(fresh.headers["X-Request-ID"]) == 32
    assert hostile.headers["X-Request-ID"] not in {"a b\n{}", fresh.headers["X-Request-ID"]}
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    [access] = [line for line in lines if line["request_id"] == "trace-42.abc"]
    assert access["logger"] == "engram.access"
    assert access["path"] == "/graphql" and access["status"] == 200


async def test_mcp_tool_calls_are_counted_per_tool(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    app = create_app(neo4j_target.settings(api_keys={KEY: {"principal": "app"}}), memory=mem)
    base = "http://127.0.0.1:8300"  # loopback: the SDK's DNS-rebinding check accepts the Host
    transport = httpx2.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=transport, base_url=base, headers={"X-API-Key": KEY}) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        assert not (await client.call_tool("search", {"query": "Acme", "user_id": "a"})).is_error
        assert (await client.call_tool("get_memory", {"memory_id": "m0", "user_id": "a"})).is_error
        assert (await client.call_tool("drop_everything", {})).is_error
        samples = parse((await http.get("/metrics")).text)
    assert value(samples, "engram_mcp_tool_calls_total", tool="search") == 1
    assert value(samples, "engram_mcp_tool_duration_seconds_count", tool="get_memory") == 1
    assert value(samples, "engram_mcp_tool_calls_total", tool="unknown") == 1
    assert value(samples, "engram_mcp_tool_calls_total", tool="drop_everything") == 0
    assert value(samples, "engram_errors_total", surface="mcp", kind="NotFound") == 1
    assert value(samples, "engram_errors_total", surface="mcp", kind="InvalidRequest") == 1
