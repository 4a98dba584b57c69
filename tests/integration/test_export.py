"""Export and import of a scope against a real Neo4j (docs/export.md): the round trip into an
empty store gives the same graph, node for node and property for property, and the same answers
to search, time filters, asOf, entities, relations, paths and history; a second import changes
nothing; the CLI and the GraphQL download do the same; a damaged file writes nothing.

The scopes are written once for the module (the slow part: extraction); every test then starts
from an empty database and restores the export it needs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from service.api.app import create_app
from service.api.schema import schema
from service.cli import app as cli
from service.core.config import get_settings
from service.core.domain import Scope
from service.core.errors import ValidationError
from service.core.export_records import encode_vector, to_line
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.graphql_calls import graphql_caller

ALICE, BOB = Scope(user_id="alice-x"), Scope(user_id="bob-x")
WIPE = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS"
NODES = """MATCH (n) WHERE n.user_id = $u
RETURN labels(n) AS labels, properties(n) AS props"""
EDGES = """MATCH (a)-[r]->(b) WHERE a.user_id = $u OR b.user_id = $u
RETURN type(r) AS type, properties(r) AS props, coalesce(a.id, a.key) AS a,
       coalesce(b.id, b.key) AS b"""

# What people and agents ask of a scope: search with time phrases on both clocks, in both
# languages, as of before the move; the entity graph; the history of a replaced and a deleted fact.
ANSWERS = """query($s: ScopeInput!, $q: String!, $when: TimeFilterInput, $asOf: DateTime) {
  search(query: $q, scope: $s, limit: 8, when: $when, asOf: $asOf) { __typename
    ... on SearchHits { hits { score memory { id text saidAt validFrom validTo invalidatedAt }
      retrievers { retriever rank } matchedEntities path sources { id text }
      entities { name type } } } } }"""
GRAPH = """query($s: ScopeInput!, $asOf: DateTime) {
  entities(scope: $s, first: 100) { ... on EntityConnection { totalCount
    edges { node { name type aliases mentionCount firstSeen lastSeen } } } }
  relations(scope: $s, first: 100, asOf: $asOf) { ... on RelationConnection { totalCount
    edges { node { type source { name } target { name } validFrom validTo confidence
      memories { id } inferred evidence { id } } } } }
  profile(scope: $s, entity: "Alice", asOf: $asOf) { ... on Profile { groups { kind facts {
    value since inferred confidence evidence { id } } } } }
  alice: entity(name: "Alice", scope: $s) { ... on Entity { aliases
    neighbors(hops: 2, limit: 50) { entity { name } support relations } } }
  emma: path(from: "Emma", to: "Berlin", scope: $s, maxHops: 3, asOf: $asOf) {
    ... on EntityPath { entities { name } steps { kind forward memories { id } } } }
  zh: path(from: "小红", to: "腾讯科技", scope: $s, maxHops: 3) {
    ... on EntityPath { entities { name } steps { kind memories { id } } } }
  timeline(scope: $s, bucket: MONTH, clock: HAPPENED) { bucketStart count }
  stats(scope: $s) { memories currentMemories superseded messages entities }
}"""
HISTORY = """query($s: ScopeInput!, $id: ID!) { history(memoryId: $id, scope: $s) {
  ... on MemoryHistory { events { id op oldText newText actor at } } } }"""
QUESTIONS: list[dict[str, Any]] = [
    {"q": "Where does Alice live?"},
    {"q": "Where does Alice live?", "asOf": "2024-04-01T00:00:00Z"},
    {"q": "Who does Alice work with at Acme?"},
    {
        "q": "What did Alice do last week?",
        "when": {"phrase": "last week", "referenceTime": "2024-03-08T00:00:00Z"},
    },
    {
        "q": "climbing",
        "when": {"clock": "HAPPENED", "from": "2024-05-01T00:00:00Z", "to": "2024-07-01T00:00:00Z"},
    },
    {"q": "张伟在哪里工作？"},
    {"q": "上个月去了哪里", "when": {"phrase": "上个月", "referenceTime": "2024-06-20T00:00:00Z"}},
    {"q": "pineapple pizza"},
]


def turn(speaker: str, at: str, text: str, session: str) -> dict[str, Any]:
    return {"speaker": speaker, "timestamp": at, "content": text, "session_id": session}


ALICE_TALK = [
    turn(
        "Alice",
        "2024-03-01T10:00:00Z",
        "I live in Lisbon and I work at Acme Robotics with my sister Emma.",
        "s1",
    ),
    turn(
        "Alice", "2024-03-01T10:01:00Z", "Last week I visited the Louvre in Paris with Emma.", "s1"
    ),
    turn("Alice", "2024-03-01T10:02:00Z", "I use Figma every day at Acme Robotics.", "s1"),
    turn("Alice", "2024-06-01T09:00:00Z", "I moved to Berlin in May.", "s2"),
    turn("Alice", "2024-06-01T09:01:00Z", "Yesterday I went climbing with my friend Tariq.", "s2"),
    turn("张伟", "2024-06-05T08:00:00Z", "我叫张伟，我在腾讯科技工作。", "s3"),
    turn("张伟", "2024-06-05T08:01:00Z", "上个月我去了杭州出差。", "s3"),
    turn("张伟", "2024-06-05T08:02:00Z", "我妹妹小红在浙江大学读书，她也在腾讯科技实习。", "s3"),
]
# Climbing on four days (things done: an inferred LIKES), then quitting it and coffee: changes
# of mind that retire relations without superseding a memory.
HABITS = [
    turn("Alice", "2024-04-06T18:00:00Z", "Went climbing at the crag with Theo.", "s4"),
    turn(
        "Alice",
        "2024-04-13T18:00:00Z",
        "I went climbing again after work with Theo, my forearms are done.",
        "s4",
    ),
    turn(
        "Alice",
        "2024-04-20T18:00:00Z",
        "Climbed for two hours tonight with Theo, and sent the blue route.",
        "s4",
    ),
    turn(
        "Alice",
        "2024-04-27T18:00:00Z",
        "I went climbing this morning before the rain, Theo belayed.",
        "s4",
    ),
    turn("Alice", "2024-05-02T08:00:00Z", "I love coffee, two cups every morning.", "s5"),
]
CHANGES_OF_MIND = [
    turn("Alice", "2024-06-03T08:00:00Z", "I quit climbing.", "s6"),
    turn("Alice", "2024-06-03T08:01:00Z", "I'm off coffee, it's green tea for me now.", "s6"),
    turn("张伟", "2024-06-06T08:00:00Z", "我以前很喜欢喝咖啡，每天两杯。", "s7"),
    turn("张伟", "2024-06-20T08:00:00Z", "我现在不喝咖啡了，改喝绿茶。", "s7"),
]
BOB_TALK = [
    turn("Bob", "2024-03-02T10:00:00Z", "I live in Paris and I work at Google with Emma.", "b1"),
    turn("Bob", "2024-03-02T10:01:00Z", "我在阿里巴巴工作，住在杭州。", "b1"),
]


@dataclasses.dataclass(frozen=True)
class Exported:
    """The module's scopes as export files, and what the store held and answered for Alice."""

    alice: Path
    bob: Path
    graph: tuple[list[str], list[str]]
    history_of: list[str]  # a superseded, a deleted and an updated memory
    answers: Answers


