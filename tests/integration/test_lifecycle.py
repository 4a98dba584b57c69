"""The memory lifecycle against a real Neo4j: get, update, delete, history, forget, evict, reset,
in Python and over GraphQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import strawberry
from strawberry.tools import merge_types

from service.api.context import RequestContext
from service.api.dashboard import DashboardQuery
from service.api.graph import GraphQuery
from service.api.lifecycle import LifecycleMutation, LifecycleQuery
from service.api.schema import Mutation, Query
from service.core.auth import Principal
from service.core.domain import Scope
from service.core.errors import ForbiddenError, NotFoundError, ValidationError
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher

ANNA = Scope(user_id="tenant-a")
BORIS = Scope(user_id="tenant-b")
CONVERSATION = [
    {"id": "a1", "speaker": "Anna", "timestamp": "2024-05-10T09:00:00Z", "content": "Hi there!"},
    {
        "id": "a2",
        "speaker": "Anna",
        "timestamp": "2024-05-10T09:01:00Z",
        "content": "I live in Boston with my sister Clara.",
    },
    {
        "id": "a3",
        "speaker": "Anna",
        "timestamp": "2024-05-10T09:02:00Z",
        "content": "I work at Google as a data engineer.",
    },
    {
        "id": "a4",
        "speaker": "Anna",
        "timestamp": "2024-06-01T09:00:00Z",
        "content": "I moved to Seattle for a new job.",
    },
]
schema = strawberry.Schema(query=LifecycleQuery, mutation=LifecycleMutation)


def context(mem: MemoryService, principal: Principal | None = None) -> RequestContext:
    return RequestContext(mem, principal or Principal.unrestricted("test"))


async def gql(
    mem: MemoryService, query: str, principal: Principal | None = None, **variables: Any
) -> Any:
    result = await schema.execute(
        query, variable_values=variables, context_value=context(mem, principal)
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data


async def memory_id(mem: MemoryService, scope: Scope, fragment: str) -> str:
    page = await mem.lifecycle.get_all(scope, first=100)
    return next(e.node.id for e in page.edges if fragment in e.node.text)


async def scope_snapshot(target: Neo4jTarget, user_id: str) -> dict[str, int]:
    """Node counts by label and edge counts by type touching the user's nodes."""
    nodes = await run_cypher(
        target,
        "MATCH (n {user_id: $u}) RETURN labels(n)[0] AS k, count(*) AS n",
        u=user_id,
    )
    edges = await run_cypher(
        target,
        "MATCH (n {user_id: $u})-[r]-() WITH DISTINCT r RETURN type(r) AS k, count(*) AS n",
        u=user_id,
    )
    return {str(r["k"]): int(r["n"]) for r in nodes + edges}  # type: ignore[call-overload]


async def mentioned(target: Neo4jTarget, memory: str) -> dict[str, str]:
    rows = await run_cypher(
        target,
        "MATCH (m:Memory {id: $id})-[r:MENTIONS]->(e:Entity) "
        "RETURN e.name AS name, substring(m.source_text, r.start, r.end - r.start) AS span",
        id=memory,
    )
    return {str(r["name"]): str(r["span"]) for r in rows}


async def entity_names(target: Neo4jTarget, user_id: str) -> set[str]:
    rows = await run_cypher(target, "MATCH (e:Entity {user_id: $u}) RETURN e.name AS n", u=user_id)
    return {str(r["n"]) for r in rows}


# --- get, get_all, history, not found -------------------------------------------------------


