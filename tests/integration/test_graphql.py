"""The GraphQL API over HTTP and through schema.execute, against a real Neo4j."""

from __future__ import annotations

import httpx

from service.api.app import create_app
from service.api.context import RequestContext
from service.api.schema import schema
from service.core.auth import Principal
from service.memory import MemoryService
from tests.conftest import Neo4jTarget

ADD = """
mutation Add($messages: [MessageInput!]!, $scope: ScopeInput!) {
  addMessages(messages: $messages, scope: $scope) {
    __typename
    ... on AddMessagesSuccess { added unchanged messageIds }
    ... on InvalidInput { message }
  }
}"""
SEARCH = """
query Search($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope, limit: 2) {
    __typename
    ... on SearchHits { hits { score memory { text speaker saidAt sourceIds } } }
    ... on InvalidInput { message }
  }
}"""
KEY_BEA = "key-for-bea-0123456789"


def context(mem: MemoryService) -> RequestContext:
    return RequestContext(mem, Principal.unrestricted("test"))


MESSAGES = [
    {
        "content": "I started learning to play the cello in March.",
        "speaker": "Bea",
        "timestamp": "2024-04-02T10:00:00Z",
    },
    {
        "content": "We repainted the kitchen walls yellow.",
        "speaker": "Bea",
        "timestamp": "2024-04-02T10:01:00Z",
    },
]


async def test_add_and_search_over_http(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    settings = neo4j_target.settings(
        api_keys={KEY_BEA: {"principal": "bea-app", "user_ids": ["bea"]}}
    )
    app = create_app(settings, memory=mem)
    transport = httpx.ASGITransport(app=app)
    headers = {"X-API-Key": KEY_BEA}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://test", headers=headers
    ) as client:
        scope = {"userId": "bea"}
        added = await client.post(
            "/graphql", json={"query": ADD, "variables": {"messages": MESSAGES, "scope": scope}}
        )
        payload = added.json()["data"]["addMessages"]
        assert payload["__typename"] == "AddMessagesSuccess" and len(payload["added"]) == 2
        found = await client.post(
            "/graphql",
            json={
                "query": SEARCH,
                "variables": {"q": "musical instrument lessons", "scope": scope},
            },
        )
        top = found.json()["data"]["search"]["hits"][0]
        assert top["memory"]["text"].startswith("Bea started learning to play the cello")
        assert top["memory"]["saidAt"].startswith("2024-04-02T10:00:00")
        assert top["memory"]["speaker"] == "Bea" and len(top["memory"]["sourceIds"]) == 1
        page = await client.get("/graphql", headers={"Accept": "text/html"})
        assert page.status_code == 200 and "graphiql" in page.text.lower()


async def test_invalid_input_comes_back_typed(mem: MemoryService) -> None:
    result = await schema.execute(
        ADD,
        variable_values={
            "messages": [{"content": "ok"}, {"content": "bad\u0000byte"}],
            "scope": {"userId": "bea"},
        },
        context_value=context(mem),
    )
    assert result.errors is None and result.data is not None
    payload = result.data["addMessages"]
    assert payload["__typename"] == "InvalidInput"
    assert "message 1" in payload["message"] and "U+0000" in payload["message"]


async def test_empty_scope_is_rejected(mem: MemoryService) -> None:
    result = await schema.execute(
        SEARCH, variable_values={"q": "cello", "scope": {}}, context_value=context(mem)
    )
    assert result.data is not None
    assert result.data["search"]["__typename"] == "InvalidInput"
    assert "at least one" in result.data["search"]["message"]
