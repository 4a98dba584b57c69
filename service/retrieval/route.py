"""How a search ranks by embedding: which store queries, how deep (pure; HybridRetriever
runs what route_search decides).

Three queries can rank a scope by the question's embedding: the vector index asked k deep
(Ranker.VECTOR), an exact cosine over the scope or a user's time window read through its index
(SCOPE_SCAN, TIME), and an exact cosine over the memories of speakers the question names
(SPEAKER). Their cost follows the share of the index the caller may see, so each route is
chosen from counts: how many memories the index holds (``total``), the caller's scope
(``scoped``), the named speakers (``spoken``) and, for a time window, its index seek.

Words used below: a ranking is *voiced* when it also ranks the named speakers' memories (one
query answers for the embedding and the speaker retriever); the *cover* is what a ranking
loads with its answer (cypher/fragments/ranked_hits.cypher).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from service.core.config import SearchKnobs
from service.core.domain import Retriever
from service.retrieval.query import QueryPlan, TimeWindow
from service.store.repository import Ranker, WindowCount


@dataclass(frozen=True)
class RankerCall:
    """One store query of a route: the ranker, the index depth (VECTOR), and the preferred
    time window it ranks on its own (``window``; else the question's own filters)."""

    ranker: Ranker
    fetch_k: int = 0
    window: TimeWindow | None = None


@dataclass(frozen=True)
class SearchRoute:
    """The embedding side of a search: a query per retriever, the first one the main ranking.

    ``voiced``: the main ranking ranks the named speakers too. ``index_voiced``: it does so
    from the vector index's answer, which can hold too few of theirs (then their own query
    is asked after all)."""

    calls: Mapping[Retriever, RankerCall]
    voiced: bool = False
    index_voiced: bool = False


@dataclass(frozen=True)
class RouteCounts:
    """The counts a route is chosen from (see the module docstring)."""

    total: int
    scoped: int
    spoken: int = 0


def route_search(
    knobs: SearchKnobs,
    plan: QueryPlan,
    counts: RouteCounts,
    wanted: int,
    window: WindowCount | None,
    speakers: bool,
) -> SearchRoute:
    """Which queries rank the question by embedding. ``window``: the user's window (the
    question's, else the one it prefers) counted from its index; ``speakers``: whether the
    question names someone who speaks in the scope."""
    s, total, scoped = knobs, counts.total, counts.scoped
    bounded = window if plan.window is not None else None
    main, fetch_k = window_route(s, total, scoped, wanted, bounded)
    speaker_k = None
    if main is Ranker.VECTOR and plan.window is None and speakers:
        speaker_k = speaker_route(s, total, counts.spoken, wanted, fetch_k)
        if speaker_k is None and scoped <= fetch_k + counts.spoken:
            # The index's answer and their own ranking would read at least as many memories as
            # ranking the scope exactly, which ranks theirs too and is never short of the scope.
            main = Ranker.SCOPE_SCAN
    voiced = speakers and (main is not Ranker.VECTOR or speaker_k is not None)
    calls: dict[Retriever, RankerCall] = {}
    if main is Ranker.VECTOR:
        calls[Retriever.VECTOR] = RankerCall(Ranker.VECTOR, speaker_k or fetch_k)
    elif plan.window is None:
        calls[Retriever.VECTOR] = RankerCall(Ranker.SCOPE_SCAN)
    else:
        calls[Retriever.TIME] = RankerCall(Ranker.TIME)
    if speakers and not voiced:
        calls[Retriever.SPEAKER] = RankerCall(Ranker.SPEAKER)
    if plan.recent is not None:
        # The preferred window is ranked as a bounding one would be, on its own.
        recent, k = window_route(s, total, scoped, wanted, window)
        ranker = Ranker.VECTOR if recent is Ranker.VECTOR else Ranker.TIME
        calls[Retriever.TIME] = RankerCall(ranker, k, plan.recent)
    return SearchRoute(calls, voiced, speaker_k is not None)


def window_route(
    knobs: SearchKnobs, total: int, scoped: int, wanted: int, window: WindowCount | None
) -> tuple[Ranker, int]:
    """embedding_route for a scope, or for a user's time window counted from its index.

    A window whose exact ranking reads at most exact_scan_max memories is ranked exactly.
    Otherwise the share the index's answer is filtered to is the window's own count (an upper
    bound of it), so the index is asked once, deep enough; a window that holds few is ranked
    exactly through its seek. Measured on the 100k store ("in March": 1,976 read, the first
    ask at 159 held 3 of the window and a second at 1,060 was needed) in bench/RESULTS.md.
    """
    if window is None:
        return embedding_route(knobs, total, scoped, wanted)
    if window.reads <= knobs.exact_scan_max:
        return Ranker.SCOPE_SCAN, 0
    return embedding_route(knobs, total, min(scoped, window.within), wanted)


def embedding_route(knobs: SearchKnobs, total: int, scoped: int, wanted: int) -> tuple[Ranker, int]:
    """Which retriever ranks the scope by embedding, and how deep the index is asked.

    The index's top-k is global, so a scope holding scoped/total of what the index holds (the
    store, or the user's partition: store/index_shards.py) expects that share of it. The
    usual over-fetch serves a scope that expects 2 x ``wanted`` hits from it; a smaller
    scope asks for more, up to vector_fetch_max, or, when it holds at most
    exact_scan_max memories, is ranked by exact cosine (a few hundred vectors read through the
    scope index cost less than a deep index search, and miss nothing).
    """
    s = knobs
    usual = max(wanted * 3, s.retriever_depth) * s.vector_overfetch
    needed = math.ceil(2 * wanted * total / max(scoped, 1))
    if needed <= usual:
        return Ranker.VECTOR, usual
    if scoped <= s.exact_scan_max:
        return Ranker.SCOPE_SCAN, 0
    return Ranker.VECTOR, min(needed, s.vector_fetch_max)


def speaker_route(
    knobs: SearchKnobs, total: int, spoken: int, wanted: int, fetch_k: int
) -> int | None:
    """How deep to ask the vector index for its answer to hold the named speakers' best
    memories too, or None to rank those exactly (the speaker retriever's own query).

    Speakers holding spoken/total of what the index holds expect that share of its top k; the
    answer serves them when it is expected to hold 2 x ``wanted`` of theirs, as embedding_route
    asks of a scope. The vector retriever's own ``fetch_k`` serves when it is that deep.
    Deeper, both ways read about one node per candidate, so the index is asked deeper only
    when that reads fewer than the ``spoken`` memories the exact ranking reads.
    """
    needed = math.ceil(2 * wanted * total / max(spoken, 1))
    if needed <= fetch_k:
        return fetch_k
    if needed >= spoken or needed > knobs.vector_fetch_max:
        return None
    return needed


def deeper_fetch(
    knobs: SearchKnobs, fetch_k: int, found: int, wanted: int, scoped: int
) -> int | None:
    """How deep to ask the index again when its top ``fetch_k`` held only ``found`` of the
    memories the caller may see (fewer than ``wanted``), or None to rank exactly instead.

    The share it showed (found / fetch_k) sizes a second ask that expects 2 x ``wanted`` of
    them. Both ways read about one node per candidate: the second ask reads ``deeper`` of them,
    the exact ranking at most every memory of the scope (``scoped``; a user's window only
    those its index seeks), so the index is asked again only when that is fewer. Nothing
    found says the share is below 1 / fetch_k: exact is cheaper (measured in bench/RESULTS.md).
    """
    if found == 0:
        return None
    deeper = math.ceil(fetch_k * 2 * wanted / found)
    if deeper >= min(scoped, knobs.vector_fetch_max):
        return None
    return deeper
