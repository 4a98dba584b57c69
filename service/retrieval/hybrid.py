"""Hybrid search inside Neo4j: vector, full-text, graph and time-window retrievers, fused."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from service.core.config import SearchKnobs
from service.core.domain import Clock, Retriever, RetrieverScore, Scope, SearchHit, SearchOptions
from service.embedding.embedder import Embedder
from service.observability.tracing import span
from service.retrieval.answer_type import AnswerType, answer_type_first, holds_answer
from service.retrieval.diversity import mmr_order
from service.retrieval.fusion import Fused, Ranked, reciprocal_rank_fusion
from service.retrieval.informative import POOL, informative_first, states_nothing
from service.retrieval.lucene import memory_text_query
from service.retrieval.query import (
    QueryPlan,
    TimeWindow,
    plan_query,
    window_params,
    without_names,
)
from service.retrieval.route import (
    RankerCall,
    RouteCounts,
    SearchRoute,
    deeper_fetch,
    route_search,
)
from service.store.database import Record
from service.store.params import Cover, SearchParams, search_params
from service.store.repository import NO_COVER, Evidence, GraphStore, Ranker, Ranking, WindowCount
from service.store.scope_sizes import ScopeCounts, known_speakers, scope_size, scope_speakers


class HybridRetriever:
    """Runs the retrievers concurrently, fuses their rankings and loads the evidence."""

    def __init__(
        self,
        knobs: SearchKnobs,
        store: GraphStore,
        embedder: Embedder,
        counts: ScopeCounts | None = None,
    ) -> None:
        self.knobs = knobs
        self.store = store
        self.embedder = embedder
        self.counts = counts

    @property
    def weights(self) -> dict[str, float]:
        w = self.knobs.weights
        return {
            "vector": w.vector,
            "fulltext": w.fulltext,
            "graph": w.graph,
            "time": w.time,
            "speaker": w.speaker,
        }

    async def search(self, query: str, scope: Scope, options: SearchOptions) -> list[SearchHit]:
        with span("engram.search.plan") as planned:
            plan = plan_query(query, options, self.knobs.fulltext_word_forms)
            planned.set_attribute("engram.time_window", plan.window is not None)
        fetch = max(options.limit * 3, self.knobs.retriever_depth)
        params = search_params(scope.params(), plan.filter_params(), fetch)
        # The hits the ordering below can keep come loaded with the retrievers' answers.
        kind = plan.answer_type if self.knobs.answer_type_boost > 0 else None
        ordered = self.knobs.informative_first or kind is not None
        loads = options.limit * (POOL if ordered else 1)
        with span("engram.search.retrieve"):
            found = await self._run_retrievers(plan, params, options.limit, loads)
        with span("engram.search.fuse"):
            results = rankings(found)
            fused = reciprocal_rank_fusion(results, self.weights, self.knobs.rrf_k)
            fused = [f for f in fused if f.score >= options.min_score]
            evidence = loaded_evidence(found)
            if ordered:
                fused, evidence = await self._order_pool(
                    fused, options.limit, params, evidence, kind
                )
            fused = await self._diversify(fused, options.limit, params)
        with span("engram.search.explain"):
            return await self._explain(fused, params, evidence)

    async def _order_pool(
        self,
        fused: list[Fused],
        limit: int,
        params: SearchParams,
        loaded: dict[str, Evidence],
        kind: AnswerType | None,
    ) -> tuple[list[Fused], dict[str, Evidence]]:
        """The first POOL x limit hits with those holding the asked kind of answer raised
        (answer_type_first), then in informative_first's order, with their evidence (it holds
        what the orders read; the retrievers loaded most of it)."""
        pool, rest = fused[: limit * POOL], fused[limit * POOL :]
        missing = [f.id for f in pool if f.id not in loaded]
        if missing:
            loaded = {**loaded, **await self.store.fetch_hits(missing, params)}
        by_id = {f.id: f for f in pool}
        ids = [f.id for f in pool]
        if kind is not None:
            holding = {i for i in ids if i in loaded and holds_answer(loaded[i], kind)}
            scores = {f.id: f.score for f in pool}
            ids = answer_type_first(ids, scores, holding, self.knobs.answer_type_boost)
        if not self.knobs.informative_first:
            return [by_id[i] for i in ids] + rest, loaded
        says_nothing = {
            f.id
            for f in pool
            if f.id in loaded and states_nothing(loaded[f.id].memory.text, loaded[f.id].memory.lang)
        }
        sources = {f.id: loaded[f.id].memory.source_ids for f in pool if f.id in loaded}
        order = informative_first(ids, says_nothing, sources)
        return [by_id[i] for i in order] + rest, loaded

    async def _diversify(self, fused: list[Fused], limit: int, params: SearchParams) -> list[Fused]:
        """MMR over a pool of 3 x limit candidates (off when diversity_weight is 1)."""
        weight = self.knobs.diversity_weight
        if weight >= 1.0 or len(fused) <= 1:
            return fused[:limit]
        pool = fused[: limit * 3]
        embeddings = await self.store.fetch_embeddings([f.id for f in pool], params)
        order = mmr_order([f.id for f in pool], [f.score for f in pool], embeddings, limit, weight)
        by_id = {f.id: f for f in pool}
        return [by_id[i] for i in order]

    async def _run_retrievers(
        self, plan: QueryPlan, params: SearchParams, wanted: int, loads: int
    ) -> dict[str, list[Record]]:
        """Each retriever's rows by name, each ranking's first ``loads`` hits loaded. The text
        retrievers start at once (one query); the embedding ones when the query is embedded
        and the scope counted (route_search)."""
        text_rows = asyncio.ensure_future(self._text_rows(plan, params, loads))
        try:
            embedding, speakers, counts, window = await self._route_inputs(plan, params)
        except BaseException:
            text_rows.cancel()
            raise
        route = route_search(self.knobs, plan, counts, wanted, window, bool(speakers))
        exact: SearchParams = {
            **params,
            "embedding": embedding,
            "window_cap": self.knobs.time_window_cap,
        }
        voices = list(speakers) if route.voiced else []
        ranking: SearchParams = {**exact, "cover": cover(loads, text_rows, voices)}
        calls = {
            name: _call_params(call, exact, ranking, speakers) for name, call in route.calls.items()
        }
        answers = await asyncio.gather(
            *(self.store.retrieve(route.calls[name].ranker, p) for name, p in calls.items())
        )
        found = dict(zip(calls, answers, strict=True))
        if next(iter(route.calls.values())).ranker is Ranker.VECTOR:  # the main ranking's
            found[Retriever.VECTOR] = await self._enough_of_scope(
                plan, found, calls[Retriever.VECTOR], ranking, wanted, counts.scoped
            )
        rows: dict[str, list[Record]] = {name: answer.hits for name, answer in found.items()}
        if route.voiced:
            main_answer = next(iter(found.values()))
            rows[Retriever.SPEAKER] = await self._voiced_rows(
                route, main_answer, exact, speakers, min(wanted, counts.spoken)
            )
        if plan.window is not None:
            _one_ranking_for_both(rows)
        return rows | await text_rows

    async def _voiced_rows(
        self,
        route: SearchRoute,
        answer: Ranking,
        exact: SearchParams,
        speakers: dict[str, int],
        enough: int,
    ) -> list[Record]:
        """The named speakers' ranking that came with the main answer, or their own query when
        the index's answer held fewer than ``enough`` of theirs."""
        if not route.index_voiced or len(answer.voiced) >= enough:
            return answer.voiced
        named: SearchParams = {**exact, "speakers": list(speakers)}
        return (await self.store.retrieve(Ranker.SPEAKER, named)).hits

    async def _route_inputs(
        self, plan: QueryPlan, params: SearchParams
    ) -> tuple[list[float], dict[str, int], RouteCounts, WindowCount | None]:
        """What route_search reads, asked concurrently: the question's embedding and the named
        speakers, the scope's size, and the user's window (the question's, else the one it
        prefers) counted from its index, all behind the embedding."""
        size = asyncio.ensure_future(scope_size(self.store, self.counts, params))
        question = asyncio.ensure_future(self._question_embedding(plan, params))
        counted = plan.window or plan.recent
        user_window = counted is not None and params.get("user_id") is not None
        window: SearchParams | None = {**params, **window_params(counted)} if user_window else None
        reads = asyncio.ensure_future(self._window_reads(window))
        try:
            embedding, speakers = await question
            total, scoped = await size
            window_reads = await reads
        except BaseException:
            for task in (size, question, reads):
                task.cancel()
            raise
        spoken = min(scoped, sum(speakers.values()))
        return embedding, speakers, RouteCounts(total, scoped, spoken), window_reads

    async def _enough_of_scope(
        self,
        plan: QueryPlan,
        found: dict[Retriever, Ranking],
        vector: SearchParams,
        ranking: SearchParams,
        wanted: int,
        scoped: int,
    ) -> Ranking:
        """The index's answer, asked again deeper when it held fewer than ``wanted`` of what
        the caller may see; still too few (a window holding few memories, or the index down),
        the visible scope (in the window) ranked exactly."""
        answer = found[Retriever.VECTOR]
        if len(answer.hits) < wanted:
            answer = await self._ask_again(vector, answer, wanted, scoped)
        if len(answer.hits) >= wanted:
            return answer
        if plan.window is not None and Retriever.TIME in found:
            return found[Retriever.TIME]
        return await self.store.retrieve(Ranker.SCOPE_SCAN, ranking)

    async def _ask_again(
        self, vector: SearchParams, answer: Ranking, wanted: int, scoped: int
    ) -> Ranking:
        """The index's top-k held too few of what the caller may see (a short window, or
        memories far from the query): ask it again, deep enough for the share it showed."""
        deeper = deeper_fetch(self.knobs, vector["fetch_k"], len(answer.hits), wanted, scoped)
        if not deeper:
            return answer
        return await self.store.retrieve(Ranker.VECTOR, {**vector, "fetch_k": deeper})

    async def _text_rows(
        self, plan: QueryPlan, params: SearchParams, wanted: int
    ) -> dict[str, list[Record]]:
        """The full-text and graph retrievers' rows (one query; none without words to match),
        with the hits fusion can keep from them loaded."""
        if not plan.lucene:
            return {}
        return await self.store.retrieve_text(
            text_params(self.knobs, plan.lucene, params, wanted, plan.relation_types)
        )

    async def prepare_plans(self) -> None:
        """Have Neo4j plan the statements of a user's search, without a time window and with
        one on either clock, before the first search asks: planning a statement costs far more
        than running it once planned (bench/RESULTS.md). Neo4j keys a plan by the statement's
        text and its parameters' types, so the parameters here are typed as a search's."""
        s = self.knobs
        wanted = s.default_limit
        embedding = [1.0] * self.embedder.dimensions
        start, end = datetime(2000, 1, 1, tzinfo=UTC), datetime(2000, 2, 1, tzinfo=UTC)
        for window in (None, *(TimeWindow(clock, start, end) for clock in Clock)):
            plan = QueryPlan(text="", lucene=None, window=window, as_of=None)
            params = search_params(
                Scope(user_id="plan").params(), plan.filter_params(), s.retriever_depth
            )
            exact: SearchParams = {
                **params,
                "embedding": embedding,
                "window_cap": s.time_window_cap,
            }
            ranking: SearchParams = {**exact, "cover": NO_COVER}
            steps: list[tuple[str, SearchParams]] = [
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

    async def _window_reads(self, params: SearchParams | None) -> WindowCount | None:
        return None if params is None else await self.store.window_reads(params)

    async def _question_embedding(
        self, plan: QueryPlan, params: SearchParams
    ) -> tuple[list[float], dict[str, int]]:
        """The question's embedding without the names that speak in this scope, and those names
        with how many memories each speaks.

        Named speakers are a filter (the speaker retriever); the embedding retrievers rank by
        what the question asks, not by whose name it holds (see without_names). Which names
        speak is known while fresh; names not counted yet are asked while the
        question is embedded as if none of them spoke, the common case (a name in a question
        is more often someone spoken of), and embedded again without them only when they do.
        Embedding every text the answer could lead to cost more for both latency and CPU
        (bench/RESULTS.md).
        """
        names = list(plan.names)
        speaking, uncounted = known_speakers(self.counts, names, params)
        counted = None
        if uncounted:
            counted = asyncio.ensure_future(scope_speakers(self.store, self.counts, names, params))
        text = without_names(plan.text, list(speaking))
        try:
            with span("engram.search.embed_query"):
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
        self, fused: list[Fused], params: SearchParams, loaded: dict[str, Evidence]
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
            hits.append(
                SearchHit(
                    memory=memory,
                    score=f.score,
                    sources=sources,
                    entities=entities,
                    retrievers=[
                        RetrieverScore(retriever=name, rank=rank, score=score)
                        for name, (rank, score) in f.ranks.items()
                    ],
                    matched_entities=list(f.matched),
                    path=list(f.path),
                )
            )
        return hits


def text_params(
    knobs: SearchKnobs,
    lucene: str,
    params: SearchParams,
    wanted: int,
    relation_types: tuple[str, ...] = (),
) -> SearchParams:
    """The full-text and graph retrievers' parameters (cypher/search_text.cypher);
    ``relation_types``: the typed relations the graph retriever follows (QueryPlan)."""
    s = knobs
    return {
        **params,
        "memory_lucene": memory_text_query(lucene, s.context_weight),
        "text_fetch_k": params["limit"] * s.fulltext_overfetch,
        "entity_lucene": lucene,
        "max_entities": s.graph_entities,
        "hub_limit": s.graph_hub_limit,
        "hop_decay": s.graph_hop_decay,
        "preload": wanted,
        # In a map: Neo4j keys plans by parameter types, and an empty list types differently.
        "relations": {"types": list(relation_types)},
    }


def _call_params(
    call: RankerCall,
    exact: SearchParams,
    ranking: SearchParams,
    speakers: dict[str, int],
) -> SearchParams:
    """A route's query parameters: the speakers' own ranking, a preferred window ranked on its
    own (nothing loaded with it), or the main ranking with its cover; the index's depth."""
    if call.ranker is Ranker.SPEAKER:
        return {**exact, "speakers": list(speakers)}
    params = ranking if call.window is None else {**exact, **window_params(call.window)}
    return {**params, "fetch_k": call.fetch_k} if call.ranker is Ranker.VECTOR else params


def _one_ranking_for_both(rows: dict[str, list[Record]]) -> None:
    """A time window is ranked once: that ranking stands for the vector and time retrievers."""
    rows[Retriever.VECTOR] = rows.get(Retriever.VECTOR) or rows[Retriever.TIME]
    rows.setdefault(Retriever.TIME, rows[Retriever.VECTOR])


def rankings(found: dict[str, list[Record]]) -> dict[str, list[Ranked]]:
    """The retrievers' rows as fusion reads them."""
    return {
        name: [
            Ranked(
                r["id"],
                float(r["score"]),
                tuple(r.get("path") or ()),
                tuple(r.get("matched") or ()),
            )
            for r in rows
        ]
        for name, rows in found.items()
    }


def loaded_evidence(found: dict[str, list[Record]]) -> dict[str, Evidence]:
    """The hits the retrievers loaded with their answers, by memory id."""
    return {r["id"]: r["hit"] for rows in found.values() for r in rows if r.get("hit")}


def cover(
    wanted: int, text_rows: asyncio.Future[dict[str, list[Record]]], speakers: list[str]
) -> Cover:
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
    return {
        "first": wanted,
        "known": list({r["id"] for r in held}),
        "loaded": [r["id"] for r in held if r.get("hit")],
        "speakers": speakers,
    }
