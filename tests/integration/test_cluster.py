"""Read your own writes (docs/cluster.md): what one Neo4j server can show of a cluster's setup.

A single server never lags, so these tests check that the routing driver works end to end and
that bookmarks are handed out, carried to another service and accepted; not that a follower
waits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

import neo4j
from service.api.app import create_app
from service.client import EngramClient
from service.core import bookmarks
from service.core.domain import Scope
from service.core.errors import ValidationError
from service.embedding.embedder import Embedder
from service.memory import MemoryService
from tests.conftest import Neo4jTarget
from tests.integration.test_mcp import call, error_text, mcp_client

ANA = Scope(user_id="ana")
SAID = {"speaker": "Ana", "timestamp": "2024-02-01T10:00:00Z"}
MOVED = {"content": "I moved to Lisbon last year.", **SAID}
CELLO = {"content": "I started learning to play the cello in March.", **SAID}
SEARCH = """query($q: String!) { search(query: $q, scope: {userId: "ana"}, limit: 3) {
  __typename ... on SearchHits { hits { memory { text } } } ... on InvalidInput { message } } }"""
ADD = """mutation($m: [MessageInput!]!) { addMessages(messages: $m, scope: {userId: "ana"}) {
  __typename ... on AddMessagesSuccess { added bookmark } ... on InvalidInput { message } } }"""


def routing_uri(target: Neo4jTarget) -> str:
    """The test server's address with the neo4j:// (routing) scheme that clusters need."""
    return "neo4j://" + target.uri.split("://", 1)[1]


@pytest.fixture(scope="module")
async def routed(neo4j_target: Neo4jTarget, embedder: Embedder) -> AsyncIterator[MemoryService]:
    """A second service, as another process would be: its own driver, through a routing URI."""
    settings = neo4j_target.settings(neo4j_uri=routing_uri(neo4j_target))
    service = await MemoryService.start(settings, embedder=embedder)
    yield service
    await service.close()


@pytest.fixture
async def other(routed: MemoryService, clean_db: None) -> MemoryService:
    """The second service over an empty database."""
    return routed


async def test_routing_uri_adds_and_searches(other: MemoryService) -> None:
    assert isinstance(other.db._driver, neo4j.AsyncNeo4jDriver)  # routes, unlike bolt://
    added = await other.add([MOVED], ANA)
    assert len(added.added) == 1
    [hit] = await other.search("Where does Ana live?", ANA, limit=1)
    assert hit.memory.text == "Ana moved to Lisbon last year."


async def test_bookmark_from_one_service_is_accepted_by_another(
    mem: MemoryService, other: MemoryService
) -> None:
    added = await mem.add([MOVED], ANA)
    assert added.bookmark is not None
    assert bookmarks.decode(added.bookmark)  # Neo4j's own bookmark strings inside
    assert added.bookmark == await mem.db.bookmark()  # the process's bookmarks cover the add
    with bookmarks.reading_after(added.bookmark):
        [hit] = await other.search("Where does Ana live?", ANA, limit=1)
    assert hit.memory.text == "Ana moved to Lisbon last year."
    # Having waited for it, the other process's own bookmark covers that write too.
    assert await other.db.bookmark() == added.bookmark


async def test_malformed_bookmark_is_refused(mem: MemoryService) -> None:
    for token in ("not a bookmark!", bookmarks.encode(["FB:not-neo4j"])):
        with bookmarks.reading_after(token), pytest.raises(ValidationError, match="Bookmark"):
            await mem.search("Where does Ana live?", ANA)


async def test_bookmark_header_over_graphql(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=mem)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        added = await client.post("/graphql", json={"query": ADD, "variables": {"m": [MOVED]}})
        bookmark = added.json()["data"]["addMessages"]["bookmark"]
        assert bookmarks.decode(bookmark)

        async def search(header: str) -> dict[str, object]:
            body = {"query": SEARCH, "variables": {"q": "Where does Ana live?"}}
            answer = await client.post("/graphql", json=body, headers={bookmarks.HEADER: header})
            result: dict[str, object] = answer.json()["data"]["search"]
            return result

        assert (await search(bookmark))["__typename"] == "SearchHits"
        refused = await search("%%%")
        assert refused["__typename"] == "InvalidInput"
        assert "X-Engram-Bookmark" in str(refused["message"])


async def test_client_sends_the_bookmark_back(
    mem: MemoryService, other: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    """An add through one process's API, a search through another's, as a client does it."""
    settings = neo4j_target.settings(auth_mode="local")
    writer = httpx.ASGITransport(app=create_app(settings, memory=mem))
    reader = httpx.ASGITransport(app=create_app(settings, memory=other))
    async with (
        EngramClient("http://writer", transport=writer) as first,
        EngramClient("http://reader", transport=reader) as second,
    ):
        added = await first.add([CELLO], user_id="ana")
        assert added.bookmark is not None
        hits = await second.search("What instrument?", bookmark=added.bookmark, user_id="ana")
        assert any("cello" in h.memory.text for h in hits)
        with pytest.raises(ValidationError, match="X-Engram-Bookmark"):
            await second.search("What instrument?", bookmark="junk", user_id="ana")


async def test_bookmark_header_over_mcp(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    def app() -> FastAPI:  # an app's MCP session manager runs once: one app per client
        return create_app(neo4j_target.settings(auth_mode="local"), memory=mem)

    async with mcp_client(app(), {}) as client:
        added = await call(client, "add_memory", text="Ana keeps bees.", user_id="ana")
    bookmark = added["bookmark"]
    assert bookmarks.decode(bookmark)
    async with mcp_client(app(), {bookmarks.HEADER: bookmark}) as client:
        found = await call(client, "search", query="Who keeps bees?", user_id="ana")
        assert any("bees" in hit["text"] for hit in found["hits"])
    async with mcp_client(app(), {bookmarks.HEADER: "junk"}) as client:
        refused = await client.call_tool("search", {"query": "bees", "user_id": "ana"})
    assert refused.is_error
    assert error_text(refused).startswith("InvalidInput: X-Engram-Bookmark")
