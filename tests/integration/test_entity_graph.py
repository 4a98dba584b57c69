"""The entity graph through GraphQL, against a real Neo4j: one node per real thing, speakers in
the graph, no junk, typed relations (closed, not deleted, when their memory is superseded),
aliases as path endpoints, and `engram relink` on a store written the old way."""

from __future__ import annotations

from typing import Any

import pytest

from service.api.schema import schema
from service.lifecycle.relink import count_unlinked, relink
from service.memory import MemoryService
from tests.conftest import Neo4jTarget, run_cypher
from tests.graphql_calls import graphql_caller

pytestmark = pytest.mark.integration

ADD = """mutation($m: [MessageInput!]!, $s: ScopeInput!) { addMessages(messages: $m, scope: $s) {
  __typename ... on AddMessagesSuccess { added superseded } ... on InvalidInput { message } } }"""
ENTITY = """query($n: String!, $s: ScopeInput!) { entity(name: $n, scope: $s) { __typename
  ... on Entity { name type aliases neighbors { entity { name } relations } }
  ... on NotFound { message } } }"""
ENTITIES = """query($s: ScopeInput!) { entities(scope: $s, first: 100) {
  ... on EntityConnection { edges { node { name type aliases } } } } }"""
PATH = """query($f: String!, $t: String!, $s: ScopeInput!, $h: Int = 3, $asOf: DateTime) {
  path(from: $f, to: $t, scope: $s, maxHops: $h, asOf: $asOf) { __typename
    ... on EntityPath { entities { name } steps { kind forward memories { text } } }
    ... on NotFound { message } } }"""
RELATIONS = """query($s: ScopeInput!, $w: RelationWhereInput, $asOf: DateTime) {
  relations(scope: $s, where: $w, asOf: $asOf, first: 100) { __typename
    ... on RelationConnection { totalCount edges { node { type source { name } target { name }
      validFrom memories { text } } } } ... on InvalidInput { message } } }"""
MEMORIES = """query($s: ScopeInput!) { memories(scope: $s, first: 100) {
  ... on MemoryConnection { edges { node { text } } } } }"""


gql = graphql_caller(schema)


async def add(mem: MemoryService, user: str, *turns: tuple[str, str, str]) -> dict[str, Any]:
    messages = [{"speaker": who, "timestamp": at, "content": text} for who, at, text in turns]
    data = await gql(mem, ADD, m=messages, s={"userId": user})
    assert data["addMessages"]["__typename"] == "AddMessagesSuccess", data
    return dict(data["addMessages"])


async def entities(mem: MemoryService, user: str) -> dict[str, dict[str, Any]]:
    data = await gql(mem, ENTITIES, s={"userId": user})
    return {e["node"]["name"]: e["node"] for e in data["entities"]["edges"]}


async def relations(mem: MemoryService, user: str, **kwargs: Any) -> set[tuple[str, str, str]]:
    data = (await gql(mem, RELATIONS, s={"userId": user}, **kwargs))["relations"]
    assert data["__typename"] == "RelationConnection", data
    return {
        (r["node"]["source"]["name"], r["node"]["type"], r["node"]["target"]["name"])
        for r in data["edges"]
    }


async def path(mem: MemoryService, user: str, source: str, target: str, **kwargs: Any) -> Any:
    return (await gql(mem, PATH, f=source, t=target, s={"userId": user}, **kwargs))["path"]


