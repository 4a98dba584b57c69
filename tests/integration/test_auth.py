"""API keys over HTTP: who may touch which scope, and what happens otherwise."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import ValidationError

from service.api.app import create_app
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget

KEY_ALICE = "alice-key-0123456789"
KEY_ADMIN = "admin-key-0123456789"
SEARCH = """query($scope: ScopeInput!) { search(query: "secret project", scope: $scope) {
  __typename ... on SearchHits { hits { memory { text } } } ... on Forbidden { message } } }"""


@pytest.fixture
async def client(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[httpx.AsyncClient]:
    await mem.add([{"content": "Alice leads the secret project Bluebird."}], Scope(user_id="alice"))
    await mem.add(
        [{"content": "Bob leads the secret project Redwood."}],
        Scope(user_id="bob", agent_id="helper"),
    )
    settings = neo4j_target.settings(
        api_keys={
            KEY_ALICE: {"principal": "alice-app", "user_ids": ["alice"]},
            KEY_ADMIN: {"principal": "admin"},
        }
    )
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def search(client: httpx.AsyncClient, key: str | None, scope: dict[str, str]) -> object:
    headers = {"X-API-Key": key} if key else {}
    response = await client.post(
        "/graphql", json={"query": SEARCH, "variables": {"scope": scope}}, headers=headers
    )
    return response


async def test_missing_or_unknown_key_is_refused(client: httpx.AsyncClient) -> None:
    for key in (None, "not-a-key-at-all-000"):
        response = await search(client, key, {"userId": "alice"})
        assert response.status_code == 401  # type: ignore[attr-defined]


async def test_key_sees_its_own_user(client: httpx.AsyncClient) -> None:
    response = await search(client, KEY_ALICE, {"userId": "alice"})
    hits = response.json()["data"]["search"]["hits"]  # type: ignore[attr-defined]
    assert [h["memory"]["text"] for h in hits] == ["Alice leads the secret project Bluebird."]


async def test_key_may_not_name_another_user(client: httpx.AsyncClient) -> None:
    response = await search(client, KEY_ALICE, {"userId": "bob"})
    result = response.json()["data"]["search"]  # type: ignore[attr-defined]
    assert result["__typename"] == "Forbidden" and "bob" in result["message"]


async def test_leaving_the_user_out_does_not_widen_the_key(client: httpx.AsyncClient) -> None:
    response = await search(client, KEY_ALICE, {"agentId": "helper"})
    result = response.json()["data"]["search"]  # type: ignore[attr-defined]
    assert result["__typename"] == "SearchHits"
    assert all("Redwood" not in h["memory"]["text"] for h in result["hits"])


async def test_unrestricted_key_sees_any_user(client: httpx.AsyncClient) -> None:
    response = await search(client, KEY_ADMIN, {"userId": "bob"})
    hits = response.json()["data"]["search"]["hits"]  # type: ignore[attr-defined]
    assert [h["memory"]["text"] for h in hits] == ["Bob leads the secret project Redwood."]


async def test_local_mode_needs_no_key_but_only_on_loopback(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    settings = neo4j_target.settings(auth_mode="local")
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await search(http, None, {"userId": "alice"})
    assert response.status_code == 200  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="loopback"):
        neo4j_target.settings(auth_mode="local", api_host="0.0.0.0")


async def test_over_deep_and_over_aliased_queries_are_refused(client: httpx.AsyncClient) -> None:
    aliases = " ".join(f"a{i}: __typename" for i in range(30))
    response = await client.post(
        "/graphql", json={"query": f"{{ {aliases} }}"}, headers={"X-API-Key": KEY_ADMIN}
    )
    assert "aliases" in response.text.lower()
    assert response.json()["errors"][0]["message"].startswith("3")  # "30 aliases found …"


async def test_over_deep_queries_are_refused(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    # Query texts are parsed and validated once (service/api/schema.py): a repeated text is
    # refused every time, and the cached verdict does not carry over to a schema whose limit
    # lets the same text through.
    for depth, refused in [(2, True), (2, True), (10, False)]:
        settings = neo4j_target.settings(auth_mode="local", max_query_depth=depth)
        transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            response = await search(http, None, {"userId": "alice"})
        text = response.text  # type: ignore[attr-defined]
        assert ("exceeds maximum operation depth" in text) is refused, (depth, text)
        assert ("SearchHits" in text) is not refused


async def test_a_browser_opens_graphiql_without_a_key_but_runs_nothing(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    # An operation still needs a key, by GET or POST.
    by_get = await client.get("/graphql", params={"query": "{ __typename }"})
    by_post = await client.post("/graphql", json={"query": "{ __typename }"})
    assert by_get.status_code == 401 and by_post.status_code == 401
