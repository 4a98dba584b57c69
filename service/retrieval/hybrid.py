"""Hybrid search inside Neo4j: vector, full-text, graph and time-window retrievers, fused."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from typing import Any

from service.config import Settings
from service.domain import Clock, RetrieverScore, Scope, SearchHit, SearchOptions
from service.embedding import Embedder
from service.retrieval.diversity import mmr_order
from service.retrieval.fusion import Fused, Ranked, reciprocal_rank_fusion
from service.retrieval.informative import informative_first, states_nothing
from service.retrieval.lucene import memory_text_query
from service.retrieval.query import (
    QueryPlan,
    TimeWindow,
    plan_query,
    window_params,
    without_names,
)
from service.store.database import Record
from service.store.repository import NO_COVER, Evidence, GraphStore, Ranking, WindowCount
from service.store.scope_sizes import ScopeCounts, known_speakers, scope_size, scope_speakers


class HybridRetriever:
    """Runs the retrievers concurrently, fuses their rankings and loads the evidence."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        counts: ScopeCounts | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.counts = counts

    @property
    def weights(self) -> dict[str, float]:
        s = self.settings
        return {"vector": s.weight_vector, "fulltext": s.weight_fulltext,
                "graph": s.weight_graph, "time": s.weight_time,
                "speaker": s.weight_speaker}  # fmt: skip

    async def search(self, query: str, scope: Scope, options: SearchOptions) -> list[SearchHit]:
        plan = plan_query(query, options)
        fetch = max(options.limit * 3, self.settings.retriever_depth)
        params = {**scope.params(), **plan.filter_params(), "limit": fetch}
        found = await self._run_retrievers(plan, params, options.limit)
        results = rankings(found)
        fused = reciprocal_rank_fusion(results, self.weights, self.settings.rrf_k)
        fused = [f for f in fused if f.score >= options.min_score]
        evidence = loaded_evidence(found)
        if self.settings.informative_first:
            fused, evidence = await self._informative_first(fused, options.limit, params, evidence)
        fused = await self._diversify(fused, options.limit, params)
        return await self._explain(fused, params, evidence)

    async def _informative_first(
        self, fused: list[Fused], limit: int, params: dict[str, Any], loaded: dict[str, Evidence]
    ) -> tuple[list[Fused], dict[str, Evidence]]:
        """The first 3 x limit hits in informative_first's order, with their evidence loaded
        (it holds the texts the order reads)."""
        pool, rest = fused[: limit * 3], fused[limit * 3 :]
        missing = [f.id for f in pool if f.id not in loaded]
        if missing:
            loaded = {**loaded, **await self.store.fetch_hits(missing, params)}
        says_nothing = {
            f.id for f in pool
            if f.id in loaded and states_nothing(loaded[f.id].memory.text, loaded[f.id].memory.lang)
        }  # fmt: skip
        sources = {f.id: loaded[f.id].memory.source_ids for f in pool if f.id in loaded}
        by_id = {f.id: f for f in pool}
        order = informative_first([f.id for f in pool], says_nothing, sources)
        return [by_id[i] for i in order] + rest, loaded

    async def _diversify(
        self, fused: list[Fused], limit: int, params: dict[str, Any]
    ) -> list[Fused]:
        """MMR over a pool of 3 x limit candidates (off when diversity_weight is 1)."""
        weight = self.settings.diversity_weight
        if weight >= 1.0 or len(fused) <= 1:
            return fused[:limit]
        pool = fused[: limit * 3]
        embeddings = await self.store.fetch_embeddings([f.id for f in pool], params)
        order = mmr_order([f.id for f in pool], [f.score for f in pool], embeddings, limit, weight)
        by_id = {f.id: f for f in pool}
        return [by_id[i] for i in order]

    async def _run_retrievers(
        self, plan: QueryPlan, params: dict[str, Any], wanted: int
    ) -> dict[str, list[Record]]:
        """Each retriever's rows by name. The text retrievers start at once (one query); the
        embedding ones when the query is embedded."""
        s = self.settings
        text_rows = asyncio.ensure_future(self._text_rows(plan, params, wanted))
        size = asyncio.ensure_future(scope_size(self.store, self.counts, params))
        question = asyncio.ensure_future(self._question_embedding(plan, params))
        # A user's window (or the one the query prefers) is counted from its index meanwhile
        # (2-15 ms, behind the embedding): what ranking it exactly would read, and how many of
        # those can be in it.
        counted = plan.window or plan.recent
        user_window = counted is not None and params.get("user_id") is not None
        window = {**params, **window_params(counted)} if user_window else None
        reads = asyncio.ensure_future(self._window_reads(window))
        try:
            embedding, speakers = await question
            total, scoped = await size
            window_reads = await reads
        except BaseException:
            for task in (text_rows, size, question, reads):
                task.cancel()
            raise
        bounded = None if plan.window is None else window_reads
        retriever, fetch_k = window_route(s, total, scoped, wanted, bounded)
        exact = {**params, "embedding": embedding, "window_cap": s.time_window_cap}
        # A time window is ranked once, and that ranking stands for both the vector and the time
        # retriever: exactly (a cosine per memory of the window, ~25 µs each) where that reads
        # at most exact_scan_max memories or the scope is ranked exactly anyway, else by the
        # index with the window as filter, and exactly after all if the index's answer held too
        # few of the window (below).
        # The named speakers' ranking comes with that ranking when it holds enough of theirs:
        # an exact one holds them all, the index's answer when speaker_route says so. Else
        # their memories are ranked exactly on their own (the speaker query).
        spoken = min(scoped, sum(speakers.values()))
        speaker_k = None
        if retriever == "vector" and plan.window is None and speakers:
            speaker_k = speaker_route(s, total, spoken, wanted, fetch_k)
            if speaker_k is None and scoped <= fetch_k + spoken:
                # The index's answer and their own ranking would read at least as many memories
                # as ranking the scope exactly, which ranks theirs too and is never short of the
                # scope (LoCoMo conv-30: 422 memories, an ask 534 deep and Jon's 208; the ask
                # held too few of the scope in 13 of its 110 questions, ranked exactly after).
                retriever = "scope_scan"
        voiced = bool(speakers) and (retriever != "vector" or speaker_k is not None)
        ranking = {**exact, "cover": cover(wanted, text_rows, list(speakers) if voiced else [])}
        vector = {**ranking, "fetch_k": speaker_k or fetch_k}  # speaker_k is at least fetch_k
        if retriever == "vector":
            calls = {"vector": ("vector", vector)}
        elif plan.window is None:
            calls = {"vector": ("scope_scan", ranking)}
        else:
            calls = {"time": ("time", ranking)}
        if speakers and not voiced:
            calls["speaker"] = ("speaker", {**exact, "speakers": list(speakers)})
        if plan.recent is not None:
            # The preferred window is ranked as a bounding one would be, on its own.
            recent, k = window_route(s, total, scoped, wanted, window_reads)
            recent_params = {**exact, **window_params(plan.recent)}
            calls["time"] = (
                ("vector", {**recent_params, "fetch_k": k})
                if recent == "vector"
                else ("time", recent_params)
            )
        answers = await asyncio.gather(*(self.store.retrieve(*c) for c in calls.values()))
        found = dict(zip(calls, answers, strict=True))
        if retriever == "vector" and len(found["vector"].hits) < wanted:
            found["vector"] = await self._ask_again(vector, found["vector"], wanted, scoped)
        if retriever == "vector" and len(found["vector"].hits) < wanted:
            # Still too few (the window holds few memories, or the index is down): rank the
            # visible scope (in the window) exactly.
            found["vector"] = (
                found["time"]
                if plan.window is not None and "time" in found
                else await self.store.retrieve("scope_scan", ranking)
            )
        rows = {name: answer.hits for name, answer in found.items()}
        if voiced:
            [main, *_] = found.values()
            rows["speaker"] = main.voiced
            if speaker_k is not None and len(main.voiced) < min(wanted, spoken):
                # The index's answer held too few of theirs.
                named = {**exact, "speakers": list(speakers)}
                rows["speaker"] = (await self.store.retrieve("speaker", named)).hits
        if plan.window is not None:  # one ranking of the window stands for both
            rows["vector"] = rows.get("vector") or rows["time"]
            rows.setdefault("time", rows["vector"])
        return rows | await text_rows

    async def _ask_again(
        self, vector: dict[str, Any], answer: Ranking, wanted: int, scoped: int
    ) -> Ranking:
        """The index's top-k held too few of what the caller may see (a short window, or
        memories far from the query): ask it again, deep enough for the share it showed."""
        deeper = deeper_fetch(self.settings, vector["fetch_k"], len(answer.hits), wanted, scoped)
        if not deeper:
            return answer
        return await self.store.retrieve("vector", {**vector, "fetch_k": deeper})

    async def _text_rows(
        self, plan: QueryPlan, params: dict[str, Any], wanted: int
    ) -> dict[str, list[Record]]:
        """The full-text and graph retrievers' rows (one query; none without words to match),
        with the hits fusion can keep from them loaded."""
        if not plan.lucene:
            return {}
        return await self.store.retrieve_text(
            text_params(self.settings, plan.lucene, params, wanted, plan.relation_types)
        )

    async def prepare_plans(self) -> None:
        """Have Neo4j plan the statements of a user's search, without a time window and with
        one on either clock, before the first search asks: planning takes 100-900 ms a
        statement on a new server, ~5 ms once planned. Neo4j keys a plan by the statement's
        text and its parameters' types, so the parameters here are typed as a search's."""
        s = self.settings
        wanted = s.search_default_limit
        embedding = [1.0] * self.embedder.dimensions
        start, end = datetime(2000, 1, 1, tzinfo=UTC), datetime(2000, 2, 1, tzinfo=UTC)
        for window in (None, *(TimeWindow(clock, start, end) for clock in Clock)):
            plan = QueryPlan(text="", lucene=None, window=window, as_of=None)
            params = {**Scope(user_id="plan").params(), **plan.filter_params(),
                      "limit": s.retriever_depth}  # fmt: skip
            exact = {**params, "embedding": embedding, "window_cap": s.time_window_cap}
            ranking = {**exact, "cover": NO_COVER}
            steps = [
                ("text", text_params(s, "plan", params, wanted, ("WORKS_AT",))),
                ("vector", {**ranking, "fetch_k": s.retriever_depth}),
                ("time" if window else "scope_scan", ranking),
                ("speaker", {**exact, "speakers": ["plan"]}),
                ("hits", {**params, "ids": ["plan"]}),
                ("size", params),
                ("speakers", {**params, "names": ["plan"]}),
            ]
            if window is not None:
                steps.append(("window", {**params, **window_params(window)}))
            for retriever, step in steps:
                await self.store.prepare(retriever, step)

    async def _window_reads(self, params: dict[str, Any] | None) -> WindowCount | None:
        return None if params is None else await self.store.window_reads(params)

    async def _question_embedding(
        self, plan: QueryPlan, params: dict[str, Any]
    ) -> tuple[list[float], dict[str, int]]:
        """The question's embedding without the names that speak in this scope, and those names
        with how many memories each speaks.

        Named speakers are a filter (the speaker retriever); the embedding retrievers rank by
        what the question asks, not by whose name it holds (see without_names). Which names
        speak is known while fresh; names not counted yet are asked (~2-4 ms) while the
        question is embedded as if none of them spoke, the common case (a name in a question
        is more often someone spoken of), and embedded again without them only when they do.
        Embedding every text the answer could lead to cost more for both latency and CPU: a
        batch of two short texts takes 7.3 ms, of four 11.0 ms (bench/RESULTS.md).
        """
        names = list(plan.names)
        speaking, uncounted = known_speakers(self.counts, names, params)
        counted = None
        if uncounted:
            counted = asyncio.ensure_future(scope_speakers(self.store, self.counts, names, params))
        text = without_names(plan.text, list(speaking))
        try:
            [embedding] = await self.embedder.aembed([text])
            speakers = speaking if counted is None else await counted
        except BaseException:
            if counted is not None:
                counted.cancel()
            raise
        if (wanted := without_names(plan.text, list(speakers))) != text:
            [embedding] = await self.embedder.aembed([wanted])
        return embedding, speakers

    async def _explain(
        self, fused: list[Fused], params: dict[str, Any], loaded: dict[str, Evidence]
    ) -> list[SearchHit]:
        """The fused hits with their evidence: loaded with the retrievers' answers, or fetched
        (the hits of a ranking that loads nothing, or of a retriever's second ask)."""
        missing = [f.id for f in fused if f.id not in loaded]
        if missing:
            loaded = {**loaded, **await self.store.fetch_hits(missing, params)}
        hits = []
        for f in fused:
            if f.id not in loaded:
                continue
            memory, sources, entities = loaded[f.id]
            hits.append(SearchHit(
                memory=memory, score=f.score, sources=sources, entities=entities,
                retrievers=[RetrieverScore(retriever=name, rank=rank, score=score)
                            for name, (rank, score) in f.ranks.items()],
                matched_entities=list(f.matched), path=list(f.path),
            ))  # fmt: skip
        return hits


