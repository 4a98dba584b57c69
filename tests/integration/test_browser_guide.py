"""Neo4j Browser's guide: the API serves it to Browser's page, and its queries run on our data."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from service.api.app import create_app
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.unit.test_browser_guide import guide_blocks, guide_params

BROWSER_ORIGIN = "http://localhost:7474"
# What Browser 5.24's `:play` fetch sends, hence a preflight (seen in Chromium).
PLAY_HEADERS = "cache-control,pragma,sentry-trace"
PREFLIGHT = {"Origin": BROWSER_ORIGIN, "Access-Control-Request-Method": "GET"}


@pytest.fixture
async def client(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(neo4j_target.settings(), memory=mem))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


@pytest.mark.parametrize(
    ("name", "content_type", "marker"),
    [("engram-guide.html", "text/html", "<slide"), ("engram.grass", "text/plain", "node.Memory")],
)
async def test_browser_page_may_fetch_the_guide_and_style(
    client: httpx.AsyncClient, name: str, content_type: str, marker: str
) -> None:
    url = f"/neo4j-browser/{name}"
    asking = {**PREFLIGHT, "Access-Control-Request-Headers": PLAY_HEADERS}
    preflight = await client.options(url, headers=asking)
    assert preflight.status_code == 200
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert all(header in allowed for header in PLAY_HEADERS.split(","))

    response = await client.get(url, headers={"Origin": BROWSER_ORIGIN, "Pragma": "no-cache"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(content_type)
    assert response.headers["access-control-allow-origin"] in {"*", BROWSER_ORIGIN}
    assert marker in response.text


async def test_only_the_guide_and_style_are_served(client: httpx.AsyncClient) -> None:
    for path in ("/neo4j-browser/neo4j.conf", "/neo4j-browser/../neo4j.conf", "/neo4j-browser/"):
        assert (await client.get(path)).status_code == 404, path


async def test_every_guide_query_runs_on_engrams_graph(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    # Alice's facts as the guide's example parameters expect them: her memories of May 2023,
    # Emma's neighbourhood, a path from Max to Cambridge, Boston superseded by Seattle.
    said = [
        ("I live in Boston and I work at Google.", "2023-04-20T10:00:00Z"),
        ("My sister Emma works at Moderna in Cambridge.", "2023-05-15T18:00:00Z"),
        ("Max, my puppy, goes hiking with Emma every Sunday.", "2023-05-20T18:00:00Z"),
        ("I moved to Seattle last week.", "2023-06-10T12:00:00Z"),
    ]
    messages = [{"content": text, "speaker": "Alice", "timestamp": at} for text, at in said]
    await mem.add(messages, Scope(user_id="alice"))
    params = {
        name: (await run_cypher(neo4j_target, f"RETURN {expression} AS value"))[0]["value"]
        for name, expression in guide_params().items()
    }
    rows: dict[str, list[dict[str, object]]] = {}
    for block in guide_blocks():
        if block.is_cypher:  # a syntax error or a missing parameter raises here
            rows[block.text] = await run_cypher(neo4j_target, block.text, **params)
    assert all(rows.values()), [query for query, found in rows.items() if not found]