gql = graphql_caller(schema)


async def graph_of(target: Neo4jTarget, scope: Scope) -> tuple[list[str], list[str]]:
    """Every node and edge of the scope, all properties (vectors too), in a stable order."""
    nodes = await run_cypher(target, NODES, u=scope.user_id)
    edges = await run_cypher(target, EDGES, u=scope.user_id)

    def stable(rows: list[dict[str, Any]]) -> list[str]:
        return sorted(repr({**r, "props": sorted(r["props"].items())}) for r in rows)

    return stable(nodes), stable(edges)


@dataclasses.dataclass(frozen=True)
class Answers:
    """What a scope answers: search hits, ranked and explained, and the graph's reads."""

    hits: list[list[dict[str, Any]]]
    graph: list[Any]

    def found(self) -> list[tuple[str | None, set[str]]]:
        """Each search's best hit and the memories it found: its answer, whatever order the
        approximate vector index gives below the top (its graph depends on how it was filled)."""
        return [
            (h[0]["memory"]["id"] if h else None, {x["memory"]["id"] for x in h}) for h in self.hits
        ]


async def answers(mem: MemoryService, history_of: list[str]) -> Answers:
    alice = {"userId": ALICE.user_id}
    hits = []
    for q in QUESTIONS:
        found = (await gql(mem, ANSWERS, s=alice, **q))["search"]["hits"]
        for hit in found:  # a hit's entities are a set: the store lists them in no set order
            hit["entities"].sort(key=lambda e: (e["name"], e["type"]))
        hits.append(found)
    graph = [await gql(mem, GRAPH, s=alice, asOf=a) for a in (None, "2024-04-01T00:00:00Z")]
    graph += [await gql(mem, HISTORY, s=alice, id=memory_id) for memory_id in history_of]
    return Answers(hits, graph)


