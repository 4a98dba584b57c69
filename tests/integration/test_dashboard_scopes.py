"""What the dashboard page needed from the API: the scope picker's `scopes` and `viewer`, and
`Memory.supersededBy`, which shows a superseded fact with what replaced it."""

from __future__ import annotations

from typing import Any

import pytest

from service.api.context import RequestContext
from service.api.schema import schema
from service.core.auth import Principal
from service.core.domain import Scope
from service.memory import MemoryService
from tests.integration.test_dashboard import CONVERSATION, OTHER_TENANT

ALICE_ONLY = Principal("alice-app", frozenset({"alice"}), frozenset({"*"}), frozenset({"*"}))
SCOPES = """query { viewer { principal userIds agentIds runIds }
  scopes { userId agentId runId memories lastSaidAt } }"""
SUPERSEDED = """query($scope: ScopeInput!) { memories(scope: $scope, first: 100) {
  ... on MemoryConnection { edges { node { text invalidatedAt supersededBy { text } } } } } }"""


async def gql(
    mem: MemoryService, query: str, principal: Principal, **variables: Any
) -> dict[str, Any]:
    result = await schema.execute(
        query, variable_values=variables, context_value=RequestContext(mem, principal)
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data


@pytest.fixture
async def seeded(mem: MemoryService) -> MemoryService:
    await mem.add(CONVERSATION, Scope(user_id="alice"))
    await mem.add(OTHER_TENANT, Scope(user_id="mallory"))
    await mem.add(OTHER_TENANT, Scope(user_id="alice", agent_id="planner"))
    return mem


async def test_scopes_lists_every_scope_to_an_unrestricted_key(seeded: MemoryService) -> None:
    data = await gql(seeded, SCOPES, Principal.unrestricted("local"))
    assert data["viewer"] == {
        "principal": "local",
        "userIds": ["*"],
        "agentIds": ["*"],
        "runIds": ["*"],
    }
    found = [(s["userId"], s["agentId"], s["memories"]) for s in data["scopes"]]
    assert found[0] == ("alice", None, 10)  # the largest first
    assert set(found) == {("alice", None, 10), ("alice", "planner", 1), ("mallory", None, 1)}
    assert data["scopes"][0]["lastSaidAt"].startswith("2024-04-12")


async def test_a_key_for_one_user_sees_only_that_users_scopes(seeded: MemoryService) -> None:
    data = await gql(seeded, SCOPES, ALICE_ONLY)
    assert data["viewer"]["userIds"] == ["alice"]
    assert {s["userId"] for s in data["scopes"]} == {"alice"}
    assert len(data["scopes"]) == 2


async def test_scopes_refuses_a_page_out_of_range(seeded: MemoryService) -> None:
    result = await schema.execute(
        "{ scopes(first: 0) { userId } }",
        context_value=RequestContext(seeded, ALICE_ONLY),
    )
    assert result.errors and "between 1 and" in result.errors[0].message


async def test_a_superseded_memory_names_what_replaced_it(seeded: MemoryService) -> None:
    data = await gql(seeded, SUPERSEDED, ALICE_ONLY, scope={"userId": "alice"})
    nodes = {e["node"]["text"]: e["node"] for e in data["memories"]["edges"]}
    assert nodes["Bob lives in Boston."]["invalidatedAt"] is not None
    assert nodes["Bob lives in Boston."]["supersededBy"] == [{"text": "Bob moved to Seattle."}]
    assert nodes["Bob moved to Seattle."]["supersededBy"] == []
    assert all(n["supersededBy"] for n in nodes.values() if n["invalidatedAt"])
