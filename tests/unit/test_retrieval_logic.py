"""Pure read-path logic: fusion, Lucene escaping, query planning, diversity, context blocks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.core.config import Settings
from service.core.domain import Clock, SearchHit, SearchOptions, StoredMemory, TimeFilter
from service.core.errors import ValidationError
from service.ingest.write_plan import near_duplicate_depth
from service.retrieval.context import build_context
from service.retrieval.diversity import mmr_order
from service.retrieval.fusion import Ranked, reciprocal_rank_fusion
from service.retrieval.lucene import lucene_query, memory_text_query
from service.retrieval.query import candidate_names, plan_query, without_names
from service.retrieval.route import deeper_fetch, embedding_route, speaker_route

REFERENCE = datetime(2024, 5, 10, 12, tzinfo=UTC)


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion(
        {"vector": [Ranked("a", 0.9), Ranked("b", 0.8)], "fulltext": [Ranked("b", 7.0)]},
        {"vector": 1.0, "fulltext": 2.0},
        k=60,
    )
    assert [f.id for f in fused] == ["b", "a"]
    assert fused[0].score == pytest.approx(1 / 62 + 2 / 61)
    assert fused[0].ranks == {"vector": (2, 0.8), "fulltext": (1, 7.0)}


def test_rrf_keeps_the_first_graph_path() -> None:
    fused = reciprocal_rank_fusion(
        {"graph": [Ranked("a", 1.0, ("Priya", "Lisbon"), ("Priya",))]}, {}, k=60
    )
    assert fused[0].path == ("Priya", "Lisbon") and fused[0].matched == ("Priya",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Priya suggest?", "Priya OR suggest"),
        ('ZX-4471 AND (foo OR "bar', "ZX OR 4471 OR foo OR bar"),
        ("name:* title:[a TO z]", "title"),
        ("the and of", None),
        ("上个月 跑步", "上个月 OR 跑步"),
    ],
)
def test_lucene_query_keeps_only_escaped_content_words(text: str, expected: str | None) -> None:
    assert lucene_query(text) == expected


def test_lucene_escapes_special_characters_inside_words() -> None:
    query = lucene_query("C++ rocks")
    assert query is not None and "rocks" in query and "+" not in query.replace("\\+", "")


def test_memory_text_query_weighs_the_context_field_and_drops_it_at_zero() -> None:
    assert memory_text_query("running OR great", 0.5) == (
        "text:(running OR great) OR source_text:(running OR great) "
        "OR context_text:(running OR great)^0.5"
    )
    assert memory_text_query("running", 0.0) == "text:(running) OR source_text:(running)"


def test_plan_reads_said_clock_and_phrase_from_the_query() -> None:
    plan = plan_query(
        "What did Alice say last month?",
        SearchOptions(when=TimeFilter(reference_time=REFERENCE)),
    )
    assert plan.window is not None and plan.window.clock is Clock.SAID
    assert plan.window.start == datetime(2024, 4, 1, tzinfo=UTC)
    assert plan.filter_params()["said_to"] == datetime(2024, 5, 1, tzinfo=UTC)
    assert plan.filter_params()["happened_from"] is None


def test_plan_defaults_to_the_happened_clock_and_checks_bounds() -> None:
    plan = plan_query("trips in May 2023", SearchOptions())
    assert plan.window is not None and plan.window.clock is Clock.HAPPENED
    bad = TimeFilter(start=REFERENCE, end=datetime(2020, 1, 1, tzinfo=UTC))
    with pytest.raises(ValidationError, match="before"):
        plan_query("x", SearchOptions(when=bad))
    with pytest.raises(ValidationError, match="empty"):
        plan_query("   ", SearchOptions())


@pytest.mark.parametrize(
    "query", ["What did Alice paint recently?", "How is work lately?", "最近怎么样"]
)
def test_a_vague_recent_word_in_the_query_ranks_a_window_but_bounds_nothing(query: str) -> None:
    plan = plan_query(query, SearchOptions(when=TimeFilter(reference_time=REFERENCE)))
    assert plan.window is None and plan.recent is not None
    assert plan.recent.end is not None and plan.recent.end > REFERENCE
    assert all(value is None for value in plan.filter_params().values())


def test_recently_given_as_the_when_phrase_still_bounds() -> None:
    when = TimeFilter(phrase="recently", reference_time=REFERENCE)
    plan = plan_query("paintings", SearchOptions(when=when))
    assert plan.recent is None and plan.window is not None
    assert plan.filter_params()["happened_from"] == plan.window.start


def test_candidate_names_skip_question_words_and_possessives() -> None:
    assert candidate_names("What does Melanie's daughter like? Where is Caroline?") == (
        "Melanie",
        "Caroline",
    )


def test_mmr_demotes_a_near_copy() -> None:
    embeddings = {"a": [1.0, 0.0], "a2": [0.999, 0.045], "b": [0.0, 1.0]}
    assert mmr_order(["a", "a2", "b"], [1.0, 0.99, 0.9], embeddings, 2, 0.5) == ["a", "b"]
    assert mmr_order(["a", "a2", "b"], [1.0, 0.99, 0.9], embeddings, 2, 1.0) == ["a", "a2"]


def test_context_block_stops_at_the_budget() -> None:
    hits = [
        SearchHit(
            memory=StoredMemory(
                id=str(i), text=f"fact number {i}", speaker="Ann", said_at=REFERENCE
            ),
            score=1.0,
        )
        for i in range(5)
    ]
    block = build_context(hits, token_budget=30, count_tokens=lambda s: len(s.split()))
    assert block.text.splitlines()[1] == "- [2024-05-10, Ann] fact number 0"
    assert block.tokens <= 30 and 0 < len(block.memory_ids) < 5
    assert build_context(hits, 3, lambda s: len(s.split())).text == ""


@pytest.mark.parametrize(
    ("total", "scoped", "route"),
    [
        (1_000, 1_000, ("vector", 300)),  # the whole store: the usual over-fetch
        (100_000, 20_000, ("vector", 300)),  # a fifth of it expects 60 of its own in 300
        (100_000, 5_000, ("vector", 400)),  # a twentieth asks deeper for 20 of its own
        (100_000, 1_000, ("scope_scan", 0)),  # small: exact cosine over its own vectors
        (10_000_000, 2_001, ("vector", 10_000)),  # deeper, but never past vector_fetch_max
        (5_000, 0, ("scope_scan", 0)),  # an empty scope reads nothing
    ],
)
def test_embedding_route_follows_the_scope_share(
    total: int, scoped: int, route: tuple[str, int]
) -> None:
    settings = Settings(
        exact_scan_max=2000, vector_fetch_max=10_000, vector_overfetch=10, retriever_depth=30
    )
    assert embedding_route(settings.search, total, scoped, wanted=10) == route


@pytest.mark.parametrize(
    ("found", "scoped", "deeper"),
    [
        (5, 5_000, 1_200),  # 5 in 300: 1,200 should hold 20
        (15, 5_000, 400),
        (0, 5_000, None),  # a share below 1/300 is cheaper ranked exactly
        (5, 1_000, None),  # asking 1,200 reads more than the scope's 1,000 memories
        (1, 100_000, None),  # 6,000 would pass vector_fetch_max (5,000 here)
    ],
)
def test_deeper_fetch_follows_the_share_the_index_showed(
    found: int, scoped: int, deeper: int | None
) -> None:
    settings = Settings(vector_fetch_max=5_000)
    assert deeper_fetch(settings.search, 300, found, 10, scoped) == deeper


@pytest.mark.parametrize(
    ("total", "spoken", "k"),
    [
        (526, 272, 90),  # a speaker of a conversation alone in its index: the usual 90 serve
        (5_633, 422, 267),  # both speakers of one sharing its partition: 2 x 10 x 5,633 / 422
        (5_633, 208, None),  # one of them: 542 deep reads more than her 208 ranked exactly
        (10_000_000, 50_000, None),  # 4,000 would pass vector_fetch_max (3,000 here)
        (5_000, 0, None),  # nobody speaks: nothing to take from the answer
    ],
)
def test_speaker_route_takes_the_speakers_ranking_from_an_answer_that_holds_enough(
    total: int, spoken: int, k: int | None
) -> None:
    settings = Settings(vector_fetch_max=3_000)
    assert speaker_route(settings.search, total, spoken, wanted=10, fetch_k=90) == k


@pytest.mark.parametrize(
    ("total", "scoped", "depth"),
    [
        (100_000, 100_000, 10),  # the whole store: the index's own top 10 again
        (100_000, 10_000, 100),  # a tenth of it: 100 neighbours hold ~10 of its own
        (100_000, 2_000, 500),
        (10_000_000, 2_001, 10_000),  # never past vector_fetch_max
        (5_000, 0, 10_000),  # an empty scope: as deep as allowed (nothing to find anyway)
    ],
)
def test_near_duplicate_depth_follows_the_scope_share(
    total: int, scoped: int, depth: int | None
) -> None:
    settings = Settings(exact_scan_max=2000, vector_fetch_max=10_000, reconcile_fetch_k=10)
    assert near_duplicate_depth(settings, total, scoped) == depth


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("What did Caroline research?", ["Caroline"], "What did research?"),
        ("What do Melanie's kids like?", ["Melanie"], "What do kids like?"),
        ("What do Melanie’s kids like?", ["Melanie"], "What do kids like?"),
        ("Did Jon meet Gina in Paris?", ["Jon", "Gina"], "Did meet in Paris?"),
        ("Did Carolina call Carol?", ["Carol"], "Did Carolina call ?"),  # whole words only
        ("Caroline?", ["Caroline"], "Caroline?"),  # nothing would be left
        ("What did  Caroline say?", [], "What did  Caroline say?"),  # no speaker: untouched
    ],
)
def test_without_names_drops_speaker_names_and_possessives(
    text: str, names: list[str], expected: str
) -> None:
    assert without_names(text, names) == expected