def text_params(
    settings: Settings,
    lucene: str,
    params: dict[str, Any],
    wanted: int,
    relation_types: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The full-text and graph retrievers' parameters (cypher/search_text.cypher);
    ``relation_types``: the typed relations the graph retriever follows (QueryPlan)."""
    s = settings
    return {
        **params, "memory_lucene": memory_text_query(lucene, s.context_weight),
        "text_fetch_k": params["limit"] * s.fulltext_overfetch, "entity_lucene": lucene,
        "max_entities": s.graph_entities, "hub_limit": s.graph_hub_limit,
        "hop_decay": s.graph_hop_decay, "preload": wanted,
        # In a map: Neo4j keys plans by parameter types, and an empty list types differently.
        "relations": {"types": list(relation_types)},
    }  # fmt: skip


def rankings(found: dict[str, list[Record]]) -> dict[str, list[Ranked]]:
    """The retrievers' rows as fusion reads them."""
    return {
        name: [Ranked(r["id"], float(r["score"]), tuple(r.get("path") or ()),
                      tuple(r.get("matched") or ())) for r in rows]
        for name, rows in found.items()
    }  # fmt: skip


def loaded_evidence(found: dict[str, list[Record]]) -> dict[str, Evidence]:
    """The hits the retrievers loaded with their answers, by memory id."""
    return {r["id"]: r["hit"] for rows in found.values() for r in rows if r.get("hit")}


def cover(
    wanted: int, text_rows: asyncio.Future[dict[str, list[Record]]], speakers: list[str]
) -> dict[str, Any]:
    """What an embedding ranking loads with its answer, and whose memories it also ranks
    (``speakers``): cypher/fragments/ranked_hits.cypher.

    Fused by reciprocal rank, a memory that only one ranking holds, below its first ``wanted``,
    is outranked by those ``wanted`` (they stand above it on that ranking, and on any ranking
    taken from the same answer). So the hits fusion can keep are each ranking's first
    ``wanted`` and the memories several rankings hold. The full-text and graph answer loads its
    share (cypher/search_text.cypher); the embedding ranking loads its first ``wanted``, the
    named speakers' first ``wanted`` and the memories the text rankings hold, unless loaded
    already. When the text answer is not in yet, the embedding ranking does not wait for it:
    what only the two together would have loaded is fetched after fusion, as are the hits of
    rankings that load nothing (the speaker query, second asks).
    """
    rows = {}
    if text_rows.done() and not text_rows.cancelled() and text_rows.exception() is None:
        rows = text_rows.result()
    held = [r for ranked in rows.values() for r in ranked]
    return {"first": wanted, "known": list({r["id"] for r in held}),
            "loaded": [r["id"] for r in held if r.get("hit")], "speakers": speakers}  # fmt: skip


def window_route(
    settings: Settings, total: int, scoped: int, wanted: int, window: WindowCount | None
) -> tuple[str, int]:
    """embedding_route for a scope, or for a user's time window counted from its index.

    A window whose exact ranking reads at most exact_scan_max memories is ranked exactly.
    Otherwise the share the index's answer is filtered to is the window's own count (an upper
    bound of it), so the index is asked once, deep enough; a window that holds few is ranked
    exactly through its seek. Measured on the 100k store ("in March": 1,976 read, the first
    ask at 159 held 3 of the window and a second at 1,060 was needed) in bench/RESULTS.md.
    """
    if window is None:
        return embedding_route(settings, total, scoped, wanted)
    if window.reads <= settings.exact_scan_max:
        return "scope_scan", 0
    return embedding_route(settings, total, min(scoped, window.within), wanted)


def embedding_route(settings: Settings, total: int, scoped: int, wanted: int) -> tuple[str, int]:
    """Which retriever ranks the scope by embedding, and how deep the index is asked.

    The index's top-k is global, so a scope holding scoped/total of what the index holds (the
    store, or the user's partition: store/index_shards.py) expects that share of it. The
    usual over-fetch serves a scope that expects 2 x ``wanted`` hits from it; a smaller
    scope asks for more, up to vector_fetch_max, or, when it holds at most
    exact_scan_max memories, is ranked by exact cosine (a few hundred vectors read through the
    scope index cost less than a deep index search, and miss nothing).
    """
    s = settings
    usual = max(wanted * 3, s.retriever_depth) * s.vector_overfetch
    needed = math.ceil(2 * wanted * total / max(scoped, 1))
    if needed <= usual:
        return "vector", usual
    if scoped <= s.exact_scan_max:
        return "scope_scan", 0
    return "vector", min(needed, s.vector_fetch_max)


def speaker_route(
    settings: Settings, total: int, spoken: int, wanted: int, fetch_k: int
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
    if needed >= spoken or needed > settings.vector_fetch_max:
        return None
    return needed


def deeper_fetch(
    settings: Settings, fetch_k: int, found: int, wanted: int, scoped: int
) -> int | None:
    """How deep to ask the index again when its top ``fetch_k`` held only ``found`` of the
    memories the caller may see (fewer than ``wanted``), or None to rank exactly instead.

    The share it showed (found / fetch_k) sizes a second ask that expects 2 x ``wanted`` of
    them. Both ways read about one node per candidate: the second ask reads ``deeper`` of them,
    the exact ranking at most every memory of the scope (``scoped``; a user's window only
    those its index seeks), so the index is asked again only when that is fewer. Nothing
    found says the share is below 1 / fetch_k: exact is cheaper. Measured on a 5k-memory user
    of the 100k store, a window three months back: the index at k = 900 ~11 ms, at k = 6,000
    ~27 ms; exact ranking through the user's whole index ~24 ms (before the window seek),
    through the window seek (634 of 5,211 read) ~13 ms.
    """
    if found == 0:
        return None
    deeper = math.ceil(fetch_k * 2 * wanted / found)
    if deeper >= min(scoped, settings.vector_fetch_max):
        return None
    return deeper
