"""route_search: which queries rank a search by embedding, decided from counts alone."""

from __future__ import annotations

from datetime import UTC, datetime

from service.core.config import Settings
from service.core.domain import Clock, Retriever
from service.retrieval.query import QueryPlan, TimeWindow
from service.retrieval.route import RankerCall, RouteCounts, route_search
from service.store.repository import Ranker, WindowCount

SETTINGS = Settings(
    exact_scan_max=2000, vector_fetch_max=10_000, vector_overfetch=3, retriever_depth=30
)
MARCH = TimeWindow(
    Clock.SAID, datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 4, 1, tzinfo=UTC), "in March"
)
PLAIN = QueryPlan(text="ramen", lucene="ramen", window=None, as_of=None)


def test_a_large_scope_is_ranked_by_the_index_alone() -> None:
    route = route_search(SETTINGS.search, PLAIN, RouteCounts(100_000, 50_000), 10, None, False)
    assert route.calls == {Retriever.VECTOR: RankerCall(Ranker.VECTOR, 90)}
    assert not route.voiced


def test_a_small_scope_is_ranked_exactly_and_ranks_its_speakers_with_it() -> None:
    route = route_search(SETTINGS.search, PLAIN, RouteCounts(100_000, 500, 200), 10, None, True)
    assert route.calls == {Retriever.VECTOR: RankerCall(Ranker.SCOPE_SCAN)}
    assert route.voiced and not route.index_voiced


def test_speakers_the_index_answer_holds_come_with_it() -> None:
    # Speakers with 2 x 10 x 526 / 272 < 90 expected in the usual answer.
    route = route_search(SETTINGS.search, PLAIN, RouteCounts(526, 526, 272), 10, None, True)
    assert route.calls == {Retriever.VECTOR: RankerCall(Ranker.VECTOR, 90)}
    assert route.voiced and route.index_voiced


def test_few_speakers_in_a_large_scope_get_their_own_query() -> None:
    route = route_search(
        SETTINGS.search, PLAIN, RouteCounts(1_000_000, 500_000, 50), 10, None, True
    )
    assert route.calls == {
        Retriever.VECTOR: RankerCall(Ranker.VECTOR, 90),
        Retriever.SPEAKER: RankerCall(Ranker.SPEAKER),
    }
    assert not route.voiced


def test_a_window_that_reads_little_is_ranked_exactly_for_both_retrievers() -> None:
    plan = QueryPlan(text="ramen", lucene="ramen", window=MARCH, as_of=None)
    window = WindowCount(reads=300, within=120)
    route = route_search(SETTINGS.search, plan, RouteCounts(100_000, 50_000), 10, window, False)
    assert route.calls == {Retriever.TIME: RankerCall(Ranker.TIME)}


def test_a_preferred_window_is_ranked_on_its_own_beside_the_scope() -> None:
    plan = QueryPlan(text="ramen", lucene="ramen", window=None, as_of=None, recent=MARCH)
    window = WindowCount(reads=300, within=120)
    route = route_search(SETTINGS.search, plan, RouteCounts(100_000, 50_000), 10, window, False)
    assert route.calls == {
        Retriever.VECTOR: RankerCall(Ranker.VECTOR, 90),
        Retriever.TIME: RankerCall(Ranker.TIME, 0, MARCH),
    }
