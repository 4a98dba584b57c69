"""The read path against a real Neo4j: each retriever, time filters, asOf, explanations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from service.core.domain import Clock, Scope, SearchOptions, TimeFilter
from service.core.errors import ValidationError
from service.memory import MemoryService
from service.retrieval.hybrid import HybridRetriever
from service.retrieval.query import QueryPlan
from service.store import catalog, repository
from service.store.index_shards import IndexShards
from service.store.repository import GraphStore
from service.store.schema import fill_happened_bounds
from tests.conftest import Neo4jTarget, run_cypher

ALICE = Scope(user_id="alice")
REFERENCE = datetime(2024, 5, 10, 12, tzinfo=UTC)
MESSAGES = [
    ("2024-03-05T10:00:00Z", "I adopted a golden retriever puppy."),
    ("2024-03-20T10:00:00Z", "The invoice number is ZX-4471 for the plumbing repair."),
    ("2024-04-10T10:00:00Z", "Priya recommended a great ramen shop downtown."),
    ("2024-04-15T10:00:00Z", "I finished the marathon training plan."),
    ("2024-05-02T10:00:00Z", "I booked flights to Japan for the summer."),
]


@pytest.fixture
async def seeded(mem: MemoryService) -> MemoryService:
    await mem.add(
        [{"content": text, "speaker": "Alice", "timestamp": ts} for ts, text in MESSAGES], ALICE
    )
    return mem


def retrievers(hit: object) -> dict[str, int]:
    return {r.retriever: r.rank for r in hit.retrievers}  # type: ignore[attr-defined]


def record_retrievers(
    monkeypatch: pytest.MonkeyPatch, mem: MemoryService
) -> list[tuple[str, dict[str, Any]]]:
    """Every retriever call of ``mem``'s store from now on, as (name, params at the call)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    retrieve = mem.store.retrieve

    async def recording(name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        calls.append((name, dict(params)))
        return await retrieve(name, params)

    monkeypatch.setattr(mem.store, "retrieve", recording)
    return calls


def one_global_index(mem: MemoryService, **settings: Any) -> MemoryService:
    """``mem`` without user partitions (every user in the global indexes), with ``settings``."""
    return replace(
        mem,
        store=GraphStore(mem.db, IndexShards(0)),
        settings=mem.settings.model_copy(update=settings),
    )


async def test_paraphrase_is_found_by_the_vector_retriever(seeded: MemoryService) -> None:
    [top, *_] = await seeded.search("new pet dog", ALICE, limit=3)
    assert "golden retriever" in top.memory.text
    assert retrievers(top).get("vector") == 1


async def test_exact_keyword_is_found_by_the_fulltext_retriever(seeded: MemoryService) -> None:
    [top, *_] = await seeded.search("ZX-4471", ALICE, limit=3)
    assert "ZX-4471" in top.memory.text
    assert retrievers(top).get("fulltext") == 1


async def test_entity_question_is_found_by_the_graph_retriever(seeded: MemoryService) -> None:
    hits = await seeded.search("What did Priya suggest?", ALICE, limit=3)
    top = hits[0]
    assert "ramen" in top.memory.text
    assert "graph" in retrievers(top) and "Priya" in top.matched_entities
    assert top.sources[0].text == MESSAGES[2][1]
    assert any(e.name == "Priya" for e in top.entities)


async def test_what_was_said_last_month_returns_exactly_that_month(seeded: MemoryService) -> None:
    when = TimeFilter(reference_time=REFERENCE)
    hits = await seeded.search(
        "what did Alice say last month?", ALICE, options=SearchOptions(limit=10, when=when)
    )
    said = sorted(h.memory.said_at for h in hits if h.memory.said_at)
    assert len(said) == 2 and len(hits) == 2
    assert all(d.year == 2024 and d.month == 4 for d in said)


async def test_recently_ranks_the_last_days_first_and_keeps_older_memories(
    seeded: MemoryService,
) -> None:
    # "recently" is 30 days back from the reference (10 May): the marathon and the flights.
    options = SearchOptions(limit=10, when=TimeFilter(reference_time=REFERENCE))
    hits = await seeded.search("What has Alice been up to lately?", ALICE, options=options)
    assert {h.memory.said_at.month for h in hits[:2] if h.memory.said_at} == {4, 5}
    assert all("time" in retrievers(h) for h in hits[:2])
    assert len(hits) == len(MESSAGES)
    # Nothing said in the window answers this one: it is still found (it was not, bounded),
    # ranked first by the retrievers that read content.
    hits = await seeded.search("Did Alice get a dog recently?", ALICE, options=options)
    [dog] = [h for h in hits if "golden retriever" in h.memory.text]
    assert retrievers(dog).get("vector") == 1 and "time" not in retrievers(dog)


async def test_a_preferred_window_too_large_to_rank_exactly_is_asked_of_the_index(
    seeded: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "lately" holds 2 memories here; allowed to rank at most 1 exactly, the window is asked of
    # the vector index with its bounds as the filter instead (a busy user's 30 days are many).
    monkeypatch.setattr(seeded.settings, "exact_scan_max", 1)
    calls = record_retrievers(monkeypatch, seeded)
    options = SearchOptions(limit=10, when=TimeFilter(reference_time=REFERENCE))
    hits = await seeded.search("What has Alice been up to lately?", ALICE, options=options)
    ran = [(name, params.get("happened_from")) for name, params in calls]
    assert ("vector", datetime(2024, 4, 11, tzinfo=UTC)) in ran
    assert not [name for name, bound in ran if name == "time" or (name != "vector" and bound)]
    assert {h.memory.said_at.month for h in hits[:2] if h.memory.said_at} == {4, 5}


async def test_explicit_window_on_the_happened_clock(seeded: MemoryService) -> None:
    when = TimeFilter(
        clock=Clock.HAPPENED,
        start=datetime(2024, 3, 1, tzinfo=UTC),
        end=datetime(2024, 3, 31, tzinfo=UTC),
    )
    hits = await seeded.search("anything", ALICE, options=SearchOptions(limit=10, when=when))
    assert {h.memory.said_at.month for h in hits if h.memory.said_at} == {3}
    assert len(hits) == 2


@pytest.mark.parametrize("clock", [Clock.HAPPENED, Clock.SAID])
@pytest.mark.parametrize(
    ("start", "end", "months"),
    [
        (datetime(2024, 4, 1, tzinfo=UTC), None, {4, 5}),
        (None, datetime(2024, 4, 1, tzinfo=UTC), {3}),
    ],
)
async def test_a_window_open_at_one_end_is_counted_and_ranked_on_either_clock(
    seeded: MemoryService,
    clock: Clock,
    start: datetime | None,
    end: datetime | None,
    months: set[int],
) -> None:
    # The window's count (count_window_reads) and ranking resolve a missing bound to none.
    when = TimeFilter(clock=clock, start=start, end=end)
    hits = await seeded.search("anything", ALICE, options=SearchOptions(limit=10, when=when))
    assert {h.memory.said_at.month for h in hits if h.memory.said_at} == months


async def test_chinese_phrase_filters_by_time(seeded: MemoryService) -> None:
    when = TimeFilter(phrase="上个月", reference_time=REFERENCE, clock=Clock.SAID)
    hits = await seeded.search("跑步", ALICE, options=SearchOptions(limit=10, when=when))
    assert hits and all(h.memory.said_at and h.memory.said_at.month == 4 for h in hits)


@pytest.mark.parametrize(
    ("in_april", "exact_max", "ranked_by"),
    [(20, 10, ["vector"]), (4, 10, ["time"]), (4, 3, ["vector", "scope_scan"])],
)
async def test_a_window_is_ranked_exactly_when_that_reads_little_else_by_the_index(
    mem: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
    in_april: int,
    exact_max: int,
    ranked_by: list[str],
) -> None:
    # Cello memories in March and April; "last month" is April. A window whose exact ranking
    # reads at most exact_scan_max memories is ranked so; a larger one by the index, filtered
    # to the window, when it answers with enough of it (10), else exactly after all.
    monkeypatch.setattr(mem.settings, "exact_scan_max", exact_max)
    days = [(3, d) for d in range(1, 21)] + [(4, d) for d in range(1, in_april + 1)]
    await mem.add(
        [
            {
                "content": f"I practised the cello for {d} hours on {m}/{d}.",
                "timestamp": f"2024-{m:02d}-{d:02d}T10:00:00Z",
            }
            for m, d in days
        ],
        ALICE,
        infer=False,
    )
    calls = record_retrievers(monkeypatch, mem)
    when = TimeFilter(phrase="last month", reference_time=REFERENCE)
    hits = await mem.search("cello practice", ALICE, options=SearchOptions(limit=10, when=when))
    ran = [name for name, params in calls]
    assert len(hits) == min(in_april, 10)
    assert all(h.memory.said_at and h.memory.said_at.month == 4 for h in hits)
    assert [name for name in ran if name in {"vector", "scope_scan", "time"}] == ranked_by
    # One ranking of the window stands for both retrievers, whichever ranked it.
    assert all(retrievers(h)["time"] == retrievers(h)["vector"] for h in hits)


@pytest.mark.parametrize(
    ("scope", "later", "asks"),
    [
        # A user's window is counted first (40 memories): one ask deep enough for that share.
        (ALICE, 0, [("vector", 83)]),
        # 60 memories of May: the window's seek reads 100, but 40 can be in April (their
        # start is before May), and that is the share the ask is sized for (225 in all).
        (ALICE, 60, [("vector", 113)]),
        # Without a user nothing counts the window: the usual 30, then deeper for the share
        # the first answer showed (5 of 30).
        (Scope(agent_id="tuner"), 0, [("vector", 30), ("vector", 120)]),
    ],
)
async def test_a_window_is_asked_of_the_index_as_deep_as_its_share_needs(
    mem: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
    scope: Scope,
    later: int,
    asks: list[tuple[str, int]],
) -> None:
    # Over-fetch 1: the usual ask is the top 30. April holds 40 of 165 memories (more than
    # exact_scan_max), but only 5 of them are among the 30 nearest the question (25 March
    # ones are as near); asked deep enough for April's share, the index's answer holds 10 of
    # April, without ranking every memory exactly.
    monkeypatch.setattr(mem.settings, "vector_overfetch", 1)
    monkeypatch.setattr(mem.settings, "exact_scan_max", 20)
    near = [(3, d, "Cello practice, session {d}.") for d in range(1, 26)]
    near += [(4, d, "Cello practice, session {d}.") for d in range(1, 6)]
    far = [(4, d, "Tuned the old piano in the hall, day {d}.") for d in range(1, 36)]
    far += [(m, d, "Paid the electricity bill number {d}.") for m in (1, 2) for d in range(1, 51)]
    far += [(5, d, "Paid the water bill number {d}.") for d in range(1, later + 1)]
    messages = [
        {"content": text.format(d=d + 100 * m), "timestamp": f"2024-{m:02d}-01T10:00Z"}
        for m, d, text in near + far
    ]
    await mem.add(messages, scope, infer=False)
    calls = record_retrievers(monkeypatch, mem)
    when = TimeFilter(phrase="last month", reference_time=REFERENCE)
    hits = await mem.search("cello practice", scope, options=SearchOptions(limit=10, when=when))
    ran = [(name, params.get("fetch_k")) for name, params in calls]
    assert [r for r in ran if r[0] in {"vector", "scope_scan", "time"}] == asks
    assert len(hits) == 10
    assert all(h.memory.said_at and h.memory.said_at.month == 4 for h in hits)
    assert sum("Cello" in h.memory.text for h in hits) == 5


async def test_memories_stored_before_the_happened_bounds_are_given_them_at_start(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    fences = [
        {"content": f"Repainted the fence, coat {i}.", "timestamp": "2024-04-12T10:00Z"}
        for i in range(3)
    ]
    await mem.add(fences, ALICE, infer=False)
    when = TimeFilter(phrase="last month", reference_time=REFERENCE, clock=Clock.HAPPENED)

    async def in_april() -> int:
        hits = await mem.search("fence", ALICE, options=SearchOptions(limit=10, when=when))
        return len(hits)

    assert await in_april() == 3
    # As a store written before the bounds existed holds them.
    await run_cypher(neo4j_target, "MATCH (m:Memory) REMOVE m.happened_start, m.happened_end")
    assert await in_april() == 0
    assert await fill_happened_bounds(mem.db) == 3
    assert await fill_happened_bounds(mem.db) == 0
    assert await in_april() == 3


async def test_as_of_shows_memory_as_it_stood(mem: MemoryService) -> None:
    await mem.add(
        [{"content": "I live in Boston.", "speaker": "Alice", "timestamp": "2023-01-05T10:00:00Z"}],
        ALICE,
    )
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

    async def cities(as_of: datetime | None) -> set[str]:
        hits = await mem.search(
            "where does Alice live", ALICE, options=SearchOptions(limit=5, as_of=as_of)
        )
        return {c for h in hits for c in ("Boston", "Seattle") if c in h.memory.text}

    assert await cities(None) == {"Seattle"}
    assert await cities(datetime(2023, 6, 1, tzinfo=UTC)) == {"Boston"}
    assert await cities(datetime(2024, 6, 1, tzinfo=UTC)) == {"Seattle"}


@pytest.mark.parametrize(
    "query",
    ['ZX-4471 AND (foo OR "bar', "name:* OR title:[a TO z]", "\\", "'}) MATCH (n) DELETE n //"],
)
async def test_lucene_and_cypher_syntax_in_queries_is_harmless(
    seeded: MemoryService, query: str
) -> None:
    await seeded.search(query, ALICE, limit=5)  # no error
    assert len(await seeded.search("golden retriever", ALICE, limit=10)) >= 1


async def test_search_never_crosses_scopes(seeded: MemoryService) -> None:
    assert await seeded.search("ZX-4471 puppy Priya", Scope(user_id="bob")) == []


async def test_bad_time_phrase_is_a_clear_error(seeded: MemoryService) -> None:
    when = TimeFilter(phrase="when pigs fly")
    with pytest.raises(ValidationError, match="cannot read a time"):
        await seeded.search("x", ALICE, options=SearchOptions(when=when))


async def test_context_is_a_dated_block_within_the_budget(seeded: MemoryService) -> None:
    full = await seeded.context("What did Priya recommend?", ALICE, token_budget=2000)
    lines = full.text.splitlines()
    assert lines[1].startswith("- [2024-04-10, Alice]") and "ramen" in lines[1]
    assert full.tokens <= 2000 and len(full.memory_ids) == len(lines) - 1
    small = await seeded.context("What did Priya recommend?", ALICE, token_budget=40)
    assert 0 < small.tokens <= 40 and small.memory_ids == full.memory_ids[: len(small.memory_ids)]
    assert len(small.memory_ids) < len(full.memory_ids)
    with pytest.raises(ValidationError, match="tokenBudget"):
        await seeded.context("x", ALICE, token_budget=0)


async def test_a_named_speaker_is_found_by_the_speaker_retriever(mem: MemoryService) -> None:
    two_speakers = Scope(user_id="pair")
    await mem.add(
        [
            {"content": "I relax by painting landscapes on weekends.", "speaker": "Melanie"},
            {"content": "I relax by running along the river.", "speaker": "Caroline"},
        ],
        two_speakers,
    )
    [top, *_] = await mem.search("How does Melanie relax?", two_speakers, limit=2)
    assert top.memory.speaker == "Melanie" and retrievers(top).get("speaker") == 1


async def test_a_named_speaker_does_not_rank_by_how_often_memories_repeat_the_name(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = Scope(user_id="pair")
    await mem.add(
        [
            {"content": "I researched adoption agencies for weeks.", "speaker": "Caroline"},
            {"content": "I told my mom that I am proud of who I am.", "speaker": "Caroline"},
            {"content": "I looked into adoption too, years ago.", "speaker": "Melanie"},
        ],
        pair,
    )
    # Stored in the third person ("Caroline researched ..."): the name is in every memory of
    # hers, three times in the second. "Caroline" speaks here, "Boston" does not.
    speakers = await mem.store.speaker_counts(["Caroline", "Boston"], pair.params())
    assert speakers == {"Caroline": 2, "Boston": 0}
    embedded: list[list[str]] = []
    embed = mem.embedder.aembed

    async def recording(texts: list[str]) -> list[list[float]]:
        embedded.append(texts)
        return await embed(texts)

    ranked_by: list[list[float]] = []
    retrieve = mem.store.retrieve

    async def recording_retrieve(name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if name in {"vector", "scope_scan"}:
            ranked_by.append(params["embedding"])
        return await retrieve(name, params)

    monkeypatch.setattr(mem.embedder, "aembed", recording)
    monkeypatch.setattr(mem.store, "retrieve", recording_retrieve)
    question = "What did Caroline research in Boston?"
    hits = await mem.search(question, pair, limit=3)
    # The names are not counted yet: the question is embedded as if they did not speak while
    # they are, then again without the name that speaks, and the ranking uses the second.
    assert embedded == [[question], ["What did research in Boston?"]]
    [wanted] = await embed(["What did research in Boston?"])
    assert ranked_by == [pytest.approx(wanted, abs=1e-5)]
    assert "adoption agencies" in hits[0].memory.text and retrievers(hits[0]).get("speaker") == 1
    assert all(h.memory.speaker == "Caroline" for h in hits if retrievers(h).get("speaker"))
    # Counted now: one text is embedded, the question without her name.
    embedded.clear()
    again = await mem.search(question, pair, limit=3)
    assert embedded == [["What did research in Boston?"]]
    assert [h.memory.id for h in again] == [h.memory.id for h in hits]


async def test_a_named_speakers_ranking_comes_with_the_index_answer_that_holds_enough_of_theirs(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = Scope(user_id="pair")
    hobbies = ["painting", "running", "baking", "hiking", "chess", "gardening"]
    await mem.add(
        [
            {"content": f"I relax by {h} on weekends, number {i + offset}.", "speaker": speaker}
            for i, h in enumerate(hobbies * 4)
            for speaker, offset in (("Melanie", 0), ("Caroline", 100))
        ],
        pair,
        infer=False,
    )
    monkeypatch.setattr(mem.settings, "exact_scan_max", 0)  # the index ranks the scope
    calls = record_retrievers(monkeypatch, mem)
    hits = await mem.search("How does Melanie relax?", pair, limit=5)
    ran = [(name, params.get("fetch_k"), params["limit"]) for name, params in calls]
    # 24 of the 48 are hers: the index's top 90, asked for anyway, holds all of them (2 x 5
    # expected), so no query of her own runs: the answer ranks hers too.
    assert [call for call in ran if call[0] in {"vector", "speaker", "scope_scan"}] == [
        ("vector", 90, 30)
    ]
    ranked = [h for h in hits if retrievers(h).get("speaker")]
    assert len(ranked) >= 4 and all(h.memory.speaker == "Melanie" for h in ranked)
    assert hits[0].memory.speaker == "Melanie" and retrievers(hits[0]).get("speaker") == 1
    assert max(retrievers(h)["speaker"] for h in ranked) <= 24


@pytest.mark.parametrize(
    ("bobs", "ranked_by"), [(138, ["vector", "speaker"]), (30, ["scope_scan"])]
)
async def test_a_named_speaker_who_holds_few_of_the_index_is_ranked_exactly(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch, bobs: int, ranked_by: list[str]
) -> None:
    mid = await beside_dog_walks(
        mem,
        Ann=("I walked my dog Rex to the park on day {}.", 12),
        Bob=("I fixed the bike chain on day {}.", bobs),
    )
    # One global index, no exact scan of the scope for its size alone. Ann's 12 would need the
    # index asked 2 x 10 x 550 / 12 = 917 deep, more than ranking her 12 exactly reads: they
    # are ranked exactly, beside the index's usual 90 for mid's 150. Mid's 42 of 442 would
    # need it asked 211 deep: that and her 12 read more than ranking mid's 42 exactly, which
    # ranks hers with them.
    deep = one_global_index(mem, exact_scan_max=0)
    calls = record_retrievers(monkeypatch, deep)
    hits = await deep.search("Where did Ann walk the dog?", mid, limit=10)
    ran = [name for name, params in calls]
    assert ran == ranked_by and len(hits) == 10
    assert all(h.memory.speaker == "Ann" and retrievers(h).get("speaker") for h in hits)


async def test_a_named_speaker_the_answer_holds_too_few_of_is_ranked_exactly_after_it(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    mid = await beside_dog_walks(
        mem,
        Ann=("I fixed my bike chain on day {}.", 60),
        Bob=("I walked my dog to the park on day {}.", 60),
    )
    # One global index, no exact scan of the scope. Ann holds 60 of 520, so the usual top 90
    # should hold 2 x 3 of hers; but the question is about dogs, and the top 90 are dog walks.
    # Words as written: "walk" finding Bob's "walked" in full text would fill the top 3 with his
    # lines, and this test is about which query ranks Ann's, not about fusion.
    deep = one_global_index(mem, exact_scan_max=0, fulltext_word_forms=False)
    calls = record_retrievers(monkeypatch, deep)
    hits = await deep.search("Did Ann walk the dog in the park?", mid, limit=3)
    ran = [name for name, params in calls]
    assert [n for n in ran if n in {"vector", "speaker"}] == ["vector", "speaker"]
    ranked = [h for h in hits if retrievers(h).get("speaker")]
    assert ranked and all("bike" in h.memory.text for h in ranked)


async def add_daily_lines(mem: MemoryService, scope: Scope, **lines: tuple[str, int]) -> None:
    """Each speaker's line ``count`` times, numbered by day (speaker=(line, count))."""
    await mem.add(
        [
            {"content": line.format(day), "speaker": speaker}
            for speaker, (line, count) in lines.items()
            for day in range(count)
        ],
        scope,
        infer=False,
    )


async def beside_dog_walks(mem: MemoryService, **lines: tuple[str, int]) -> Scope:
    """Scope "mid" with each speaker's daily lines (add_daily_lines), beside a scope of 400
    dog walks that crowd the vector index's global top-k."""
    mid = Scope(user_id="mid")
    await add_dog_walks(mem, Scope(user_id="big"), 400)
    await add_daily_lines(mem, mid, **lines)
    return mid


async def add_dog_walks(mem: MemoryService, scope: Scope, count: int) -> None:
    """A large scope of near-identical memories that crowd the vector index's global top-k."""
    await mem.add(
        [
            {"content": f"My dog number {i} loves long walks in the park.", "id": f"b{i}"}
            for i in range(count)
        ],
        scope,
        infer=False,
    )


async def test_a_scope_ranked_exactly_ranks_the_named_speaker_with_it(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    mid = await beside_dog_walks(
        mem,
        Ann=("I walked my dog Rex to the park on day {}.", 12),
        Bob=("I fixed the bike chain on day {}.", 30),
    )
    # One global index: mid's 42 of 442 would need it asked 211 deep, so the scope is ranked
    # exactly, every memory of Ann's with it; no query of hers runs. Words as written, so that
    # the full-text ranks of her near-identical lines ("walk" finds "walked") do not pick
    # which of them fusion keeps.
    deep = one_global_index(mem, fulltext_word_forms=False)
    answers: list[tuple[str, Any]] = []
    retrieve = deep.store.retrieve

    async def recording(name: str, params: dict[str, Any]) -> Any:
        answers.append((name, answer := await retrieve(name, params)))
        return answer

    monkeypatch.setattr(deep.store, "retrieve", recording)
    hits = await deep.search("Where did Ann walk the dog?", mid, limit=10)
    [(name, scan)] = answers
    assert name == "scope_scan" and len(hits) == 10
    ranked = sorted(
        (h for h in hits if "speaker" in retrievers(h)), key=lambda h: retrievers(h)["speaker"]
    )
    assert [h.memory.id for h in ranked] == [r["id"] for r in scan.voiced][: len(ranked)]
    assert len(ranked) >= 8 and all(h.memory.speaker == "Ann" for h in ranked)
    # The same ranking as her memories ranked on their own.
    [embedding] = await deep.embedder.aembed(["Where did walk the dog?"])
    plain = QueryPlan(text="", lucene=None, window=None, as_of=None).filter_params()
    ann = {
        **mid.params(),
        **plain,
        "embedding": embedding,
        "speakers": ["Ann"],
        "limit": 30,
        "window_cap": 5000,
    }
    alone = await retrieve("speaker", ann)
    assert [r["id"] for r in scan.voiced] == [r["id"] for r in alone.hits]


async def test_a_small_tenant_among_a_large_one_is_not_starved(mem: MemoryService) -> None:
    big, small = Scope(user_id="big"), Scope(user_id="small")
    await add_dog_walks(mem, big, 400)
    mine = ["My dog Rex loves walks.", "I repaired the kitchen sink.", "We bought a new sofa."]
    await mem.add([{"content": text} for text in mine], small, infer=False)
    hits = await mem.search("dog walks in the park", small, limit=10)
    assert sorted(h.memory.text for h in hits) == sorted(mine)
    assert hits[0].memory.text == "My dog Rex loves walks."


async def test_a_scope_too_large_to_scan_asks_the_index_deeper(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, mid = Scope(user_id="big"), Scope(user_id="mid")
    await add_dog_walks(mem, big, 400)
    mine = [f"I walked my dog Rex to the park on day {i}." for i in range(12)]
    await mem.add([{"content": text} for text in mine], mid, infer=False)
    # One global index (no user partitions), no exact scan allowed, and an over-fetch that
    # alone would reach only the big scope's dog walks: the index is asked for enough
    # candidates that mid gets its own share.
    deep = one_global_index(mem, exact_scan_max=0, vector_overfetch=1, retriever_depth=5)
    calls = record_retrievers(monkeypatch, deep)
    hits = await deep.search("walking the dog in the park", mid, limit=10)
    ran = [(name, params.get("fetch_k")) for name, params in calls]
    assert len(hits) == 10 and {h.memory.text for h in hits} <= set(mine)
    assert all(retrievers(h).get("vector") for h in hits)
    [(_, fetch_k)] = [call for call in ran if call[0] == "vector"]
    assert fetch_k == 2 * 10 * 412 // 12 + 1 and "scope_scan" not in {n for n, _ in ran}


async def test_a_scope_size_is_reused_between_searches_and_recounted_after_a_write(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = Scope(user_id="sized")
    await mem.add([{"content": "I walked my dog Rex to the park."}], scope, infer=False)
    counted, share = [], mem.store.scope_share

    async def counting(params: dict[str, Any]) -> tuple[int, int]:
        counted.append(params["user_id"])
        return await share(params)

    spoke, speaker_counts = [], mem.store.speaker_counts

    async def counting_speakers(names: list[str], params: dict[str, Any]) -> dict[str, int]:
        spoke.append(names)
        return await speaker_counts(names, params)

    monkeypatch.setattr(mem.store, "scope_share", counting)
    monkeypatch.setattr(mem.store, "speaker_counts", counting_speakers)
    await mem.search("dog walks with Rex", scope)
    await mem.search("Did Rex see the park?", scope)
    assert counted == ["sized"] and spoke == [["Rex"]]  # counted once, "Rex" speaks nowhere
    await mem.add(
        [{"content": "I chased a ball by the lake.", "speaker": "Rex"}], scope, infer=False
    )
    [hit, _] = await mem.search("What did Rex chase by the lake?", scope)
    assert counted == ["sized", "sized"] and spoke == [["Rex"], ["Rex"]]
    assert "ball" in hit.memory.text and retrievers(hit).get("speaker") == 1


async def test_hits_come_loaded_with_the_retrievers_answers(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More memories than a page, several per topic and person, so each ranking runs past the
    # hits it loads: fusion keeps only what the rankings loaded, and nothing is fetched after.
    people, topics = ["Priya", "Tomas", "Wen"], ["ramen", "hiking", "chess", "pottery"]
    await mem.add(
        [
            {"content": f"{p} and I talked about {t} on day {i}.", "speaker": "Alice"}
            for i, (p, t) in enumerate((p, t) for p in people for t in topics for _ in range(3))
        ],
        ALICE,
        infer=False,
    )
    questions = ["What did Priya say about ramen?", "hiking with Wen", "Who plays chess?"]
    fetched: list[list[str]] = []
    fetch_hits = mem.store.fetch_hits

    async def recording(ids: list[str], params: dict[str, Any]) -> Any:
        fetched.append(ids)
        return await fetch_hits(ids, params)

    monkeypatch.setattr(mem.store, "fetch_hits", recording)
    # At a page of 1 or 2, the first hit is often one that two rankings hold below their first.
    asked = [(q, limit) for q in questions for limit in (1, 2, 5)]
    loaded = [await mem.search(q, ALICE, limit=limit) for q, limit in asked]
    assert fetched == [] and [len(hits) for hits in loaded] == [limit for _, limit in asked]
    # The same searches with nothing loaded by the retrievers fetch every hit: same answers.
    monkeypatch.setattr(
        repository,
        "_with_evidence",
        lambda rows: [{k: v for k, v in row.items() if k != "hit"} for row in rows],
    )
    for (question, limit), hits in zip(asked, loaded, strict=True):
        assert await mem.search(question, ALICE, limit=limit) == hits
    assert len(fetched) == len(asked)


async def test_the_vector_retriever_loads_what_fusion_can_keep(mem: MemoryService) -> None:
    walks = [
        {"content": f"I walked the dog to park number {i}.", "speaker": speaker}
        for i, speaker in enumerate(["Alice", "Bob"] * 6)
    ]
    await mem.add(walks, ALICE, infer=False)
    [embedding] = await mem.embedder.aembed(["dog walks in the park"])
    plain = QueryPlan(text="", lucene=None, window=None, as_of=None).filter_params()
    params = {**ALICE.params(), **plain, "embedding": embedding, "fetch_k": 30, "limit": 12}
    rows = (await mem.store.retrieve("vector", params)).hits
    assert len(rows) == 12 and not any(r["hit"] for r in rows)  # asked to load nothing
    ids = [r["id"] for r in rows]
    bobs = [r["id"] for r in rows if r["speaker"] == "Bob"]
    cover = {
        **params,
        "cover": {"first": 2, "known": [ids[7]], "loaded": [ids[1]], "speakers": ["Bob"]},
    }
    rows = (await mem.store.retrieve("vector", cover)).hits
    loaded = {r["id"] for r in rows if r.get("hit")}
    # Its first two but the one loaded already, a memory another ranking holds, Bob's first two.
    assert loaded == ({ids[0], ids[7], *bobs[:2]} - {ids[1]})
    # A shorter list: Bob's first four come as his own list, his first two loaded once.
    short = await mem.store.retrieve("vector", {**cover, "limit": 4})
    assert [r["id"] for r in short.hits] == ids[:4] and [r["id"] for r in short.voiced] == bobs[:4]
    loaded_ids = [r["id"] for r in [*short.hits, *short.voiced] if r.get("hit")]
    assert all(loaded_ids.count(i) == 1 for i in bobs[:2]) and ids[1] not in loaded_ids
    # Loaded as fetch_hits loads a hit: the memory, its source message, its entities.
    hit = next(r["hit"] for r in rows if r["id"] == ids[0])
    assert hit == (await mem.store.fetch_hits([ids[0]], params))[ids[0]]
    assert hit.memory.text.endswith(f"park number {hit.memory.text.split()[-1]}")
    assert len(hit.sources) == 1 and "walked the dog" in hit.sources[0].text


def cypher_type(value: Any) -> str:
    """A parameter's type as Neo4j keys plans by it (an empty list is a type of its own)."""
    if isinstance(value, list):
        return f"LIST<{cypher_type(value[0]) if value else 'NOTHING'}>"
    kinds = {
        type(None): "NULL",
        bool: "BOOLEAN",
        int: "INTEGER",
        float: "FLOAT",
        str: "STRING",
        datetime: "DATETIME",
        dict: "MAP",
    }
    return kinds[type(value)]


async def test_the_plans_made_at_start_up_are_those_searches_use(
    seeded: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched = {
        "search_text",
        "search_vector",
        "search_time_window",
        "search_speaker",
        "fetch_hits",
        "count_scope_memories",
        "count_scope_speakers",
        "count_window_reads",
    }

    def key(
        name: str, params: Mapping[str, Any], fills: Mapping[str, str] | None
    ) -> tuple[str, frozenset[tuple[str, str]]]:
        text = (
            catalog.query(name)
            if fills is None
            else catalog.fill_markers(catalog.query(name), fills)
        )
        text = catalog.bind_optional(text, params)
        return text, frozenset((k, cypher_type(v)) for k, v in params.items())

    planned, ran, names = set(), set(), set()
    explain, read = seeded.db.explain, seeded.db.read

    async def planning(
        name: str, params: Mapping[str, Any], fills: Mapping[str, str] | None = None
    ) -> None:
        planned.add(key(name, params, fills))
        await explain(name, params, fills)

    async def reading(
        name: str,
        params: Mapping[str, Any] | None = None,
        fills: Mapping[str, str] | None = None,
        **k: Any,
    ) -> Any:
        if name in searched:
            ran.add(key(name, params or {}, fills))
            names.add(name)
        return await read(name, params, fills, **k)

    monkeypatch.setattr(seeded.db, "explain", planning)
    monkeypatch.setattr(seeded.db, "read", reading)
    await HybridRetriever(seeded.settings.search, seeded.store, seeded.embedder).prepare_plans()
    if seeded.counts is not None:
        seeded.counts.clear()  # counted afresh, by the statements planned
    options = SearchOptions(limit=3, when=TimeFilter(reference_time=REFERENCE))
    for question in [
        "new pet dog",
        "What did Alice say last month?",
        "What happened in March?",
        "Where did Alice fly to?",
        "What has Alice been up to lately?",
    ]:
        await seeded.search(question, ALICE, options=options)
    # Every statement a search ran, with its parameters' types, was planned at start-up.
    assert {"search_text", "search_vector", "search_time_window"} <= names
    assert {"count_scope_memories", "count_scope_speakers", "count_window_reads"} <= names
    assert ran <= planned, ran - planned


async def bolt_connections(target: Neo4jTarget) -> set[str]:
    """The server's Bolt connections, the one asking among them."""
    rows = await run_cypher(
        target,
        "CALL dbms.listConnections() YIELD connectionId, connector "
        "WHERE connector = 'bolt' RETURN collect(connectionId) AS ids",
    )
    return set(rows[0]["ids"])  # type: ignore[call-overload]


async def test_start_opens_the_connections_a_search_runs_on(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    await mem.add([{"content": "I adopted a dog named Rex.", "speaker": "Alice"}], ALICE)
    service = await MemoryService.start(
        mem.settings, embedder=mem.embedder, extractor=mem.extractor
    )
    try:
        opened = await bolt_connections(neo4j_target)
        await service.search("What did Alice adopt?", ALICE)
        # The search's queries ran side by side on connections opened at start-up: the only
        # new connection is the one asking (a login costs a first search ~50 ms).
        assert len(await bolt_connections(neo4j_target) - opened) == 1
    finally:
        await service.close()


async def test_hits_that_state_something_rank_before_questions_and_repeats(
    mem: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob = Scope(user_id="bob")
    said = [
        ("Ana", "Ichiran ramen? Have you tried the Ichiran ramen? Is Ichiran ramen good?"),
        ("Bob", "We ate at Ichiran in Fukuoka, and the broth was rich."),
    ]
    await mem.add(
        [
            {"content": text, "speaker": who, "timestamp": "2024-05-01T10:00:00Z"}
            for who, text in said
        ],
        bob,
    )
    options = SearchOptions(limit=5)

    monkeypatch.setattr(mem.settings, "informative_first", False)
    fused = [h.memory.text for h in await mem.search("Ichiran ramen", bob, options=options)]
    assert fused[0].startswith("Ichiran ramen?"), fused  # the words alone favour the question

    monkeypatch.setattr(mem.settings, "informative_first", True)
    hits = [h.memory.text for h in await mem.search("Ichiran ramen", bob, options=options)]
    assert hits[0].startswith("We ate at Ichiran"), hits
    assert hits[1].startswith("Ichiran ramen?")  # ranked after, not dropped


async def test_a_question_finds_another_form_of_its_words_in_full_text(mem: MemoryService) -> None:
    await mem.add(
        [
            {"content": "We went camping by the lake with the kids.", "speaker": "Alice"},
            {"content": "The quarterly report is due on Friday.", "speaker": "Alice"},
        ],
        ALICE,
    )
    hits = await mem.search("camped", ALICE, limit=3)
    camping = [h for h in hits if "camping" in h.memory.text]
    assert camping and "fulltext" in retrievers(camping[0])
    as_written = replace(
        mem, settings=mem.settings.model_copy(update={"fulltext_word_forms": False})
    )
    hits = await as_written.search("camped", ALICE, limit=3)
    assert not any("fulltext" in retrievers(h) for h in hits)


async def test_a_where_question_ranks_the_memory_naming_a_place_first(mem: MemoryService) -> None:
    await mem.add(
        [
            {"content": "Alice has travelled a lot and loved every trip.", "speaker": "Alice"},
            {"content": "Alice spent a week in Lisbon.", "speaker": "Alice"},
        ],
        ALICE,
    )
    question = "Where has Alice travelled?"
    fused = replace(mem, settings=mem.settings.model_copy(update={"answer_type_boost": 0.0}))
    [first, *_] = await fused.search(question, ALICE, limit=2)
    assert "every trip" in first.memory.text  # the fused order, for the test to mean anything
    boosted = replace(mem, settings=mem.settings.model_copy(update={"answer_type_boost": 4.0}))
    [first, *_] = await boosted.search(question, ALICE, limit=2)
    assert "Lisbon" in first.memory.text
    assert any(e.type == "PLACE" for e in first.entities)


async def test_a_hit_lists_its_sources_as_said_and_its_entities_by_name(
    mem: MemoryService,
) -> None:
    scope = Scope(user_id="order-u")
    text = "Zoe, Mia and Bruno went hiking near Oslo."
    for when in ("2024-06-02T09:00:00Z", "2024-05-01T09:00:00Z", "2024-07-09T09:00:00Z"):
        await mem.add([{"content": text, "timestamp": when, "speaker": "Kai"}], scope)
    [hit, *_] = await mem.search("hiking near Oslo", scope, limit=1)
    names = [e.name for e in hit.entities]
    assert {"Zoe", "Mia", "Bruno", "Oslo"} <= set(names) and names == sorted(names)
    said = [src.said_at for src in hit.sources]
    assert len(said) == 3 and said == sorted(said)