async def test_get_counts_reads_and_get_all_pages(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    life = mem.lifecycle
    first = await life.get_all(ANNA, first=2)
    assert first.total_count == 3 and len(first.edges) == 2 and first.has_next_page
    rest = await life.get_all(ANNA, first=2, after=first.end_cursor)
    assert len(rest.edges) == 1 and not rest.has_next_page
    google = await memory_id(mem, ANNA, "Google")
    got = await life.get(google, ANNA)
    await life.get(google, ANNA)
    assert got.text == "Anna works at Google as a data engineer." and got.user_id == "tenant-a"
    rows = await run_cypher(neo4j_target, "MATCH (m:Memory) RETURN m.id AS id, m.access_count AS n")
    assert {r["id"]: r["n"] for r in rows}[google] == 2
    assert sorted(r["n"] for r in rows) == [0, 0, 2]  # type: ignore[type-var]


async def test_an_id_from_another_scope_is_not_found(mem: MemoryService) -> None:
    await mem.add(CONVERSATION, ANNA)
    life = mem.lifecycle
    google = await memory_id(mem, ANNA, "Google")
    calls = [
        life.get(google, BORIS),
        life.history(google, BORIS),
        life.delete(google, BORIS),
        life.update(google, "Boris works at Google.", BORIS),
    ]
    for call in calls:
        with pytest.raises(NotFoundError) as foreign:
            await call
        assert str(foreign.value) == f"no memory {google!r} in this scope"
    with pytest.raises(NotFoundError, match="no memory 'no-such-id' in this scope"):
        await life.get("no-such-id", ANNA)
    assert (await life.get(google, ANNA)).text.startswith("Anna works at Google")
    data = await gql(
        mem,
        "query($id: ID!, $s: ScopeInput!) { memory(id: $id, scope: $s) { __typename "
        "... on NotFound { message } } history(memoryId: $id, scope: $s) { __typename } }",
        id=google,
        s={"userId": "tenant-b"},
    )
    assert data["memory"]["__typename"] == "NotFound"
    assert data["history"]["__typename"] == "NotFound"


# --- update ----------------------------------------------------------------------------------


async def test_update_reembeds_relinks_and_records_both_texts(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    life = mem.lifecycle
    google = await memory_id(mem, ANNA, "Google")
    assert "Google" in await mentioned(neo4j_target, google)
    before = await run_cypher(
        neo4j_target, "MATCH (m:Memory {id: $id}) RETURN m.embedding AS e", id=google
    )

    updated = await life.update(google, "Anna works at Microsoft in Lisbon.", ANNA, actor="ops")

    assert updated.id == google and updated.text == "Anna works at Microsoft in Lisbon."
    after = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {id: $id}) RETURN m.embedding AS e, m.source_text AS s, m.hash AS h",
        id=google,
    )
    assert after[0]["e"] != before[0]["e"] and after[0]["s"] == updated.text
    links = await mentioned(neo4j_target, google)
    assert {"Microsoft", "Lisbon"} <= set(links) and "Google" not in links
    assert all(span == name for name, span in links.items())  # offsets point into the new text
    assert "Google" not in await entity_names(neo4j_target, "tenant-a")  # orphan removed
    hits = await mem.search("Which company does Anna work for, Microsoft?", ANNA, limit=5)
    assert hits[0].memory.id == google and hits[0].memory.text == updated.text
    assert not any("Google" in h.memory.text for h in hits)
    google_hits = await mem.search("Google", ANNA, limit=5)
    assert not any("Google" in h.memory.text for h in google_hits)
    events = await life.history(google, ANNA)
    assert [e.op for e in events] == ["ADD", "UPDATE"]
    assert events[1].old_text == "Anna works at Google as a data engineer."
    assert events[1].new_text == updated.text and events[1].actor == "ops"


async def test_update_keeps_the_conversation_the_memory_came_from(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    google = await memory_id(mem, ANNA, "Google")
    [before] = await run_cypher(
        neo4j_target, "MATCH (m:Memory {id: $id}) RETURN m.context_texts AS c", id=google
    )
    assert before["c"]  # it followed another message of the same call
    new_text = "Anna works at Microsoft in Lisbon."
    await mem.lifecycle.update(google, new_text, ANNA)
    [after] = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {id: $id}) RETURN m.context_texts AS c, m.embedding AS e, "
        "m.content_embedding AS own",
        id=google,
    )
    [expected] = await mem.embedder.aembed_memories([new_text], [before["c"]])
    assert after["c"] == before["c"] and after["e"] == pytest.approx(expected.search, abs=1e-6)
    assert after["own"] == pytest.approx(expected.own, abs=1e-6)


