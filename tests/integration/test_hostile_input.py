"""Hostile and broken input, property-based, through the Python API and GraphQL over HTTP.

Every string a caller controls gets odd Unicode (control, format, separator and combining
characters, emoji, RTL marks), NUL bytes, texts over the size limits, and Cypher and Lucene
syntax. The service must answer: an EngramError from the Python API; over HTTP a 200 with a
typed result or a readable GraphQL error, never a 500 and never the masked "Unexpected error.".
A refused write leaves the graph as it was, an accepted one reads back as sent (trimmed, NFC),
and no hostile scope id reaches another tenant's memories.

The tests are coroutines: pytest-asyncio runs each example of an async @given test on the
session loop, where the shared Memory's driver lives, while function-scoped fixtures (the clean
database and its seed) run once per test, not per example; hence the suppressed health check.
Bugs this suite found are pinned by tests at the end, on fixed inputs (all fixed
since), so that hypothesis does not spend minutes shrinking them. Their
inputs are still kept out of the strategies (widening them is the next step):
lone surrogates (JSON's "\\ud800" escapes do deliver them), datetimes at the calendar's edges,
unbroken CJK runs longer than Lucene's 1,024 clauses (long texts here are repeated units joined
by spaces, and no generated word is longer than 30 characters), and backslashes in the speaker
of a message that extraction reads (see `plain_speaker`).
"""

from __future__ import annotations

import base64
import json
import logging
import unicodedata
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pydantic
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from service.api.app import create_app
from service.core.domain import MAX_ID_CHARS, MAX_TEXT_CHARS, Scope, SearchOptions, TimeFilter
from service.core.errors import EngramError, ValidationError
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher

PROPERTY = settings(
    max_examples=25,
    deadline=None,
    database=None,  # no .hypothesis folder in the repository
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MASKED = "Unexpected error."
SECRET = "Bluebird"
ALICE = Scope(user_id="alice")
SEED = [
    {
        "content": f"Alice leads the secret project {SECRET} with Zanzibar Labs in Oslo.",
        "speaker": "Alice",
        "timestamp": "2024-03-01T10:00:00Z",
    }
]
MALLORY_KEY = "mallory-key-0123456789"

# --- strategies -------------------------------------------------------------------------------

PAYLOADS = [
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n //',
    "`",
    "``x`` ",
    "$param",
    "$user_id",
    "CALL db.index.fulltext.queryNodes('memory_text', '*')",
    "\\u0027",
    "' OR 1=1 //",
    'AND OR NOT ( ) [ ] { } ~ * ? : \\ / " ^ +-',
    "title:*",
    "*",
    "?",
    "~",
    "text:/.*/",
    "\\",
    "NOT",
    "AND",
    "{{in_scope}}",
    "/*where*/",
    "\u202eevil\u202c",
    "\u200f\u200e",
    "\ufeff",
    "e\u0301",
    "\u0958",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "\u2028\u2029",
    "\x00",
    "\x1f",
    "\t\n\r",
    "\ufdfa",
    "\uff21",
    "\u0130",
    "\u00df",
    "\u05d0\u05d1\u05d2",
    "\u0627\u0644\u0639\u0631\u0628\u064a",
    "我在阿里巴巴集团工作。",
    "yesterday",
    "last March",
]
SENTENCES = [
    "Alice moved to Paris last March.",
    "Bob works at Google as an engineer.",
    "Yesterday I adopted a puppy named Max.",
    "我在阿里巴巴集团工作。",
]
# Control characters get their own strategy, so that most strings pass validation and reach
# the database while some are refused.
ODD_CHARS = st.characters(
    categories=(
        "Cf",
        "Zs",
        "Zl",
        "Zp",
        "So",
        "Sk",
        "Sm",
        "Mn",
        "Me",
        "Lo",
        "Lu",
        "Nd",
        "Po",
        "Ps",
        "Pe",
    )
)
odd_text = st.text(ODD_CHARS, min_size=1, max_size=30)
hostile = st.one_of(
    odd_text,
    st.sampled_from(PAYLOADS),
    st.text(ODD_CHARS | st.characters(categories=("Cc",)), min_size=1, max_size=10),
    st.lists(odd_text | st.sampled_from(PAYLOADS + SENTENCES), min_size=2, max_size=5).map(
        " ".join
    ),
)


def longer_than(limit: int) -> st.SearchStrategy[str]:
    """A hostile string repeated, joined by spaces, past ``limit`` characters."""
    return hostile.map(lambda unit: " ".join([unit] * (limit // len(unit) + 1)))


hostile_or_long = st.one_of(hostile, hostile, hostile, longer_than(MAX_TEXT_CHARS))
optional = st.none() | hostile
phrases = st.one_of(
    st.none(),
    st.sampled_from(["yesterday", "last month", "上个月"]),
    hostile.map(lambda p: p[:200]),
)
# A backslash in the speaker broke Chinese extraction (fixed; pinned by the tests at the end);
# still left out of the strategies for messages that extraction reads.
plain_speaker = hostile.filter(lambda name: "\\" not in name)
sentence_with_hostile_bits = st.lists(
    st.sampled_from(SENTENCES) | hostile, min_size=1, max_size=4
).map(" ".join)


def as_cursor(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


int64 = st.integers(-(2**63), 2**63 - 1)
json_leaf = st.none() | st.booleans() | int64 | st.floats() | st.text(ODD_CHARS, max_size=20)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner),
    max_leaves=6,
)
cursors = st.one_of(
    hostile,
    st.binary(max_size=64).map(lambda raw: base64.urlsafe_b64encode(raw).decode()),
    json_value.map(as_cursor),
    st.builds(
        lambda s, k: as_cursor({"s": s, "k": k}),
        st.sampled_from(["said_at:DESC", "confidence:DESC", "name:ASC", ""]),
        st.lists(json_leaf, max_size=3),
    ),
    # well formed, odd values: these get past the decoder to the database
    st.builds(
        lambda key, ident: as_cursor({"s": "said_at:DESC", "k": [key, ident]}), int64, odd_text
    ),
    st.builds(lambda name, key: as_cursor({"s": "name:ASC", "k": [name, key]}), odd_text, odd_text),
)


def ops(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A filter operator object with any subset of the given operators."""
    return st.fixed_dictionaries({}, optional=fields)


value = hostile | longer_than(1_000)
values = st.lists(value, max_size=3)
memory_where = ops(
    text=ops(eq=value, contains=value, startsWith=value, **{"in": values}),
    speaker=ops(eq=value, contains=value, **{"in": values}),
    entityName=ops(eq=value, contains=value),
    entityType=ops(eq=value, **{"in": values}),
    lang=ops(eq=value, **{"in": values}),
)
memory_where = memory_where | memory_where.map(lambda w: {"OR": [w, {"NOT": w}]})
entity_where = ops(
    name=ops(eq=value, contains=value, startsWith=value, **{"in": values}),
    type=ops(eq=value, **{"in": values}),
)

# --- helpers ----------------------------------------------------------------------------------

GRAPH_SIZE = """CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS rels } RETURN nodes, rels"""
READ_MESSAGE = """MATCH (m:Message {id: $id})
RETURN m.text AS content, m.speaker AS speaker, m.external_id AS id, m.session_id AS session_id"""


async def graph_size(target: Neo4jTarget) -> tuple[int, int]:
    [row] = await run_cypher(target, GRAPH_SIZE)
    return int(row["nodes"]), int(row["rels"])  # type: ignore[call-overload]


def stored_form(text: str | None) -> str | None:
    """What an accepted string field is stored as: trimmed, then NFC."""
    return None if text is None else unicodedata.normalize("NFC", text.strip())


def must_refuse(message: dict[str, str | None]) -> bool:
    """Whether a message breaks a documented rule: empty, too long, or a control character."""
    limits = {
        "content": MAX_TEXT_CHARS,
        "speaker": MAX_ID_CHARS,
        "id": MAX_ID_CHARS,
        "session_id": MAX_ID_CHARS,
    }
    for field, text in message.items():
        kept = None if text is None else text.strip()
        if kept is not None and (not kept or len(kept) > limits[field] or has_control(kept)):
            return True
    return False


def has_control(text: str) -> bool:
    return any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in text)


async def post(client: httpx.AsyncClient, query: str, **variables: object) -> httpx.Response:
    # ensure_ascii: every character travels as a JSON escape, as a hostile client may send it.
    body = json.dumps({"query": query, "variables": variables}, ensure_ascii=True)
    return await client.post("/graphql", content=body, headers={"content-type": "application/json"})


def answered(response: httpx.Response) -> dict[str, Any]:
    """The data of a 200 whose errors, if any, are readable rather than masked."""
    assert response.status_code == 200, response.text
    body = response.json()
    assert MASKED not in [e["message"] for e in body.get("errors") or []], body
    data: dict[str, Any] = body.get("data") or {}
    return data


@pytest.fixture(autouse=True, scope="module")
def quiet_asyncio() -> Iterator[None]:
    """Silence asyncio's "exception was never retrieved" logs while these tests run.

    Resolvers that fail (as the pinned cases did before their fixes) leave such futures
    behind. When the garbage collector finalises one inside pytest's own ast.parse of a failure
    report, formatting the log's traceback parses source again and trips a CPython 3.11 bug
    ("SystemError: AST constructor recursion depth mismatch"), which ends the whole session
    with an INTERNALERROR.
    """
    logger = logging.getLogger("asyncio")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.fixture
async def seeded(mem: MemoryService) -> MemoryService:
    await mem.add(SEED, ALICE)
    return mem


@pytest.fixture
async def client(
    seeded: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(neo4j_target.settings(auth_mode="local"), memory=seeded)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        yield c


@pytest.fixture
async def mallory(
    seeded: MemoryService, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    """A client whose API key may touch user "mallory" only."""
    keys = {MALLORY_KEY: {"principal": "mallory-app", "user_ids": ["mallory"]}}
    app = create_app(neo4j_target.settings(api_keys=keys), memory=seeded)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://t",
        headers={"X-API-Key": MALLORY_KEY},
    ) as c:
        yield c


# --- the Python API ---------------------------------------------------------------------------


@PROPERTY
@given(content=hostile_or_long, speaker=optional, ext_id=optional, session_id=optional)
async def test_add_stores_hostile_fields_exactly_or_refuses_them(
    mem: MemoryService,
    neo4j_target: Neo4jTarget,
    content: str,
    speaker: str | None,
    ext_id: str | None,
    session_id: str | None,
) -> None:
    message = {"content": content, "speaker": speaker, "id": ext_id, "session_id": session_id}
    scope = Scope(user_id="writer", run_id=uuid.uuid4().hex)  # a fresh run: ids never collide
    before = await graph_size(neo4j_target)
    try:
        result = await mem.add([message], scope, infer=False)
    except EngramError:
        event("refused")
        assert await graph_size(neo4j_target) == before
        return
    event("accepted")
    assert not must_refuse(message), "accepted a message that breaks a documented rule"
    [stored] = await run_cypher(neo4j_target, READ_MESSAGE, id=result.message_ids[0])
    assert stored == {k: stored_form(v) for k, v in message.items()}


@PROPERTY
@given(content=sentence_with_hostile_bits, speaker=st.none() | plain_speaker)
async def test_extraction_survives_hostile_text(
    mem: MemoryService, neo4j_target: Neo4jTarget, content: str, speaker: str | None
) -> None:
    scope = Scope(user_id="writer", run_id=uuid.uuid4().hex)
    before = await graph_size(neo4j_target)
    try:
        result = await mem.add([{"content": content, "speaker": speaker}], scope)
    except EngramError:
        event("refused")
        assert await graph_size(neo4j_target) == before
        return
    event(f"accepted, {len(result.added)} memories")
    [stored] = await run_cypher(neo4j_target, READ_MESSAGE, id=result.message_ids[0])
    assert (stored["content"], stored["speaker"]) == (stored_form(content), stored_form(speaker))


@PROPERTY
@given(query=hostile_or_long, phrase=phrases)
async def test_search_and_context_answer_hostile_queries(
    seeded: MemoryService, query: str, phrase: str | None
) -> None:
    try:
        when = TimeFilter(phrase=phrase) if phrase else None
    except pydantic.ValidationError:  # the caller's own model refuses the phrase
        event("phrase refused by TimeFilter")
        return
    options = SearchOptions(limit=5, when=when)
    try:
        hits = await seeded.search(query, ALICE, options=options)
        block = await seeded.context(query, ALICE, 200, options)
    except EngramError:
        event("refused")
        return
    event("answered")
    assert all(h.memory.user_id == "alice" for h in hits)
    assert block.tokens <= 200


# --- GraphQL over HTTP ------------------------------------------------------------------------

ADD = """mutation($messages: [MessageInput!]!, $scope: ScopeInput!) {
  addMessages(messages: $messages, scope: $scope) {
    __typename ... on AddMessagesSuccess { messageIds } ... on InvalidInput { message } } }"""


message_inputs = st.fixed_dictionaries(
    {"content": hostile_or_long},
    optional={"speaker": plain_speaker, "id": hostile, "sessionId": hostile},
)


@PROPERTY
@given(messages=st.lists(message_inputs, min_size=1, max_size=2))
async def test_add_messages_over_http_is_typed_and_exact(
    client: httpx.AsyncClient, neo4j_target: Neo4jTarget, messages: list[dict[str, str]]
) -> None:
    ids = [stored_form(m["id"]) for m in messages if "id" in m]
    assume(len(set(ids)) == len(ids))  # one id twice in a batch: see the pinned test below
    scope = {"userId": "writer", "runId": uuid.uuid4().hex}
    before = await graph_size(neo4j_target)
    result = answered(await post(client, ADD, messages=messages, scope=scope))["addMessages"]
    event(result["__typename"])
    if result["__typename"] == "InvalidInput":
        assert await graph_size(neo4j_target) == before
        return
    assert result["__typename"] == "AddMessagesSuccess"
    for sent, message_id in zip(messages, result["messageIds"], strict=True):
        [stored] = await run_cypher(neo4j_target, READ_MESSAGE, id=message_id)
        expected = {
            "content": sent["content"],
            "speaker": sent.get("speaker"),
            "id": sent.get("id"),
            "session_id": sent.get("sessionId"),
        }
        assert stored == {k: stored_form(v) for k, v in expected.items()}


SEARCH = """query($q: String!, $when: TimeFilterInput) {
  search(query: $q, scope: {userId: "alice"}, when: $when) {
    __typename ... on SearchHits { hits { memory { text } } } ... on InvalidInput { message } }
  context(query: $q, scope: {userId: "alice"}, when: $when) {
    __typename ... on Context { tokens } ... on InvalidInput { message } } }"""


@PROPERTY
@given(query=hostile_or_long, phrase=phrases)
async def test_search_over_http_is_typed(
    client: httpx.AsyncClient, query: str, phrase: str | None
) -> None:
    data = answered(await post(client, SEARCH, q=query, when=phrase and {"phrase": phrase}))
    event(data["search"]["__typename"])
    assert data["search"]["__typename"] in {"SearchHits", "InvalidInput"}
    assert data["context"]["__typename"] in {"Context", "InvalidInput"}


DASHBOARD = """query($mw: MemoryWhereInput, $ew: EntityWhereInput) {
  memories(scope: {userId: "alice"}, where: $mw) {
    __typename ... on MemoryConnection { totalCount } ... on InvalidInput { message } }
  entities(scope: {userId: "alice"}, where: $ew) {
    __typename ... on EntityConnection { totalCount } ... on InvalidInput { message } } }"""


@PROPERTY
@given(mw=memory_where, ew=entity_where)
async def test_dashboard_filters_take_hostile_values_as_data(
    client: httpx.AsyncClient, neo4j_target: Neo4jTarget, mw: dict[str, Any], ew: dict[str, Any]
) -> None:
    before = await graph_size(neo4j_target)
    data = answered(await post(client, DASHBOARD, mw=mw, ew=ew))
    event(f"memories: {data['memories']['__typename']}")
    assert data["memories"]["__typename"] in {"MemoryConnection", "InvalidInput"}
    assert data["entities"]["__typename"] in {"EntityConnection", "InvalidInput"}
    assert await graph_size(neo4j_target) == before  # no payload ran as Cypher


PAGES = """query($after: String, $msort: [MemorySortInput!], $esort: [EntitySortInput!]) {
  memories(scope: {userId: "alice"}, after: $after, sort: $msort) {
    __typename ... on InvalidInput { message } }
  entities(scope: {userId: "alice"}, after: $after, sort: $esort) {
    __typename ... on InvalidInput { message } } }"""


@PROPERTY
@given(
    after=cursors,
    msort=st.sampled_from([None, [{"confidence": "DESC"}]]),
    esort=st.sampled_from([None, [{"mentionCount": "DESC"}]]),
)
async def test_garbage_cursors_are_invalid_input(
    client: httpx.AsyncClient, after: str, msort: object, esort: object
) -> None:
    data = answered(await post(client, PAGES, after=after, msort=msort, esort=esort))
    event(f"memories: {data['memories']['__typename']}")
    event(f"entities: {data['entities']['__typename']}")
    assert data["memories"]["__typename"] in {"MemoryConnection", "InvalidInput"}
    assert data["entities"]["__typename"] in {"EntityConnection", "InvalidInput"}


GRAPH = """query($name: String!, $type: String, $to: String!) {
  entity(name: $name, type: $type, scope: {userId: "alice"}) {
    __typename ... on Entity { name } ... on NotFound { message } ... on InvalidInput { message } }
  path(from: $name, to: $to, scope: {userId: "alice"}) {
    __typename ... on NotFound { message } ... on InvalidInput { message } } }"""


@PROPERTY
@given(
    name=st.sampled_from([SECRET, "bluebird's", "Oslo"]) | hostile_or_long,
    entity_type=st.none() | st.just("ORG") | hostile,
    to=st.just(SECRET) | hostile,
)
async def test_entity_and_path_answer_hostile_names(
    client: httpx.AsyncClient, name: str, entity_type: str | None, to: str
) -> None:
    data = answered(await post(client, GRAPH, name=name, type=entity_type, to=to))
    event(f"entity: {data['entity']['__typename']}")
    assert data["entity"]["__typename"] in {"Entity", "NotFound", "InvalidInput"}
    assert data["path"]["__typename"] in {"EntityPath", "NotFound", "InvalidInput"}


PROFILE_CHANGES = """query($name: String!, $phrase: String) {
  profile(entity: $name, scope: {userId: "alice"}) { __typename
    ... on Profile { groups { kind } } ... on NotFound { message } ... on InvalidInput { message } }
  changes(entity: $name, phrase: $phrase, scope: {userId: "alice"}) { __typename
    ... on ChangeList { changes { summary } } ... on NotFound { message }
    ... on InvalidInput { message } } }"""


@PROPERTY
@given(
    name=st.sampled_from([SECRET, "Alice", "Oslo"]) | hostile_or_long,
    phrase=phrases | longer_than(200),
)
async def test_profile_and_changes_answer_hostile_names_and_phrases(
    client: httpx.AsyncClient, name: str, phrase: str | None
) -> None:
    data = answered(await post(client, PROFILE_CHANGES, name=name, phrase=phrase))
    event(f"changes: {data['changes']['__typename']}")
    assert data["profile"]["__typename"] in {"Profile", "NotFound", "InvalidInput"}
    assert data["changes"]["__typename"] in {"ChangeList", "NotFound", "InvalidInput"}


TENANT = """query($scope: ScopeInput!) {
  search(query: "secret project Bluebird Zanzibar", scope: $scope) {
    __typename ... on SearchHits { hits { memory { text } } } }
  context(query: "secret project Bluebird", scope: $scope) { __typename ... on Context { text } }
  memories(scope: $scope) { __typename ... on MemoryConnection { totalCount } }
  entities(scope: $scope) { __typename ... on EntityConnection { totalCount } }
  entity(name: "Bluebird", scope: $scope) { __typename }
  stats(scope: $scope) { memories messages entities } }"""
NEAR_ALICE = [
    "alice ",
    " alice",
    "Alice",
    "ALICE",
    "alice\u200b",
    "\u200balice",
    "alice\x00",
    "alic\u0435",
    "a\u0301lice",
    "alice' OR 1=1 //",
    "*",
    ".*",
    "$user_id",
    "null",
    "",
]


@PROPERTY
@given(user=st.sampled_from(NEAR_ALICE) | hostile, agent=optional, run=optional)
async def test_hostile_scope_ids_never_reach_another_tenant(
    client: httpx.AsyncClient,
    mallory: httpx.AsyncClient,
    seeded: MemoryService,
    user: str,
    agent: str | None,
    run: str | None,
) -> None:
    assume(unicodedata.normalize("NFC", user) != "alice")
    scope = {"userId": user, "agentId": agent, "runId": run}
    data = answered(await post(client, TENANT, scope=scope))
    event(f"search: {data['search']['__typename']}")
    assert SECRET not in json.dumps(data, ensure_ascii=False)
    assert data["entity"]["__typename"] in {"NotFound", "InvalidInput"}
    assert data["memories"].get("totalCount", 0) == data["entities"].get("totalCount", 0) == 0
    assert data["stats"] is None or set(data["stats"].values()) == {0}
    keyed = answered(await post(mallory, TENANT, scope=scope))
    assert SECRET not in json.dumps(keyed, ensure_ascii=False)
    if unicodedata.normalize("NFC", user) != "mallory":
        assert keyed["search"]["__typename"] in {"Forbidden", "InvalidInput"}
    try:
        hits = await seeded.search("secret project Bluebird", Scope(user_id=user))
    except (EngramError, ValueError):  # ValueError: pydantic refusing the Scope itself
        return
    assert hits == []


# --- known bugs: each fails today; when one passes, drop its mark and widen the strategies -----

SURROGATE = "hello \ud800 world"
CJK_RUN = "我在阿里巴巴集团工作" * 103  # 1,030 characters without a space or punctuation
EDGE = "0001-01-01T00:00:00+14:00"  # a valid ISO instant whose UTC value is before year 1
OUT_OF_CALENDAR = "a datetime whose UTC instant is outside years 1..9999 reaches the driver"
SPEAKER_AS_TEMPLATE = "Chinese extraction uses the speaker as a re.sub template"
MASKED_CASES = [
    (
        "search-query-surrogate",
        SEARCH,
        {"q": SURROGATE},
        "the search query is never validated: a lone surrogate reaches the tokenizer",
    ),
    (
        "search-query-cjk-run",
        SEARCH,
        {"q": CJK_RUN},
        "one CJK word over 1,024 characters: Lucene TooManyClauses from queryNodes",
    ),
    (
        "phrase-over-200",
        SEARCH,
        {"q": "tea", "when": {"phrase": "x" * 201}},
        "TimeFilterInput.to_domain raises pydantic.ValidationError outside to_options' try",
    ),
    (
        "phrase-surrogate",
        SEARCH,
        {"q": "tea", "when": {"phrase": SURROGATE}},
        "TimeFilterInput.to_domain raises pydantic.ValidationError outside to_options' try",
    ),
    (
        "entity-name-surrogate",
        GRAPH,
        {"name": SURROGATE, "to": SECRET},
        "clean_text lets lone surrogates through; the Neo4j driver cannot encode them",
    ),
    (
        "cursor-int-beyond-64-bits",
        PAGES,
        {"after": as_cursor({"s": "said_at:DESC", "k": [2**70, "x"]})},
        "Ordering._decode accepts ints the Neo4j driver cannot pack (OverflowError)",
    ),
    (
        "cursor-string-surrogate",
        PAGES,
        {"after": as_cursor({"s": "name:ASC", "k": ["\ud800", "x"]})},
        "Ordering._decode accepts lone surrogates the Neo4j driver cannot encode",
    ),
    (
        "search-asOf-edge",
        'query($t: DateTime) { search(query: "tea", scope: {userId: "a"}, '
        "asOf: $t) { __typename } }",
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    ("search-when-from-edge", SEARCH, {"q": "tea", "when": {"from": EDGE}}, OUT_OF_CALENDAR),
    (
        "memories-asOf-edge",
        'query($t: DateTime) { memories(scope: {userId: "a"}, asOf: $t) { __typename } }',
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "timeline-from-edge",
        'query($t: DateTime) { timeline(scope: {userId: "a"}, bucket: DAY, from: $t) { count } }',
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "entity-memories-asOf-edge",
        'query($t: DateTime) { entity(name: "Bluebird", scope: '
        '{userId: "alice"}) { ... on Entity { memories(asOf: $t) { text } } } }',
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "profile-asOf-edge",
        'query($t: DateTime) { profile(scope: {userId: "alice"}, entity: "Alice", '
        "asOf: $t) { __typename } }",
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "changes-from-edge",
        'query($t: DateTime) { changes(scope: {userId: "alice"}, from: $t) { __typename } }',
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "changes-referenceTime-edge",
        'query($t: DateTime) { changes(scope: {userId: "alice"}, phrase: "last month", '
        "referenceTime: $t) { __typename } }",
        {"t": EDGE},
        OUT_OF_CALENDAR,
    ),
    (
        "changes-phrase-surrogate",
        'query($p: String) { changes(scope: {userId: "alice"}, phrase: $p) { __typename } }',
        {"p": SURROGATE},
        "a phrase is text: a lone surrogate must be refused before the time rules",
    ),
    (
        "zh-speaker-backslash",
        ADD,
        {
            "scope": {"userId": "alice"},
            "messages": [{"content": "我在阿里巴巴集团工作。", "speaker": "CORP\\jane"}],
        },
        SPEAKER_AS_TEMPLATE,
    ),
    (
        "add-timestamp-edge",
        ADD,
        {"messages": [{"content": "I like tea.", "timestamp": EDGE}], "scope": {"userId": "alice"}},
        OUT_OF_CALENDAR,
    ),
    (
        "add-timestamp-year-10000",
        ADD,
        {
            "scope": {"userId": "alice"},
            "messages": [{"content": "I like tea.", "timestamp": "9999-12-31T23:59:59-14:00"}],
        },
        OUT_OF_CALENDAR,
    ),
]


@pytest.mark.parametrize(
    ("query", "variables"),
    [pytest.param(q, v, id=name) for name, q, v, _ in MASKED_CASES],
)
async def test_known_masked_errors(
    client: httpx.AsyncClient, neo4j_target: Neo4jTarget, query: str, variables: dict[str, Any]
) -> None:
    before = await graph_size(neo4j_target)
    data = answered(await post(client, query, **variables))
    if not any((v or {}).get("__typename") == "AddMessagesSuccess" for v in data.values()):
        assert await graph_size(neo4j_target) == before


async def test_python_search_refuses_a_lone_surrogate_by_name(seeded: MemoryService) -> None:
    with pytest.raises(ValidationError, match="lone surrogate U\\+D800"):
        await seeded.search(SURROGATE, ALICE)


async def test_python_search_answers_a_long_cjk_run_from_the_scope(seeded: MemoryService) -> None:
    hits = await seeded.search(CJK_RUN, ALICE)  # 1,030 characters the tokenizer cannot split
    assert hits and all(h.memory.user_id == ALICE.user_id for h in hits)


# 32 distinct CJK words of 12 characters: the most clauses a search can make, one per character
# (at most 10 of each word) in each of the three fields of the memory full-text query.
MANY_CJK_WORDS = " ".join(
    "".join(chr(0x4E00 + 40 * word + char) for char in range(12)) for word in range(32)
)


async def test_the_widest_cjk_search_stays_within_lucene_clause_limit(
    seeded: MemoryService,
) -> None:
    hits = await seeded.search(MANY_CJK_WORDS, ALICE)  # raised TooManyNestedClauses at 16
    assert all(h.memory.user_id == ALICE.user_id for h in hits)


@pytest.mark.parametrize(
    "speaker",
    [pytest.param("CORP\\bob", id="silently-rewritten"), pytest.param("CORP\\jane", id="crash")],
)
async def test_speaker_of_a_chinese_message_is_kept_verbatim(
    mem: MemoryService, speaker: str
) -> None:
    message = {"content": "我在阿里巴巴集团工作。", "speaker": speaker}
    result = await mem.add([message], ALICE)
    texts = [h.memory.text for h in await mem.search("阿里巴巴", ALICE)]
    assert result.added and any(speaker in text for text in texts), texts


async def test_python_add_refuses_a_timestamp_beyond_the_calendar(mem: MemoryService) -> None:
    edge = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))
    with pytest.raises(ValidationError):
        await mem.add([{"content": "I like tea.", "timestamp": edge}], ALICE)


async def test_one_id_twice_in_a_batch_is_refused_or_kept_apart(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    batch = [
        {"content": "Alice visited Paris with her sister.", "id": "m1"},
        {"content": "Bob bought a red bicycle in Seattle.", "id": "m1"},
    ]
    try:
        result = await mem.add(batch, ALICE, infer=False)
    except ValidationError:
        return
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory)-[:DERIVED_FROM]->(s:Message) "
        "WHERE m.id IN $ids RETURN m.text AS fact, s.text AS source",
        ids=result.added,
    )
    assert rows and all(r["fact"] == r["source"] for r in rows)


async def test_text_limit_holds_after_normalisation(mem: MemoryService) -> None:
    with pytest.raises(ValidationError):
        await mem.add([{"content": "\u0958" * MAX_TEXT_CHARS}], ALICE, infer=False)