async def export_to(mem: MemoryService, scope: Scope, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        async for record in mem.export(scope):
            f.write(to_line(record))
    return path


@pytest.fixture(scope="module")
async def exported(
    memory: MemoryService, neo4j_target: Neo4jTarget, tmp_path_factory: pytest.TempPathFactory
) -> Exported:
    """Alice's scope (English and Chinese, time phrases, relations, a fact superseded, one
    updated, one deleted, an audited read) and Bob's, written once and exported."""
    await run_cypher(neo4j_target, WIPE)
    added = await memory.add(ALICE_TALK, ALICE)
    assert added.superseded, "Berlin replaces Lisbon"
    await memory.add(HABITS, ALICE)
    for said in CHANGES_OF_MIND:  # one add each, as an agent sends them
        await memory.add([said], ALICE)
    await memory.add(BOB_TALK, BOB)
    pizza = turn("Alice", "2024-06-02T09:00:00Z", "I secretly love pineapple pizza.", "s2")
    [doomed] = (await memory.add([pizza], ALICE)).added
    await memory.delete(doomed, ALICE)
    figma = next(h.memory.id for h in await memory.search("Figma", ALICE, limit=1))
    await memory.update(figma, "I use Figma and Blender every day at Acme Robotics.", ALICE)
    audited = dataclasses.replace(
        memory, settings=memory.settings.model_copy(update={"audit_reads": True})
    )
    await audited.search("where does Alice live", ALICE)  # a read event in the audit trail
    folder = tmp_path_factory.mktemp("export")
    history_of = [*added.superseded, doomed, figma]
    return Exported(
        alice=await export_to(memory, ALICE, folder / "alice.jsonl"),
        bob=await export_to(memory, BOB, folder / "bob.jsonl"),
        graph=await graph_of(neo4j_target, ALICE),
        history_of=history_of,
        answers=await answers(memory, history_of),
    )


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def without_time_of_export(path: Path) -> list[dict[str, Any]]:
    found = records(path)
    return [{**found[0], "exported_at": None}, *found[1:]]


async def test_the_file_holds_the_scope_whole_and_nothing_of_another(exported: Exported) -> None:
    found = records(exported.alice)
    assert found[0]["format"] == "engram-export" and found[0]["scope"] == {"user_id": "alice-x"}
    counts = found[-1]["counts"]
    assert all(counts.values()), counts  # every kind of record is there
    text = exported.alice.read_text(encoding="utf-8")
    assert "bob-x" not in text and "Google" not in text and "阿里巴巴" not in text
    memories = [r for r in found if r["record"] == "memory"]
    assert any("invalidated_at" in m for m in memories), "the superseded fact, with its time"
    assert any("valid_from" in m and "valid_to" in m for m in memories), "a time phrase's"
    assert all(m["embedding_model"] and m["embedding"] for m in memories)
    ops = {e["op"] for e in found if e["record"] == "memory_event"}
    assert ops >= {"ADD", "SUPERSEDE", "UPDATE", "DELETE"}, ops
    relations = [r for r in found if r["record"] == "relation"]
    assert any(r["type"] == "DOES" and "day" in r for r in relations), "things done, by day"
    inferred = [r for r in relations if r.get("inferred")]
    assert inferred and all("last_evidence" in r and "evidence_days" in r for r in inferred)
    assert any("invalidated_at" in r for r in inferred), "quitting retired the inferred LIKES"


async def test_the_round_trip_gives_the_same_graph_and_answers(
    mem: MemoryService, neo4j_target: Neo4jTarget, exported: Exported, tmp_path: Path
) -> None:
    report = await mem.restore(exported.alice)
    assert report.restored == report.file.counts and report.reembedded == 0
    assert await graph_of(neo4j_target, ALICE) == exported.graph
    # Bob's scope too: search ranks within what the store's indexes hold, so the same answers
    # need the same store around the scope.
    await mem.restore(exported.bob)
    restored = await answers(mem, exported.history_of)
    assert restored.graph == exported.answers.graph  # entities, relations, paths, profile …
    assert restored.found() == exported.answers.found()
    again = await mem.restore(exported.alice)  # a second import changes nothing
    assert again.restored.total == 0 and again.present == again.file.counts
    assert await graph_of(neo4j_target, ALICE) == exported.graph
    # The vector index's order below the top depends on how it was filled: an import of the
    # restored scope's own export answers exactly as the restored store, scores included.
    second = await export_to(mem, ALICE, tmp_path / "second.jsonl")
    await run_cypher(neo4j_target, WIPE)
    await mem.restore(second)
    await mem.restore(exported.bob)
    assert await answers(mem, exported.history_of) == restored


async def test_memories_of_another_model_are_embedded_again(
    mem: MemoryService, neo4j_target: Neo4jTarget, exported: Exported, tmp_path: Path
) -> None:
    """A file from a service on another model: its vectors are not used; the memories are
    embedded by this one, in their context, as the write path embeds them."""
    found = records(exported.alice)
    for r in found:
        if r["record"] == "memory":
            r["embedding_model"] = "another-model"
            r["embedding"] = encode_vector([0.5] * 8)
            r.pop("content_embedding", None)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in found), encoding="utf-8")
    report = await mem.restore(other)
    assert report.reembedded == report.file.counts.memories
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory {user_id: $u}) RETURN m.embedding_model AS model, size(m.embedding) AS n",
        u=ALICE.user_id,
    )
    assert {(r["model"], r["n"]) for r in rows} == {(mem.embedder.model_name, 384)}
    hits = await gql(mem, ANSWERS, s={"userId": ALICE.user_id}, **QUESTIONS[0])
    top = [h["memory"]["id"] for h in hits["search"]["hits"][:3]]
    assert top == [h["memory"]["id"] for h in exported.answers.hits[0][:3]]


