"""`profile` and `changes` through GraphQL and MCP against a real Neo4j: an English speaker who
moves from Lisbon to Berlin and changes favourite book, and 小李, who moves from 上海 to 深圳 and
from 腾讯 to 字节跳动. One seeded store for the whole module (its scopes are its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from service.core.domain import Scope
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.integration.test_mcp import call, mcp_client

EN = Scope(user_id="profile-en")
ZH = Scope(user_id="profile-zh")
KEY_EN = "profile-en-key-0123456"
KEY_ZH = "profile-zh-key-0123456"
ENGLISH = [
    ("2026-01-10T09:00:00Z", "I live in Lisbon."),
    ("2026-01-12T09:00:00Z", "I work as a firmware engineer at Acme Robotics."),
    ("2026-02-10T09:00:00Z", "My sister Emma is a nurse in Porto."),
    ("2026-02-11T09:00:00Z", "My favourite book is Dune."),
    ("2026-02-12T09:00:00Z", "My friend Tom plays chess with me on Sundays."),
    ("2026-02-15T09:00:00Z", "I use Notion for all my notes."),
    ("2026-03-14T09:00:00Z", "I moved to Berlin."),
    ("2026-04-02T09:00:00Z", "My favourite book is Middlemarch."),
]
# One add: a conversation imported whole (each message keeps its own time).
CHINESE = [
    ("2026-01-10T09:00:00Z", "我住在上海。"),
    ("2026-01-12T09:00:00Z", "我在腾讯工作。"),
    ("2026-02-03T09:00:00Z", "我很喜欢喝咖啡。"),
    ("2026-02-10T09:00:00Z", "我妹妹小红在北京大学读书。"),
    ("2026-02-20T09:00:00Z", "我的朋友小王是医生。"),
    ("2026-03-14T09:00:00Z", "我搬到了深圳。"),
    ("2026-04-02T09:00:00Z", "我在字节跳动工作。"),
]
PROFILE = """query($s: ScopeInput!, $e: String!, $asOf: DateTime) {
  profile(scope: $s, entity: $e, asOf: $asOf) { __typename
    ... on Profile { entity { name type } asOf groups { kind label facts { kind value detail
      relation slot since inferred confidence evidenceCount evidence { id text saidAt }
      entity { name mentionCount } } } }
    ... on NotFound { message } ... on InvalidInput { message } } }"""
CHANGES = """query($s: ScopeInput!, $from: DateTime, $to: DateTime, $phrase: String,
    $ref: DateTime, $entity: String, $limit: Int! = 100) {
  changes(scope: $s, from: $from, to: $to, phrase: $phrase, referenceTime: $ref,
          entity: $entity, limit: $limit) { __typename
    ... on ChangeList { from to truncated changes { type kind detail subject at relation slot
      summary before { value memories { text } } after { value since memories { text } } } }
    ... on NotFound { message } ... on InvalidInput { message } } }"""


@pytest.fixture(scope="module")
async def seeded(memory: MemoryService, neo4j_target: Neo4jTarget) -> MemoryService:
    await run_cypher(neo4j_target, "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS")
    for said, text in ENGLISH:  # one add per message, as an agent sends them
        await memory.add([{"speaker": "Sam", "timestamp": said, "content": text}], EN)
    chinese = [{"speaker": "小李", "timestamp": said, "content": text} for said, text in CHINESE]
    await memory.add(chinese, ZH)
    return memory


@pytest.fixture(scope="module")
async def client(
    seeded: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    keys = {
        KEY_EN: {"principal": "en-app", "user_ids": [EN.user_id]},
        KEY_ZH: {"principal": "zh-app", "user_ids": [ZH.user_id]},
    }
    app = create_app(neo4j_target.settings(api_keys=keys), memory=seeded)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as http:
        yield http


async def gql(http: httpx.AsyncClient, key: str, query: str, **variables: Any) -> Any:
    response = await http.post(
        "/graphql", json={"query": query, "variables": variables}, headers={"X-API-Key": key}
    )
    body = response.json()
    assert "errors" not in body, body
    return body["data"]


async def profile(http: httpx.AsyncClient, key: str, scope: Scope, **more: Any) -> Any:
    entity = "Sam" if scope == EN else "小李"
    data = await gql(http, key, PROFILE, s={"userId": scope.user_id}, e=entity, **more)
    assert data["profile"]["__typename"] == "Profile", data
    return data["profile"]


def facts(found: Any) -> dict[str, list[str]]:
    """kind -> values, as the profile lists them."""
    return {g["kind"]: [f["value"] for f in g["facts"]] for g in found["groups"]}


async def test_the_profile_of_an_english_speaker(client: httpx.AsyncClient) -> None:
    found = await profile(client, KEY_EN, EN)
    assert found["entity"] == {"name": "Sam", "type": "PERSON"}
    assert facts(found) == {
        "WORKS_AT": ["Acme Robotics"],
        "JOB": ["firmware engineer"],
        "LIVES_IN": ["Berlin"],
        "FAMILY": ["Emma"],
        "FRIENDS": ["Tom"],
        "LIKES": ["Middlemarch"],
        "FAVOURITES": ["Middlemarch"],
        "USES": ["Notion"],
    }
    groups = {g["kind"]: g for g in found["groups"]}
    [berlin] = groups["LIVES_IN"]["facts"]
    assert groups["LIVES_IN"]["label"] == "lives in"
    assert (berlin["relation"], berlin["slot"]) == ("LIVES_IN", "lives_in")
    assert berlin["since"] == "2026-03-14T09:00:00+00:00" and berlin["inferred"] is False
    assert berlin["evidenceCount"] == 1 and berlin["confidence"] > 0
    assert [m["text"] for m in berlin["evidence"]] == ["Sam moved to Berlin."]
    assert berlin["entity"] == {"name": "Berlin", "mentionCount": 1}
    assert groups["FAVOURITES"]["facts"][0]["detail"] == "book"


async def test_as_of_gives_the_profile_as_it_stood(client: httpx.AsyncClient) -> None:
    before = await profile(client, KEY_EN, EN, asOf="2026-03-01T00:00:00Z")
    assert before["asOf"] == "2026-03-01T00:00:00+00:00"
    assert facts(before)["LIVES_IN"] == ["Lisbon"] and facts(before)["FAVOURITES"] == ["Dune"]
    between = await profile(client, KEY_EN, EN, asOf="2026-03-20T00:00:00Z")
    assert facts(between)["LIVES_IN"] == ["Berlin"] and facts(between)["FAVOURITES"] == ["Dune"]
    nothing_yet = await profile(client, KEY_EN, EN, asOf="2026-01-01T00:00:00Z")
    assert nothing_yet["groups"] == []


async def test_the_profile_of_a_chinese_speaker(client: httpx.AsyncClient) -> None:
    now = facts(await profile(client, KEY_ZH, ZH))
    assert now["WORKS_AT"] == ["字节跳动"] and now["LIVES_IN"] == ["深圳"]
    assert now["FAMILY"] == ["小红"] and now["FRIENDS"] == ["小王"]
    assert any("咖啡" in value for value in now["LIKES"])
    then = facts(await profile(client, KEY_ZH, ZH, asOf="2026-03-01T00:00:00Z"))
    assert then["WORKS_AT"] == ["腾讯"] and then["LIVES_IN"] == ["上海"]


async def test_changes_between_dates_are_dated_before_after_pairs(
    client: httpx.AsyncClient,
) -> None:
    s = {"userId": EN.user_id}
    window = {"from": "2026-03-01T00:00:00Z", "to": "2026-05-01T00:00:00Z"}
    found = (await gql(client, KEY_EN, CHANGES, s=s, **window))["changes"]
    assert [c["summary"] for c in found["changes"]] == [
        "Sam: lives in Lisbon → Berlin, 2026-03-14",
        "Sam: favourite book Dune → Middlemarch, 2026-04-02",
    ]
    move = found["changes"][0]
    assert (move["type"], move["kind"], move["subject"]) == ("SUPERSEDED", "LIVES_IN", "Sam")
    assert move["before"]["memories"] == [{"text": "Sam lives in Lisbon."}]
    assert move["after"]["memories"] == [{"text": "Sam moved to Berlin."}]
    berlin = (await gql(client, KEY_EN, CHANGES, s=s, entity="Berlin", **window))["changes"]
    assert [c["summary"] for c in berlin["changes"]] == [move["summary"]]
    everything = (await gql(client, KEY_EN, CHANGES, s=s, entity="Sam"))["changes"]
    started = [c["summary"] for c in everything["changes"] if c["type"] == "STARTED"]
    assert started[0] == "Sam: lives in Lisbon (started), 2026-01-10"
    assert "Sam: uses Notion (started), 2026-02-15" in started
    capped = (await gql(client, KEY_EN, CHANGES, s=s, limit=2))["changes"]
    assert len(capped["changes"]) == 2 and capped["truncated"] is True


async def test_changes_in_a_phrase_window_in_each_language(client: httpx.AsyncClient) -> None:
    english = await gql(
        client,
        KEY_EN,
        CHANGES,
        s={"userId": EN.user_id},
        phrase="between March and May",
        ref="2026-06-15T00:00:00Z",
    )
    found = english["changes"]
    assert (found["from"], found["to"]) == (
        "2026-03-01T00:00:00+00:00",
        "2026-06-01T00:00:00+00:00",
    )
    assert len(found["changes"]) == 2 and found["changes"][0]["after"]["value"] == "Berlin"
    chinese = await gql(
        client,
        KEY_ZH,
        CHANGES,
        s={"userId": ZH.user_id},
        phrase="上个月以来",
        ref="2026-04-20T00:00:00Z",
        entity="小李",
    )
    assert [c["summary"] for c in chinese["changes"]["changes"]] == [
        "小李: lives in 上海 → 深圳, 2026-03-14",
        "小李: works at 腾讯 → 字节跳动, 2026-04-02",
    ]
    earlier = await gql(
        client,
        KEY_ZH,
        CHANGES,
        s={"userId": ZH.user_id},
        phrase="上个月",
        ref="2026-04-20T00:00:00Z",
    )
    assert [c["after"]["value"] for c in earlier["changes"]["changes"]] == ["深圳"]


async def test_bad_windows_and_unknown_names_are_typed_results(client: httpx.AsyncClient) -> None:
    s = {"userId": EN.user_id}
    asks: list[tuple[dict[str, Any], str, str]] = [
        ({"phrase": "whenever"}, "InvalidInput", "cannot read a time window from 'whenever'"),
        ({"phrase": "last month", "from": "2026-01-01T00:00:00Z"}, "InvalidInput", "not both"),
        (
            {"from": "2026-05-01T00:00:00Z", "to": "2026-03-01T00:00:00Z"},
            "InvalidInput",
            "ends before it starts",
        ),
        ({"limit": 0}, "InvalidInput", "limit must be between 1 and 500"),
        ({"entity": "Nobody"}, "NotFound", "no entity named 'Nobody'"),
    ]
    for variables, kind, words in asks:
        found = (await gql(client, KEY_EN, CHANGES, s=s, **variables))["changes"]
        assert found["__typename"] == kind and words in found["message"], (variables, found)
    missing = await gql(client, KEY_EN, PROFILE, s=s, e="Nobody")
    assert missing["profile"]["__typename"] == "NotFound"


async def test_the_mcp_tools(seeded: MemoryService, neo4j_target: Neo4jTarget) -> None:
    settings = neo4j_target.settings(
        api_keys={KEY_EN: {"principal": "en-app", "user_ids": ["profile-en"]}}
    )
    async with mcp_client(create_app(settings, memory=seeded), {"X-API-Key": KEY_EN}) as mcp:
        now = await call(mcp, "profile", entity="Sam")
        assert now["entity"] == "Sam"
        assert "lives in: Berlin (since 2026-03-14)" in [f["line"] for f in now["facts"]]
        then = await call(mcp, "profile", entity="Sam", as_of="2026-03-01T00:00:00Z")
        assert "lives in: Lisbon (since 2026-01-10)" in [f["line"] for f in then["facts"]]
        window = await call(
            mcp, "changes", time_phrase="since March", reference_time="2026-06-15T00:00:00Z"
        )
        assert [c["summary"] for c in window["changes"]] == [
            "Sam: lives in Lisbon → Berlin, 2026-03-14",
            "Sam: favourite book Dune → Middlemarch, 2026-04-02",
        ]
        assert window["changes"][0]["memory_ids"]
        bad = await mcp.call_tool("changes", {"time_phrase": "whenever"})
        assert bad.is_error
