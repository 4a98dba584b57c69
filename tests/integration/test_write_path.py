"""The write path against a real Neo4j: facts, entities, time, reconcile, batches."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from service.core.domain import Scope
from service.core.errors import ValidationError
from service.memory import MemoryService
from service.store.schema import apply_schema
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
CONVERSATION = [
    {"id": "m1", "speaker": "Alice", "timestamp": "2024-05-10T09:00:00Z", "content": "Hi Bob!"},
    {
        "id": "m2",
        "speaker": "Alice",
        "timestamp": "2024-05-10T09:01:00Z",
        "content": "I moved to Boston last month. I work at Google as an engineer.",
    },
    {
        "id": "m3",
        "speaker": "Alice",
        "timestamp": "2024-05-10T09:02:00Z",
        "content": "I started learning Rust yesterday.",
    },
]


async def counts(target: Neo4jTarget) -> dict[str, int]:
    rows = await run_cypher(
        target, "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n ORDER BY label"
    )
    edges = await run_cypher(target, "MATCH ()-[r]->() RETURN type(r) AS label, count(*) AS n")
    return {str(r["label"]): int(r["n"]) for r in rows + edges}  # type: ignore[call-overload]


async def test_conversation_lands_as_messages_facts_and_entities(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    result = await mem.add(CONVERSATION, ALICE)
    assert len(result.message_ids) == 3 and len(result.added) == 3
    messages = await run_cypher(neo4j_target, "MATCH (m:Message) RETURN m.text AS t")
    assert len(messages) == 3  # the greeting is kept as a message ...
    memories = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory)-[:DERIVED_FROM]->(msg:Message) RETURN m.text AS text, "
        "m.source_text AS source, m.valid_from AS vf, m.valid_to AS vt, "
        "m.time_granularity AS g, m.said_at AS said, msg.external_id AS msg ORDER BY text",
    )
    texts = [r["text"] for r in memories]
    assert not any("Hi Bob" in str(t) for t in texts)  # ... but is no fact
    moved = next(r for r in memories if "Boston" in str(r["text"]))
    assert moved["text"] == "Alice moved to Boston last month."
    assert moved["source"] == "I moved to Boston last month." and moved["msg"] == "m2"
    assert moved["vf"].to_native() == datetime(2024, 4, 1, tzinfo=UTC)  # type: ignore[union-attr]
    assert moved["vt"].to_native() == datetime(2024, 5, 1, tzinfo=UTC)  # type: ignore[union-attr]
    assert moved["g"] == "month"
    rust = next(r for r in memories if "Rust" in str(r["text"]))
    assert rust["vf"].to_native() == datetime(2024, 5, 9, tzinfo=UTC)  # type: ignore[union-attr]
    mentions = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory)-[r:MENTIONS]->(e:Entity) "
        "RETURN e.name AS name, e.type AS type, r.extractor AS ex, r.confidence AS conf, "
        "substring(m.source_text, r.start, r.end - r.start) AS span, e.user_id AS user, "
        "r.role AS role, r.surface AS surface, m.speaker AS speaker",
    )
    found = {(r["name"], r["type"]) for r in mentions}
    assert {("Boston", "PLACE"), ("Google", "ORG"), ("Alice", "PERSON")} <= found
    assert all(r["span"] == r["surface"] for r in mentions)
    named = [r for r in mentions if r["role"] == "mention"]
    assert named and all(r["span"] == r["name"] for r in named)
    # Said in the first person: the speaker is mentioned as the subject, at the pronoun.
    subjects = [r for r in mentions if r["role"] == "subject"]
    assert subjects and all(r["name"] == r["speaker"] == "Alice" for r in subjects)
    assert {r["span"] for r in subjects} <= {"I", "my", "me", "My", "Me"}
    assert all(r["ex"] and 0 < float(r["conf"]) <= 1 for r in mentions)  # type: ignore[arg-type]
    assert {r["user"] for r in mentions} == {"alice"}


async def test_re_adding_is_idempotent(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    await mem.add(CONVERSATION, ALICE)
    before = await counts(neo4j_target)
    again = await mem.add(CONVERSATION, ALICE)
    assert again.added == [] and again.updated == [] and len(again.unchanged) == 3
    assert await counts(neo4j_target) == before


async def test_new_value_for_a_slot_supersedes_and_keeps_the_old(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(
        [{"content": "I live in Boston.", "speaker": "Alice", "timestamp": "2023-01-05T10:00:00Z"}],
        ALICE,
    )
    later = await mem.add(
        [
            {
                "content": "I moved to Seattle.",
                "speaker": "Alice",
                "timestamp": "2024-03-01T10:00:00Z",
            }
        ],
        ALICE,
    )
    assert len(later.superseded) == 1
    rows = await run_cypher(
        neo4j_target,
        "MATCH (new:Memory)-[s:SUPERSEDES]->(old:Memory) RETURN new.text AS new, "
        "old.text AS old, old.invalidated_at AS inv, new.invalidated_at AS new_inv, "
        "s.reason AS why",
    )
    assert len(rows) == 1
    assert rows[0]["old"] == "Alice lives in Boston." or "Boston" in str(rows[0]["old"])
    assert rows[0]["inv"].to_native() == datetime(2024, 3, 1, 10, tzinfo=UTC)  # type: ignore[union-attr]
    assert rows[0]["new_inv"] is None and "lives_in" in str(rows[0]["why"])
    events = await run_cypher(neo4j_target, "MATCH (e:MemoryEvent) RETURN e.op AS op")
    assert sorted(r["op"] for r in events) == ["ADD", "ADD", "SUPERSEDE"]


async def test_near_duplicate_updates_the_existing_memory(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    first = await mem.add([{"content": "I adopted a puppy named Max.", "speaker": "Alice"}], ALICE)
    second = await mem.add(
        [{"content": "I adopted a puppy named Max!!", "speaker": "Alice", "id": "later"}], ALICE
    )
    assert second.added == [] and second.updated == first.added
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory) OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg) "
        "RETURN m.id AS id, count(msg) AS sources",
    )
    assert len(rows) == 1 and rows[0]["sources"] == 2
    ops = await run_cypher(neo4j_target, "MATCH (e:MemoryEvent) RETURN e.op AS op ORDER BY op")
    assert [r["op"] for r in ops] == ["ADD", "UPDATE"]


async def test_chinese_facts_the_model_reads_alike_stay_two_memories(mem: MemoryService) -> None:
    # all-MiniLM-L6-v2 gives these two one vector (cosine 0.999): only their words differ.
    first = await mem.add([{"content": "小李在腾讯工作。", "speaker": "小李"}], ALICE)
    second = await mem.add([{"content": "小李很喜欢喝咖啡。", "speaker": "小李"}], ALICE)
    assert first.added and second.added and second.updated == []
    reworded = await mem.add([{"content": "小李在腾讯工作呢。", "speaker": "小李"}], ALICE)
    assert reworded.updated == first.added  # a near copy in words is still one memory


async def test_a_poisoned_batch_leaves_the_graph_unchanged(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(CONVERSATION, ALICE)
    before = await counts(neo4j_target)
    poisoned = [
        {"content": "I bought a red bicycle.", "speaker": "Alice"},
        {"content": "fine", "timestamp": "not a date"},
    ]
    with pytest.raises(ValidationError, match=r"message 1: timestamp"):
        await mem.add(poisoned, ALICE)
    assert await counts(neo4j_target) == before


async def test_chinese_conversation_is_extracted(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(
        [
            {
                "content": "你好！我叫李明。我上个月在阿里巴巴集团工作。",
                "speaker": "李明",
                "timestamp": "2024-05-10T09:00:00Z",
            }
        ],
        Scope(user_id="liming"),
    )
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory) OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity) "
        "RETURN m.text AS text, m.valid_from AS vf, collect(e.name) AS entities",
    )
    work = next(r for r in rows if "阿里巴巴" in str(r["text"]))
    assert "阿里巴巴集团" in work["entities"]  # type: ignore[operator]
    assert work["vf"].to_native() == datetime(2024, 4, 1, tzinfo=UTC)  # type: ignore[union-attr]
    assert not any(str(r["text"]).startswith("你好") for r in rows)


async def test_an_older_fact_arriving_late_does_not_win_the_slot(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(
        [
            {
                "content": "I moved to Seattle.",
                "speaker": "Alice",
                "timestamp": "2024-03-01T10:00:00Z",
            }
        ],
        ALICE,
    )
    late = await mem.add(
        [{"content": "I live in Boston.", "speaker": "Alice", "timestamp": "2023-01-05T10:00:00Z"}],
        ALICE,
    )
    assert late.superseded == late.added  # the late, older fact is the one superseded
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory) RETURN m.text AS text, m.invalidated_at IS NULL AS current",
    )
    current = {str(r["text"]) for r in rows if r["current"]}
    assert current == {"Alice moved to Seattle."}


async def test_agent_priority_breaks_a_tie(mem: MemoryService, neo4j_target: Neo4jTarget) -> None:
    mem.settings = mem.settings.model_copy(update={"agent_priority": {"planner": 2}})
    try:
        at = "2024-03-01T10:00:00Z"
        await mem.add(
            [{"content": "I live in Boston.", "speaker": "Alice", "timestamp": at}],
            Scope(user_id="alice", agent_id="planner"),
        )
        denver = {"content": "I live in Denver.", "speaker": "Alice", "timestamp": at}
        chat = await mem.add([denver], Scope(user_id="alice", agent_id="chat"))
    finally:
        mem.settings = mem.settings.model_copy(update={"agent_priority": {}})
    assert chat.superseded == chat.added


async def test_batches_added_in_a_pipeline_land_as_added_one_by_one(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    # Batch 2 supersedes batch 1's fact: the pipeline must still write in order.
    batches = [
        CONVERSATION[:2],
        CONVERSATION[2:],
        [
            {
                "id": "m4",
                "speaker": "Alice",
                "timestamp": "2024-06-01T09:00:00Z",
                "content": "I moved to Seattle in May.",
            }
        ],
    ]
    one_by_one = [await mem.add(batch, ALICE) for batch in batches]
    graph = await counts(neo4j_target)
    await run_cypher(neo4j_target, "MATCH (n) DETACH DELETE n")
    piped = [r async for r in mem.add_batches((batch, ALICE) for batch in batches)]
    assert [r.message_ids for r in piped] == [r.message_ids for r in one_by_one]
    assert [sorted(r.added) for r in piped] == [sorted(r.added) for r in one_by_one]
    assert len(piped[2].superseded) == 1 and await counts(neo4j_target) == graph


async def test_a_pipeline_stops_at_a_bad_batch_with_the_ones_before_it_landed(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    bad = [
        {"content": "I bought a red bicycle.", "speaker": "Alice"},
        {"content": "fine", "timestamp": "not a date"},
    ]
    after = [{"content": "I adopted a puppy named Max.", "speaker": "Alice"}]
    landed = []
    with pytest.raises(ValidationError, match=r"message 1: timestamp"):
        async for result in mem.add_batches([(CONVERSATION, ALICE), (bad, ALICE), (after, ALICE)]):
            landed.append(result)
    [first] = landed
    texts = await run_cypher(neo4j_target, "MATCH (m:Memory) RETURN m.text AS text")
    assert len(texts) == len(first.added) > 0
    assert not any("bicycle" in str(t["text"]) or "Max" in str(t["text"]) for t in texts)


async def test_a_near_duplicate_is_found_in_a_small_scope_among_others_saying_the_same(
    mem: MemoryService,
) -> None:
    # Twelve other users hold the very words of the new message: the vector index's global
    # top-k is theirs, and the one near-duplicate of this user's own lies behind them.
    words = "I adopted a puppy named Max!!"
    for i in range(12):
        await mem.add([{"content": words}], Scope(user_id=f"crowd-{i}"), infer=False)
    first = await mem.add([{"content": "I adopted a puppy named Max."}], ALICE, infer=False)
    second = await mem.add([{"content": words, "id": "later"}], ALICE, infer=False)
    assert second.added == [] and second.updated == first.added


async def test_vectors_are_stored_as_32_bit_floats_on_add_and_update(
    mem: MemoryService, neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Half the bytes of the 64-bit list the driver sends, and faster exact cosine. MiniLM's
    # vectors are float32 values already, so the stored ones could not tell the two storages
    # apart; vectors with 64-bit digits (0.1 is not a float32) do: they come back rounded.
    def vectors(value: float) -> Callable[..., list[list[float]]]:
        return lambda texts, batch_size=64: [[value] * mem.embedder.dimensions for _ in texts]

    async def stored(memory_id: str) -> list[float]:
        rows = await run_cypher(
            neo4j_target, "MATCH (m:Memory {id: $id}) RETURN m.embedding AS e", id=memory_id
        )
        return list(rows[0]["e"])  # type: ignore[call-overload]

    def rounded(value: float) -> list[float]:
        return [float(np.float32(value))] * mem.embedder.dimensions

    monkeypatch.setattr(mem.embedder, "embed", vectors(0.1))
    added = await mem.add([{"content": "I keep bees on the roof."}], ALICE, infer=False)
    [memory_id] = added.added
    assert await stored(memory_id) == rounded(0.1) and rounded(0.1)[0] != 0.1
    monkeypatch.setattr(mem.embedder, "embed", vectors(0.3))
    await mem.update(memory_id, "I keep bees in the garden.", ALICE)
    assert await stored(memory_id) == rounded(0.3)


REPLY = [
    {"speaker": "Caroline", "session_id": "s1", "content": "How has running been going lately?"},
    {
        "speaker": "Melanie",
        "session_id": "s1",
        "content": "This has been great for my mental health. I'm gonna keep it up!",
    },
]
OTHER_GREAT_THINGS = [
    "My garden has been great for relaxing after a long day at work.",
    "Yoga has been great for my back, and I go twice a week now.",
]


async def test_a_reply_is_embedded_with_the_message_it_answers(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add(REPLY, ALICE)
    await mem.add([{"speaker": "Melanie", "content": t} for t in OTHER_GREAT_THINGS], ALICE)
    rows = await run_cypher(
        neo4j_target,
        "MATCH (m:Memory) RETURN m.text AS text, m.context_texts AS context, "
        "m.embedding AS embedding, m.content_embedding AS own",
    )
    by_text = {str(r["text"]): r for r in rows}
    question = next(t for t in by_text if "running" in t)
    reply = next(t for t in by_text if "mental health" in t)
    assert by_text[question]["context"] == [] and by_text[reply]["context"] == [question]
    # The second call is its own conversation: its first fact has no context.
    assert by_text[next(t for t in by_text if "garden" in t)]["context"] == []
    [expected] = await mem.embedder.aembed_memories([reply], [[question]])
    assert by_text[reply]["embedding"] == pytest.approx(expected.search, abs=1e-6)
    assert by_text[reply]["own"] == pytest.approx(expected.own, abs=1e-6)
    assert by_text[question]["own"] is None  # without context its vector is its own
    # What a user notices: asked about running, the vector retriever ranks the reply that is
    # about running above other things that have "been great" (it words none of the topic).
    hits = await mem.search("What has running been great for?", ALICE)
    vector_rank = {
        h.memory.text: r.rank for h in hits for r in h.retrievers if r.retriever == "vector"
    }
    assert all(
        vector_rank[reply] < vector_rank[t] for t in vector_rank if "been great" in t and t != reply
    )


async def test_a_fact_reworded_after_another_message_is_still_a_near_duplicate(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    # Each wording follows a different message, so their vectors for search differ by their
    # contexts; whether they say the same is judged on their own words.
    first = await mem.add(
        [
            {"speaker": "Bob", "content": "What did you get up to over the weekend?"},
            {"speaker": "Alice", "content": "I adopted a golden retriever puppy named Max."},
        ],
        ALICE,
    )
    second = await mem.add(
        [
            {"speaker": "Bob", "content": "How is the new job at the bakery treating you?"},
            {"speaker": "Alice", "content": "I adopted a golden retriever puppy called Max."},
        ],
        ALICE,
    )
    [puppy] = [m for m in first.added if m in second.updated]
    rows = await run_cypher(
        neo4j_target, "MATCH (m:Memory) WHERE m.text CONTAINS 'puppy' RETURN m.id AS id"
    )
    assert [r["id"] for r in rows] == [puppy]


async def test_a_reply_is_found_by_the_full_text_retriever_through_its_context(
    mem: MemoryService,
) -> None:
    await mem.add(REPLY, ALICE)
    await mem.add([{"speaker": "Melanie", "content": t} for t in OTHER_GREAT_THINGS], ALICE)
    # Words that only the message it answers says: the reply's own text has neither. As
    # written: the yoga memory's "goes" is another form of "going" (word_forms.py).
    as_written = replace(
        mem, settings=mem.settings.model_copy(update={"fulltext_word_forms": False})
    )
    hits = await as_written.search("Is the running going well?", ALICE)
    fulltext = [h.memory.text for h in hits for r in h.retrievers if r.retriever == "fulltext"]
    assert any("mental health" in t for t in fulltext), fulltext
    assert not any("garden" in t or "Yoga" in t for t in fulltext)


async def test_full_text_indexes_made_without_the_context_are_made_again(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await run_cypher(neo4j_target, "DROP INDEX memory_text")
    await run_cypher(
        neo4j_target,
        "CREATE FULLTEXT INDEX memory_text FOR (m:Memory) ON EACH [m.text, m.source_text]",
    )
    await apply_schema(mem.db, mem.embedder.dimensions)
    rows = await run_cypher(
        neo4j_target,
        "SHOW FULLTEXT INDEXES YIELD name, properties "
        "WHERE name STARTS WITH 'memory_text' RETURN name, properties",
    )
    assert rows and all("context_text" in r["properties"] for r in rows)  # type: ignore[operator]
    await mem.add(REPLY, ALICE)  # and the global index answers with the context
    found = await run_cypher(
        neo4j_target,
        "CALL db.index.fulltext.queryNodes('memory_text', 'context_text:running') "
        "YIELD node RETURN node.text AS text",
    )
    # The reply's facts (it splits in two), found by a word only the question says.
    replies = [str(r["text"]) for r in found]
    assert any("mental health" in t for t in replies) and not any("running" in t for t in replies)