async def test_a_speaker_reaches_a_city_through_their_employer(mem: MemoryService) -> None:
    # Two messages, two add calls: the company at a sentence start is the node of the first.
    await add(
        mem,
        "u1",
        ("Alice", "2026-03-02T09:00:00Z", "I work at Acme Robotics as a firmware engineer."),
    )
    await add(
        mem,
        "u1",
        ("Alice", "2026-03-03T09:00:00Z", "Acme Robotics has its headquarters in Toronto."),
    )
    found = await entities(mem, "u1")
    assert found["Alice"]["type"] == "PERSON"
    assert [n for n in found if "acme" in n.lower()] == ["Acme Robotics"]
    acme = (await gql(mem, ENTITY, n="Acme Robotics", s={"userId": "u1"}))["entity"]
    around = {n["entity"]["name"]: n["relations"] for n in acme["neighbors"]}
    assert around["Alice"] == ["WORKS_AT"] and around["Toronto"] == ["LOCATED_IN"]
    rels = await relations(mem, "u1")
    assert ("Alice", "WORKS_AT", "Acme Robotics") in rels
    assert ("Acme Robotics", "LOCATED_IN", "Toronto") in rels
    found_path = await path(mem, "u1", "Alice", "Toronto")
    assert [e["name"] for e in found_path["entities"]] == ["Alice", "Acme Robotics", "Toronto"]
    # Typed steps are preferred, and each carries the memory that states it.
    assert [s["kind"] for s in found_path["steps"]] == ["WORKS_AT", "LOCATED_IN"]
    assert found_path["steps"][1]["memories"][0]["text"].startswith("Acme Robotics has")
    # Any alias is an endpoint: the organisation's short form names the same node.
    short = await path(mem, "u1", "alice", "ACME")
    assert [e["name"] for e in short["entities"]] == ["Alice", "Acme Robotics"]