def test_the_cli_imports_and_exports(
    mem: MemoryService,
    neo4j_target: Neo4jTarget,
    exported: Exported,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`engram import` restores a file; `engram export --user-id … > file` writes the same
    records again; a re-import writes nothing, a file cut short nothing at all. (A plain test:
    the commands run their own event loops.)"""
    monkeypatch.setenv("ENGRAM_NEO4J_URI", neo4j_target.uri)
    monkeypatch.setenv("ENGRAM_NEO4J_PASSWORD", neo4j_target.password)
    get_settings.cache_clear()
    again, cut = tmp_path / "again.jsonl", tmp_path / "cut.jsonl"
    try:
        first = CliRunner().invoke(cli, ["import", str(exported.alice)])
        out = CliRunner().invoke(cli, ["export", "--user-id", ALICE.user_id])
        again.write_text(out.stdout, encoding="utf-8")
        cut.write_text("".join(out.stdout.splitlines(keepends=True)[:-1]), encoding="utf-8")
        asyncio.run(run_cypher(neo4j_target, WIPE))
        wrong = CliRunner().invoke(cli, ["import", str(again), "--user-id", BOB.user_id])
        short = CliRunner().invoke(cli, ["import", str(cut)])
        empty = asyncio.run(run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n"))
        restored = CliRunner().invoke(cli, ["import", str(again)])
        second = CliRunner().invoke(cli, ["import", str(again)])
    finally:
        get_settings.cache_clear()
    memories = records(exported.alice)[-1]["counts"]["memories"]
    assert first.exit_code == 0, first.output
    assert f"{memories} of {memories} memories" in first.output
    assert out.exit_code == 0, out.output
    assert "exported {'user_id': 'alice-x'}" in out.stderr
    # What the store restored is what it exports again: the same records.
    assert without_time_of_export(again) == without_time_of_export(exported.alice)
    assert wrong.exit_code == 1 and "leave --user-id out" in wrong.output
    assert short.exit_code == 1 and "cut short" in short.output
    assert empty == [{"n": 0}]
    assert restored.exit_code == 0 and f"{memories} of {memories} memories" in restored.output
    assert second.exit_code == 0 and f"0 of {memories} memories" in second.output
    assert "in the store already" in second.output
    assert asyncio.run(graph_of(neo4j_target, ALICE)) == exported.graph


async def test_a_damaged_file_writes_nothing(
    mem: MemoryService, neo4j_target: Neo4jTarget, exported: Exported, tmp_path: Path
) -> None:
    """The whole file is checked first: a bad line near the end leaves an empty store empty,
    and a store that holds the scope exactly as it was."""
    found = exported.alice.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join([*found[:-2], '{"record": "memory_event"}\n', found[-1]]))
    with pytest.raises(ValidationError, match=rf"line {len(found) - 1}: memory_event"):
        await mem.restore(damaged)
    assert (await run_cypher(neo4j_target, "MATCH (n) RETURN count(n) AS n"))[0]["n"] == 0
    newer = tmp_path / "newer.jsonl"
    head = {**json.loads(found[0]), "version": 2}
    newer.write_text("".join([json.dumps(head) + "\n", *found[1:]]))
    await mem.restore(exported.alice)
    for bad in (damaged, newer):
        with pytest.raises(ValidationError):
            await mem.restore(bad)
    assert await graph_of(neo4j_target, ALICE) == exported.graph


EXPORT = """query($s: ScopeInput!) { export(scope: $s) { __typename
  ... on ScopeExport { url filename mediaType format version
    counts { messages memories entities mentions relations supersessions memoryEvents
             readEvents } }
  ... on Forbidden { message } } }"""
KEYS = {
    "alice-export-key-0123": {"principal": "alice-app", "user_ids": [ALICE.user_id]},
    "bob-export-key-456789": {"principal": "bob-app", "user_ids": [BOB.user_id]},
}


async def test_graphql_links_the_download_of_the_keys_own_scope(
    mem: MemoryService, neo4j_target: Neo4jTarget, exported: Exported
) -> None:
    await mem.restore(exported.alice)
    await mem.restore(exported.bob)
    settings = neo4j_target.settings(api_keys=KEYS, audit_reads=True)
    audited = dataclasses.replace(mem, settings=settings)
    transport = httpx.ASGITransport(app=create_app(settings, memory=audited))
    alice_key, bob_key = ({"X-API-Key": key} for key in KEYS)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:

        async def export(key: dict[str, str], user_id: str) -> dict[str, Any]:
            body = {"query": EXPORT, "variables": {"s": {"userId": user_id}}}
            response = await http.post("/graphql", json=body, headers=key)
            return dict(response.json()["data"]["export"])

        link = await export(alice_key, ALICE.user_id)
        assert link["__typename"] == "ScopeExport", link
        assert link["url"] == "/export?userId=alice-x"
        assert link["filename"] == "engram-user-alice-x.jsonl"
        assert (link["format"], link["version"]) == ("engram-export", 1)
        counts = records(exported.alice)[-1]["counts"]
        assert link["counts"] == {
            "".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): v
            for k, v in counts.items()
        }
        download = await http.get(link["url"], headers=alice_key)
        assert download.status_code == 200, download.text
        assert download.headers["content-type"].startswith("application/x-ndjson")
        assert 'filename="engram-user-alice-x.jsonl"' in download.headers["content-disposition"]
        got = [json.loads(line) for line in download.text.splitlines()]
        assert [{**got[0], "exported_at": None}, *got[1:]] == without_time_of_export(exported.alice)
        # Bob's key: not Alice's scope, neither the link nor the file; no key: nothing.
        assert (await export(bob_key, ALICE.user_id))["__typename"] == "Forbidden"
        assert (await http.get(link["url"], headers=bob_key)).status_code == 403
        assert (await http.get(link["url"])).status_code == 401
        assert (await http.get("/export", headers=bob_key)).status_code == 400  # no scope
        own = await http.get(f"/export?userId={BOB.user_id}", headers=bob_key)
        assert own.status_code == 200 and ALICE.user_id not in own.text
    reads = await run_cypher(
        neo4j_target,
        "MATCH (e:ReadEvent {operation: 'export'}) RETURN e.user_id AS u, e.actor AS a",
    )
    assert sorted((r["u"], r["a"]) for r in reads) == [
        (ALICE.user_id, "alice-app"),
        (BOB.user_id, "bob-app"),
    ]