async def test_update_refuses_bad_or_duplicate_text_and_ignores_the_same_text(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    life = mem.lifecycle
    google = await memory_id(mem, ANNA, "Google")
    before = await scope_snapshot(neo4j_target, "tenant-a")
    with pytest.raises(ValidationError, match="text"):
        await life.update(google, "   ", ANNA)
    with pytest.raises(ValidationError, match="already says this"):
        await life.update(google, "anna moved to  SEATTLE for a new job.", ANNA)
    same = await life.update(google, "Anna works at Google as a data engineer.", ANNA)
    assert same.text == "Anna works at Google as a data engineer."
    assert await scope_snapshot(neo4j_target, "tenant-a") == before


# --- delete, delete_all, history ---------------------------------------------------------------


async def test_delete_keeps_the_event_and_removes_only_orphaned_entities(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    await mem.add([{"content": "Clara works at Google in London.", "speaker": "Anna"}], ANNA)
    life = mem.lifecycle
    boston = await memory_id(mem, ANNA, "Boston")
    names = await entity_names(neo4j_target, "tenant-a")
    assert {"Boston", "Clara"} <= names

    report = await life.delete(boston, ANNA, actor="ops")

    assert report.memory_ids == [boston]
    left = await entity_names(neo4j_target, "tenant-a")
    assert "Boston" not in left and "Clara" in left  # Clara is mentioned by another memory
    assert any("boston" in k for k in report.entity_keys)
    assert not any("clara" in k for k in report.entity_keys)
    with pytest.raises(NotFoundError):
        await life.get(boston, ANNA)
    events = await life.history(boston, ANNA)
    assert [e.op for e in events] == ["ADD", "SUPERSEDE", "DELETE"]
    assert events[-1].old_text == "Anna lives in Boston with Anna's sister Clara." or (
        events[-1].old_text and "Boston" in events[-1].old_text
    )
    assert events[-1].actor == "ops" and events[0].at <= events[1].at <= events[2].at
    edges = await run_cypher(neo4j_target, "MATCH (:Memory {id: $id})-[r]-() RETURN r", id=boston)
    assert edges == []


async def test_history_lists_every_change_oldest_first(mem: MemoryService) -> None:
    added = await mem.add(
        [{"content": "Anna plays the violin every evening.", "speaker": "Anna"}], ANNA
    )
    life = mem.lifecycle
    violin = added.added[0]
    await life.update(violin, "Anna plays the cello every evening.", ANNA)
    await life.update(violin, "Anna plays the cello on weekends.", ANNA)
    await life.delete(violin, ANNA)
    events = await life.history(violin, ANNA)
    assert [e.op for e in events] == ["ADD", "UPDATE", "UPDATE", "DELETE"]
    texts = [(e.old_text, e.new_text) for e in events]
    assert texts == [
        (None, "Anna plays the violin every evening."),
        ("Anna plays the violin every evening.", "Anna plays the cello every evening."),
        ("Anna plays the cello every evening.", "Anna plays the cello on weekends."),
        ("Anna plays the cello on weekends.", None),
    ]
    assert [e.at for e in events] == sorted(e.at for e in events)


async def test_delete_all_removes_the_scopes_memories_only(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    await mem.add(CONVERSATION, BORIS)
    boris = await scope_snapshot(neo4j_target, "tenant-b")
    report = await mem.lifecycle.delete_all(ANNA, actor="ops")
    assert len(report.memory_ids) == 3
    anna = await scope_snapshot(neo4j_target, "tenant-a")
    assert "Memory" not in anna and "Entity" not in anna
    assert anna["Message"] == 4 and anna["MemoryEvent"] == 3 + 1 + 3  # ADD, SUPERSEDE, DELETE
    assert await scope_snapshot(neo4j_target, "tenant-b") == boris


# --- forget ---------------------------------------------------------------------------------


async def forgettable_scope(mem: MemoryService) -> None:
    """Anna's conversation with a supersession and an update; Boris says the same things."""
    await mem.add(CONVERSATION, ANNA)
    await mem.add(CONVERSATION, BORIS)
    google = await memory_id(mem, ANNA, "Google")
    await mem.lifecycle.update(google, "Anna works at Microsoft in Lisbon.", ANNA)


async def test_forget_dry_run_lists_exactly_what_the_real_run_removes(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await forgettable_scope(mem)
    life = mem.lifecycle
    before = await scope_snapshot(neo4j_target, "tenant-a")
    dry = await life.forget(ANNA, dry_run=True)
    assert await scope_snapshot(neo4j_target, "tenant-a") == before  # a dry run writes nothing
    assert dry.verified is None and dry.leftovers is None
    assert len(dry.messages) == before["Message"] == 4
    assert len(dry.memories) == before["Memory"] == 3
    assert len(dry.entities) == before["Entity"]
    assert len(dry.mentions) == before["MENTIONS"] and len(dry.supersedes) == 1
    assert len(dry.derived_from) == before["DERIVED_FROM"] == 3
    assert len(dry.events_redacted) == before["MemoryEvent"] == 3 + 1 + 1

    real = await life.forget(ANNA, dry_run=False, actor="dpo")

    assert real.model_dump(exclude={"dry_run", "forget_events", "leftovers"}) == dry.model_dump(
        exclude={"dry_run", "forget_events", "leftovers"}
    )
    assert real.verified is True and real.forget_events == 3
    assert real.leftovers is not None and real.leftovers.none


async def test_after_forget_nothing_of_the_scope_can_be_found(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await forgettable_scope(mem)
    boris_before = await scope_snapshot(neo4j_target, "tenant-b")
    content = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {user_id: 'tenant-a'}) RETURN m.id AS id, m.text AS text, "
        "m.source_text AS source, m.embedding AS embedding",
    )
    names = await entity_names(neo4j_target, "tenant-a")
    forgotten = {str(r["text"]) for r in content} | {str(r["source"]) for r in content}
    forgotten |= {str(m["content"]) for m in CONVERSATION} | names
    forgotten |= {"Anna works at Google as a data engineer."}  # the text before the update

    report = await mem.lifecycle.forget(ANNA, dry_run=False)

    assert report.verified is True
    left = await run_cypher(
        neo4j_target,
        "MATCH (n {user_id: 'tenant-a'}) RETURN labels(n)[0] AS label, n.op AS op, "
        "n.old_text AS old, n.new_text AS new",
    )
    assert {r["label"] for r in left} == {"MemoryEvent"}
    assert all(r["old"] is None and r["new"] is None for r in left)
    assert sorted(str(r["op"]) for r in left).count("FORGET") == 3
    strings = await run_cypher(
        neo4j_target,
        "MATCH (n {user_id: 'tenant-a'}) UNWIND keys(n) AS k WITH n[k] AS v "
        "WHERE v IS :: STRING OR v IS :: LIST<STRING> "
        "RETURN CASE WHEN v IS :: STRING THEN [v] ELSE v END AS values",
    )
    stored = [str(v) for r in strings for v in r["values"]]  # type: ignore[attr-defined]
    assert not [t for t in forgotten for v in stored if t in v]
    for row in content:
        hits = await run_cypher(
            neo4j_target,
            "CALL db.index.vector.queryNodes('memory_embedding', 50, $e) YIELD node "
            "RETURN node.user_id AS user",
            e=row["embedding"],
        )
        assert "tenant-a" not in {h["user"] for h in hits} and hits  # Boris's twins still answer
    for text in forgotten:
        phrase = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        hits = await run_cypher(
            neo4j_target,
            "CALL db.index.fulltext.queryNodes('memory_text', $q) YIELD node "
            "RETURN node.user_id AS user",
            q=phrase,
        )
        assert "tenant-a" not in {h["user"] for h in hits}
    assert await mem.search("Where does Anna live and work?", ANNA) == []
    assert await scope_snapshot(neo4j_target, "tenant-b") == boris_before
    history = await mem.lifecycle.history(str(content[0]["id"]), ANNA)
    assert history[-1].op == "FORGET" and all(e.old_text is None for e in history)


async def test_forget_over_graphql_is_scoped_to_the_callers_key(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    await mem.add(CONVERSATION, BORIS)
    forget = """
    mutation($s: ScopeInput!, $dry: Boolean!) { forget(scope: $s, dryRun: $dry) {
      __typename
      ... on ForgetReport { dryRun verified memoryIds entityKeys
        counts { messages memories entities mentions derivedFrom supersedes eventsRedacted }
        verification { nodesLeft textsLeft fulltextHits entityHits vectorHits } }
      ... on Forbidden { message } } }"""
    boris_key = Principal("boris-app", frozenset({"tenant-b"}), frozenset({"*"}), frozenset({"*"}))
    refused = await gql(mem, forget, boris_key, s={"userId": "tenant-a"}, dry=False)
    assert refused["forget"]["__typename"] == "Forbidden"
    assert (await scope_snapshot(neo4j_target, "tenant-a"))["Memory"] == 3
    anna = {"userId": "tenant-a"}
    dry = (await gql(mem, forget, s=anna, dry=True))["forget"]
    real = (await gql(mem, forget, s=anna, dry=False))["forget"]
    assert dry["dryRun"] is True and dry["verified"] is None and dry["verification"] is None
    assert dry["counts"] == real["counts"] and dry["memoryIds"] == real["memoryIds"]
    assert real["counts"]["memories"] == 3 and real["counts"]["messages"] == 4
    assert real["verified"] is True and set(real["verification"].values()) == {0}
    assert (await scope_snapshot(neo4j_target, "tenant-b"))["Memory"] == 3


# --- evict ----------------------------------------------------------------------------------

OLD_AND_NEW = [
    {
        "speaker": "Anna",
        "timestamp": "2019-03-01T10:00:00Z",
        "content": "I bought a second-hand piano for my apartment.",
    },
    {
        "speaker": "Anna",
        "timestamp": "2019-04-01T10:00:00Z",
        "content": "My favourite painter is Claude Monet.",
    },
    {
        "speaker": "Anna",
        "timestamp": "2024-04-01T10:00:00Z",
        "content": "I am training for the Berlin marathon this autumn.",
    },
    {
        "speaker": "Anna",
        "timestamp": "2024-04-02T10:00:00Z",
        "content": "Should I switch my running shoes to a lighter pair?",
    },
]


async def test_evict_by_age_access_or_confidence_with_a_faithful_dry_run(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(OLD_AND_NEW, ANNA)
    await mem.add(OLD_AND_NEW, BORIS)
    boris = await scope_snapshot(neo4j_target, "tenant-b")
    life = mem.lifecycle
    piano, monet = await memory_id(mem, ANNA, "piano"), await memory_id(mem, ANNA, "Monet")
    marathon, shoes = await memory_id(mem, ANNA, "marathon"), await memory_id(mem, ANNA, "shoes")
    await life.get(marathon, ANNA)
    cutoff = datetime(2020, 1, 1, tzinfo=UTC)

    by_age = await life.evict(ANNA, older_than=cutoff, dry_run=True)
    assert by_age.memory_ids == sorted([piano, monet])
    assert any("monet" in k for k in by_age.entity_keys)
    by_access = await life.evict(ANNA, max_access_count=0, dry_run=True)
    assert by_access.memory_ids == sorted([piano, monet, shoes])
    by_confidence = await life.evict(ANNA, min_confidence=0.7, dry_run=True)
    assert by_confidence.memory_ids == [shoes]  # a question is stored with less confidence
    either = await life.evict(ANNA, older_than=cutoff, min_confidence=0.7, dry_run=True)
    assert either.memory_ids == sorted([piano, monet, shoes])

    real = await life.evict(ANNA, older_than=cutoff, min_confidence=0.7, dry_run=False)

    assert real.model_dump(exclude={"dry_run"}) == either.model_dump(exclude={"dry_run"})
    remaining = await life.get_all(ANNA)
    assert [e.node.id for e in remaining.edges] == [marathon]
    events = await run_cypher(
        neo4j_target,
        "MATCH (e:MemoryEvent {op: 'DELETE', user_id: 'tenant-a'}) "
        "RETURN e.actor AS actor, e.old_text AS text",
    )
    assert len(events) == 3 and {e["actor"] for e in events} == {"eviction"}
    assert all(e["text"] for e in events)
    assert not (await entity_names(neo4j_target, "tenant-a")) & {"Claude Monet", "Monet"}
    assert await scope_snapshot(neo4j_target, "tenant-b") == boris


async def test_evict_needs_a_valid_criterion(mem: MemoryService) -> None:
    life = mem.lifecycle
    with pytest.raises(ValidationError, match="criterion"):
        await life.evict(ANNA, dry_run=True)
    with pytest.raises(ValidationError, match="minConfidence"):
        await life.evict(ANNA, min_confidence=1.5)
    data = await gql(
        mem,
        'mutation { evict(scope: {userId: "tenant-a"}, dryRun: true, maxAccessCount: -1) '
        "{ __typename ... on InvalidInput { message } } }",
    )
    assert data["evict"]["__typename"] == "InvalidInput"


# --- reset ----------------------------------------------------------------------------------


async def test_reset_is_refused_without_the_phrase_or_the_setting(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ANNA)
    await mem.add(CONVERSATION, BORIS)
    before = await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n")
    life = mem.lifecycle
    with pytest.raises(ValidationError, match="delete everything"):
        await life.reset("yes", allow_reset=True)
    with pytest.raises(ForbiddenError, match="disabled"):
        await life.reset("delete everything", allow_reset=False)
    assert await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n") == before
    deleted = await life.reset("delete everything", allow_reset=True)
    assert deleted == before[0]["n"]
    assert await run_cypher(neo4j_target, "MATCH (n) RETURN n LIMIT 1") == []


# --- GraphQL --------------------------------------------------------------------------------


async def test_add_update_history_and_delete_over_graphql(mem: MemoryService) -> None:
    scope = {"userId": "tenant-a"}
    added = await gql(
        mem,
        'mutation($s: ScopeInput!) { addMemory(text: "I prefer green tea to coffee. Really.", '
        'scope: $s, speaker: "Anna", timestamp: "2024-05-01T08:00:00Z") { __typename '
        "... on AddMessagesSuccess { added } } }",
        s=scope,
    )
    (tea,) = added["addMemory"]["added"]
    updated = await gql(
        mem,
        'mutation($id: ID!, $s: ScopeInput!) { updateMemory(id: $id, text: "Anna prefers '
        'oolong tea.", scope: $s) { __typename ... on Memory { id text saidAt } } }',
        id=tea,
        s=scope,
    )
    assert updated["updateMemory"] == {
        "__typename": "Memory",
        "id": tea,
        "text": "Anna prefers oolong tea.",
        "saidAt": "2024-05-01T08:00:00+00:00",
    }
    empty = await gql(
        mem,
        'mutation($id: ID!, $s: ScopeInput!) { updateMemory(id: $id, text: "", scope: $s) '
        "{ __typename } }",
        id=tea,
        s=scope,
    )
    assert empty["updateMemory"]["__typename"] == "InvalidInput"
    deleted = await gql(
        mem,
        "mutation($id: ID!, $s: ScopeInput!) { deleteMemory(id: $id, scope: $s) { __typename "
        "... on DeletedMemory { memoryId } } }",
        id=tea,
        s=scope,
    )
    assert deleted["deleteMemory"] == {"__typename": "DeletedMemory", "memoryId": tea}
    history = await gql(
        mem,
        "query($id: ID!, $s: ScopeInput!) { memory(id: $id, scope: $s) { __typename } "
        "history(memoryId: $id, scope: $s) { ... on MemoryHistory { events { op oldText "
        "newText actor } } } }",
        id=tea,
        s=scope,
    )
    assert history["memory"]["__typename"] == "NotFound"
    assert history["history"]["events"] == [
        {
            "op": "ADD",
            "oldText": None,
            "newText": "I prefer green tea to coffee. Really.",
            "actor": "test",
        },
        {
            "op": "UPDATE",
            "oldText": "I prefer green tea to coffee. Really.",
            "newText": "Anna prefers oolong tea.",
            "actor": "test",
        },
        {"op": "DELETE", "oldText": "Anna prefers oolong tea.", "newText": None, "actor": "test"},
    ]


def test_lifecycle_types_merge_into_the_root_schema() -> None:
    merged = strawberry.Schema(
        query=merge_types("Query", (Query, DashboardQuery, GraphQuery, LifecycleQuery)),
        mutation=merge_types("Mutation", (Mutation, LifecycleMutation)),
    )
    sdl = merged.as_str()
    assert "forget(scope: ScopeInput!, dryRun: Boolean!): ForgetResult!" in sdl
    assert "history(memoryId: ID!, scope: ScopeInput!): HistoryResult!" in sdl