async def test_a_short_form_later_links_to_the_known_node(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await add(mem, "u2", ("Priya", "2026-03-02T09:00:00Z", "I started at Halcyon Robotics."))
    later = "I looked them up, and Halcyon's headquarters are in Pittsburgh."
    await add(mem, "u2", ("Marcus", "2026-03-04T09:00:00Z", later))
    found = await entities(mem, "u2")
    assert "Halcyon" not in found and "Halcyon" in found["Halcyon Robotics"]["aliases"]
    # The merge under another name is recorded on the edge, so it can be explained and undone.
    rows = await run_cypher(
        neo4j_target,
        """MATCH (:Memory)-[r:MENTIONS]->(e:Entity
        {name: 'Halcyon Robotics'}) WHERE e.user_id = 'u2' RETURN r.link AS link""",
    )
    assert {r["link"] for r in rows} >= {"short_form"}


async def test_chinese_speaker_company_and_city(mem: MemoryService) -> None:
    await add(
        mem,
        "zh1",
        ("张伟", "2026-03-02T09:00:00Z", "我叫张伟，在腾讯科技工作，上个月去了杭州出差。"),
    )
    await add(mem, "zh1", ("李娜", "2026-03-03T09:00:00Z", "腾讯科技的总部在深圳。"))
    found = await entities(mem, "zh1")
    assert found["张伟"]["type"] == "PERSON" and found["李娜"]["type"] == "PERSON"
    assert "腾讯科技" in found and "深圳" in found
    texts = [
        e["node"]["text"]
        for e in (await gql(mem, MEMORIES, s={"userId": "zh1"}))["memories"]["edges"]
    ]
    assert not any("张伟叫张伟" in t for t in texts), texts
    assert ("张伟", "WORKS_AT", "腾讯科技") in await relations(mem, "zh1")
    found_path = await path(mem, "zh1", "张伟", "深圳")
    assert [e["name"] for e in found_path["entities"]] == ["张伟", "腾讯科技", "深圳"]


async def test_coordinations_split_and_junk_never_becomes_an_entity(mem: MemoryService) -> None:
    await add(
        mem,
        "u3",
        ("Dana", "2026-04-01T09:00:00Z", "Alice and Bob went hiking in the Alps with Carol."),
        ("Dana", "2026-04-01T09:05:00Z", "Yeah! Wow, that's awesome. Congrats, Maria!"),
        ("Dana", "2026-04-01T09:06:00Z", "Woohoo! Felt so good to be back, I kinda miss it."),
        ("Dana", "2026-04-01T09:07:00Z", "We played Fetch and Frisbee with the dog all day."),
    )
    found = await entities(mem, "u3")
    assert {"Alice", "Bob", "Carol", "Fetch", "Frisbee", "Maria"} <= set(found)
    assert found["Alice"]["type"] == found["Bob"]["type"] == "PERSON"
    assert "Alice and Bob" not in found
    junk = {"Yeah", "Wow", "Congrats", "Woohoo", "Felt", "kinda", "Awesome"}
    assert not junk & {n.capitalize() for n in found} and not junk & set(found)


async def test_bare_chinese_reactions_are_not_memories(mem: MemoryService) -> None:
    result = await add(
        mem,
        "zh2",
        ("韩雪", "2026-04-01T09:00:00Z", "哈哈，那挺好。"),
        ("彭磊", "2026-04-01T09:01:00Z", "厉害！"),
        ("韩雪", "2026-04-01T09:02:00Z", "真的吗？"),
        ("彭磊", "2026-04-01T09:03:00Z", "我下个月去墨尔本出差。"),
    )
    assert len(result["added"]) == 1
    assert set(await entities(mem, "zh2")) >= {"彭磊", "墨尔本"}


async def test_kin_become_people_related_to_the_speaker(mem: MemoryService) -> None:
    await add(
        mem,
        "u4",
        ("Marcus", "2026-03-09T12:00:00Z", "My sister Emma did her master's at Carnegie Mellon."),
    )
    await add(mem, "zh3", ("李娜", "2026-03-09T12:00:00Z", "我妹妹小红下个月也要开始实习了。"))
    assert (await entities(mem, "u4"))["Emma"]["type"] == "PERSON"
    assert ("Marcus", "FAMILY_OF", "Emma") in await relations(mem, "u4")
    assert ("Emma", "STUDIES_AT", "Carnegie Mellon") in await relations(mem, "u4")
    assert ("李娜", "FAMILY_OF", "小红") in await relations(mem, "zh3")


async def test_a_superseded_relation_is_closed_and_read_as_of_before(mem: MemoryService) -> None:
    await add(mem, "u5", ("Ana", "2024-01-10T09:00:00Z", "I live in Lisbon."))
    moved = await add(mem, "u5", ("Ana", "2024-06-10T09:00:00Z", "I moved to Berlin last week."))
    assert len(moved["superseded"]) == 1
    now = await relations(mem, "u5", w={"types": ["LIVES_IN"]})
    assert now == {("Ana", "LIVES_IN", "Berlin")}
    then = await relations(mem, "u5", w={"types": ["LIVES_IN"]}, asOf="2024-03-01T00:00:00Z")
    assert then == {("Ana", "LIVES_IN", "Lisbon")}
    assert (await path(mem, "u5", "Ana", "Lisbon"))["__typename"] == "NotFound"
    old = await path(mem, "u5", "Ana", "Lisbon", asOf="2024-03-01T00:00:00Z")
    assert [s["kind"] for s in old["steps"]] == ["LIVES_IN"]
    bad = await gql(mem, RELATIONS, s={"userId": "u5"}, w={"types": ["HATES"]})
    assert bad["relations"]["__typename"] == "InvalidInput"


async def test_relink_rebuilds_a_store_written_the_old_way(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await add(
        mem,
        "u6",
        ("Alice", "2026-03-02T09:00:00Z", "I work at Acme Robotics."),
        ("Alice", "2026-03-03T09:00:00Z", "Acme Robotics has its headquarters in Toronto."),
    )
    # The old way: entities keyed by type, no speaker, no relations, no linker version.
    await run_cypher(
        neo4j_target,
        """MATCH (m:Memory {user_id: 'u6'})
        OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity) DETACH DELETE e
        WITH DISTINCT m REMOVE m.linker_version
        MERGE (old:Entity {key: 'u6' + '\\u001f\\u001f\\u001dORG\\u001dacme robotics'})
          ON CREATE SET old.name = 'Acme Robotics', old.type = 'ORG', old.user_id = 'u6'
        MERGE (m)-[:MENTIONS {start: 0, end: 1}]->(old)""",
    )
    assert (await path(mem, "u6", "Alice", "Toronto"))["__typename"] == "NotFound"
    assert await count_unlinked(mem.db) == 2
    dry = await relink(mem.db, None, dry_run=True)
    assert (dry.stale, dry.relinked) == (2, 0) and await count_unlinked(mem.db) == 2
    report = await relink(mem.db, mem.extractor, batch_size=1)
    assert (report.relinked, report.remaining) == (2, 0)
    found_path = await path(mem, "u6", "Alice", "Toronto")
    assert [e["name"] for e in found_path["entities"]] == ["Alice", "Acme Robotics", "Toronto"]
    rows = await run_cypher(neo4j_target, "MATCH (e:Entity {user_id: 'u6'}) RETURN e.key AS k")
    assert not [r for r in rows if "\x1dORG\x1d" in str(r["k"])]  # the old node is gone
    again = await relink(mem.db, mem.extractor)
    assert (again.stale, again.relinked) == (0, 0)


async def test_a_chain_of_typed_relations_beats_a_memory_naming_both_ends(
    mem: MemoryService,
) -> None:
    # "My brother Rafael studied at Delft" names Ines (its speaker) and Delft in one memory;
    # how they are linked is Ines -FAMILY_OF- Rafael -STUDIES_AT- Delft.
    said = "My brother Rafael studied at Delft University of Technology."
    await add(mem, "u7", ("Ines", "2026-05-02T09:30:00Z", said))
    found = await path(mem, "u7", "Ines", "Delft University of Technology")
    assert [e["name"] for e in found["entities"]] == [
        "Ines",
        "Rafael",
        "Delft University of Technology",
    ]
    assert [s["kind"] for s in found["steps"]] == ["FAMILY_OF", "STUDIES_AT"]


async def test_an_inferred_tie_is_listed_but_a_path_walks_the_stated_ones(
    mem: MemoryService,
) -> None:
    """Ada calls June Mom and June calls Theo her son-in-law: Ada and Theo are family
    (family.py). The path between them shows the two stated ties that say why; the inferred
    tie is a step only when no stated chain fits the hops asked."""
    await add(
        mem,
        "circle",
        ("June", "2026-05-02T18:00:00Z", "Ada, dinner is ready! Come down."),
        ("Ada", "2026-05-02T18:00:30Z", "Mom, five minutes."),
        ("Theo", "2026-05-02T18:01:00Z", "I set the table already, June."),
        ("June", "2026-05-02T18:01:30Z", "Theo, you're my favorite son-in-law."),
    )
    found = await relations(mem, "circle", w={"types": ["FAMILY_OF"]})
    assert found >= {("Ada", "FAMILY_OF", "June"), ("June", "FAMILY_OF", "Theo")}
    assert {("Ada", "FAMILY_OF", "Theo"), ("Theo", "FAMILY_OF", "Ada")} & found
    stated = await path(mem, "circle", "Ada", "Theo")
    assert [e["name"] for e in stated["entities"]] == ["Ada", "June", "Theo"]
    assert [s["kind"] for s in stated["steps"]] == ["FAMILY_OF", "FAMILY_OF"]
    inferred = await path(mem, "circle", "Ada", "Theo", h=1)
    assert [e["name"] for e in inferred["entities"]] == ["Ada", "Theo"]
    assert [s["kind"] for s in inferred["steps"]] == ["FAMILY_OF"]


async def test_a_type_is_a_vote_kept_across_adds(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    """Each add's votes are added to the node's stored ones: a name NER took for a person is
    an organisation once later messages say it hires people and has a head office."""
    await add(mem, "types", ("Ines", "2026-03-01T09:00:00Z", "Quillby texted me back."))
    assert "Quillby" in await entities(mem, "types")
    await add(
        mem,
        "types",
        ("Ines", "2026-03-02T09:00:00Z", "Quillby hired me as a designer!"),
        ("Ines", "2026-03-03T09:00:00Z", "Quillby's HQ is in Porto."),
    )
    assert (await entities(mem, "types"))["Quillby"]["type"] == "ORG"
    rows = await run_cypher(
        neo4j_target,
        "MATCH (e:Entity {name: 'Quillby', user_id: 'types'})"
        " RETURN e.type_votes AS votes, e.label_votes AS labels",
    )
    (row,) = rows
    votes, labels = row["votes"], row["labels"]
    assert len(votes) == len(labels) == 7
    assert votes[1] >= 4.0  # ORG: the employer and the org-part frames, added up
    assert max(labels) <= 1.0  # a label counts once, at its strongest
