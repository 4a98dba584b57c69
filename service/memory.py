"""The use cases: add conversations to memory and search it, within one scope."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

import pydantic

from service.core.config import Settings
from service.core.domain import (
    MAX_BATCH,
    AddMode,
    AddResult,
    ContextBlock,
    MessageIn,
    PendingWork,
    Scope,
    SearchHit,
    SearchOptions,
    StoredMemory,
    utcnow,
)
from service.core.errors import ValidationError
from service.core.ids import scoped_id, text_hash
from service.core.paging import Page
from service.embedding.embedder import Embedder
from service.ingest.deferred import DeferredWorker, PendingObserver
from service.ingest.write_plan import (
    Arbiter,
    Candidate,
    attach_contexts,
    link_input,
    make_candidates,
    near_duplicate_depth,
    plan_writes,
)
from service.lifecycle.audit import ReadAudit, ReadEvent, ReadOp
from service.lifecycle.operations import DeleteReport, ForgetReport, Lifecycle, MemoryEvent
from service.lifecycle.reembed import EmbeddingStatus, check_embeddings, warn_if_stale
from service.lifecycle.relink import warn_if_unlinked
from service.nlp.chinese import detect_lang
from service.nlp.linking import KnownEntity, link
from service.nlp.pipeline import STATEMENT_CONFIDENCE, Extractor, Fact
from service.nlp.time import tags as time_tags
from service.observability import tracing
from service.retrieval import word_forms
from service.retrieval.context import build_context
from service.retrieval.hybrid import HybridRetriever
from service.retrieval.traversal import GraphTraversal
from service.store.dashboard_queries import DashboardStore
from service.store.database import Database
from service.store.filters import MemoryWhere
from service.store.pending_queries import PendingBatch, PendingStore
from service.store.repository import GraphStore, MessageRow
from service.store.schema import apply_schema
from service.store.scope_sizes import ScopeCounts, scope_counts, scope_size
from service.store.writes import Reconciled, WritePlan

DEFAULT_ACTOR = "engram"
# Connections Memory.start opens: as many as a search's queries that run side by side (the
# text query, the scope's and the window's counts).
SEARCH_CONNECTIONS = 4
T = TypeVar("T")


class WriteObserver(PendingObserver, Protocol):
    """What add() and the deferred-add worker tell (the API's metrics)."""

    def count_write(self, result: AddResult) -> None: ...


@dataclass
class MemoryService:
    """Engram's in-process API; the GraphQL API and the CLI call these same methods."""

    settings: Settings
    db: Database
    store: GraphStore
    embedder: Embedder
    extractor: Extractor
    # Stored vectors vs the current model, checked at start-up (service/lifecycle/reembed.py).
    embedding_status: EmbeddingStatus | None = None
    # Scope sizes and speaker counts for search routing and crowded near-duplicate checks
    # (store/scope_sizes.py).
    counts: ScopeCounts | None = field(init=False, repr=False)
    # Milliseconds per model start() loaded ("spacy", "embedding"), for the metrics.
    model_load_ms: dict[str, float] = field(default_factory=dict)
    # Told what each add() wrote: the API's metrics count writes here, in one place. Held
    # weakly: an app handed a longer-lived Memory (tests) stops counting when it goes.
    write_observers: weakref.WeakSet[WriteObserver] = field(
        default_factory=weakref.WeakSet, repr=False
    )

    # The use cases beside add and search, each built once: get, update, delete, history,
    # forget (lifecycle/operations.py); the dashboard's lists and counts; graph traversals.
    lifecycle: Lifecycle = field(init=False, repr=False)
    dashboard: DashboardStore = field(init=False, repr=False)
    graph: GraphTraversal = field(init=False, repr=False)
    # Deferred adds (ingest/deferred.py): their queue, and this process's worker once started.
    deferred: PendingStore = field(init=False, repr=False)
    worker: DeferredWorker | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.counts = scope_counts(self.settings)
        self.lifecycle = Lifecycle(self.db, self.embedder, self.extractor)
        self.dashboard = DashboardStore(self.db)
        self.graph = GraphTraversal(self.db, hub_limit=self.settings.graph_hub_limit)
        self.deferred = PendingStore(self.db)

    @classmethod
    async def start(
        cls,
        settings: Settings,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
    ) -> MemoryService:
        """Connect to Neo4j, apply the schema, load the models; warn if memories need reembed."""
        db = Database(settings)
        load_ms: dict[str, float] = {}
        embedder = embedder or _timed(lambda: Embedder(settings), "embedding", load_ms)
        extractor = extractor or _timed(lambda: Extractor(settings), "spacy", load_ms)
        time_tags.warm_up()
        if settings.search.fulltext_word_forms:
            word_forms.warm_up()
        await apply_schema(db, embedder.dimensions)
        status = await check_embeddings(db, embedder)
        warn_if_stale(status)
        await warn_if_unlinked(db)
        memory = cls(settings, db, GraphStore(db), embedder, extractor, status, load_ms)
        await HybridRetriever(settings.search, memory.store, embedder).prepare_plans()
        await db.open_connections(SEARCH_CONNECTIONS)
        return memory

    async def close(self, grace_s: float = 0.0) -> None:
        """Stop the worker (writing what waits for up to ``grace_s``), then the driver."""
        await self.stop_worker(grace_s)
        await self.db.close()

    def start_worker(self) -> DeferredWorker:
        """Write deferred adds in the background of this process until close()."""
        if self.worker is None:
            self.worker = DeferredWorker(
                self.deferred, self.write_pending, self.settings, self.write_observers
            )
            self.worker.start()
        return self.worker

    async def stop_worker(self, grace_s: float = 0.0) -> None:
        if self.worker is not None:
            await self.worker.stop(grace_s)
            self.worker = None

    async def add(
        self,
        messages: Sequence[MessageIn | dict[str, Any]],
        scope: Scope,
        infer: bool = True,
        actor: str = DEFAULT_ACTOR,
        mode: AddMode = AddMode.SYNC,
    ) -> AddResult:
        """Extract facts from messages and store them with provenance; repeats write nothing.

        With ``infer=False`` each message is stored as one memory, without extraction. With
        ``mode=DEFERRED`` the validated messages are stored as pending work and only their ids
        are returned; a worker writes them later (ingest/deferred.py).
        """
        with tracing.span(
            "engram.add",
            {"engram.messages": len(messages), "engram.infer": infer, "engram.mode": mode.value},
        ):
            if mode is AddMode.DEFERRED:
                return await self._defer(messages, scope, infer, actor)
            return await self._write(await self._extract(messages, scope, infer), actor)

    async def _defer(
        self, messages: Sequence[MessageIn | dict[str, Any]], scope: Scope, infer: bool, actor: str
    ) -> AddResult:
        parsed = parse_messages(messages)
        message_ids = [_message_id(scope, m, i) for i, m in enumerate(parsed)]
        await self.deferred.enqueue(scope, parsed, message_ids, infer, actor)
        if self.worker is not None:
            self.worker.wake()
        return AddResult(
            message_ids=message_ids,
            pending=True,
            bookmark=await self.db.bookmark(),
        )

    async def write_pending(self, batch: PendingBatch) -> AddResult:
        """Write one deferred batch as add() would have; the batch ends in the same
        transaction (or nothing is written: NothingMatched)."""
        with tracing.span("engram.add.deferred", {"engram.messages": len(batch.messages)}):
            extracted = await self._extract(
                batch.messages, batch.scope, batch.infer, batch.received_at
            )
            return await self._write(extracted, batch.actor, batch.finishes())

    async def pending_work(self, scope: Scope) -> PendingWork:
        """Deferred adds of the scope not written yet (a read's scope: unset ids match any)."""
        return await self.deferred.work(scope)

    async def add_batches(
        self,
        batches: Iterable[tuple[Sequence[MessageIn | dict[str, Any]], Scope]],
        infer: bool = True,
        actor: str = DEFAULT_ACTOR,
    ) -> AsyncGenerator[AddResult, None]:
        """add() over consecutive batches, in order, for bulk import: each batch is extracted
        (spaCy, on a thread) while the one before it is embedded, reconciled and written, so
        the two halves share the cores (bench/ingest.py). Each batch is still one transaction;
        the first batch that fails stops the run with its error, and every batch before it has
        landed, whole. Extraction reads nothing stored, so running it early changes nothing.
        """
        pending = iter(batches)

        def extract_next() -> asyncio.Future[_Extracted] | None:
            batch = next(pending, None)
            return None if batch is None else asyncio.ensure_future(self._extract(*batch, infer))

        upcoming = extract_next()
        try:
            while upcoming is not None:
                extracted = await upcoming
                upcoming = extract_next()
                yield await self._write(extracted, actor)
        finally:
            if upcoming is not None:
                upcoming.cancel()

    async def _extract(
        self,
        messages: Sequence[MessageIn | dict[str, Any]],
        scope: Scope,
        infer: bool,
        received_at: datetime | None = None,
    ) -> _Extracted:
        """Validate a batch and extract its facts; nothing is read or written. A message
        without a timestamp was said when received (now, unless deferred)."""
        clock = StageClock()
        with clock.stage("nlp"):
            parsed = parse_messages(messages)
            now = utcnow()
            said_at = [m.timestamp or received_at or now for m in parsed]
            message_rows = [_message_row(scope, m, i, said_at[i]) for i, m in enumerate(parsed)]
            if infer:
                facts = await asyncio.to_thread(self.extractor.extract, parsed, said_at)
            else:
                facts = [[_whole_message_fact(m, i)] for i, m in enumerate(parsed)]
            candidates = make_candidates(
                scope, facts, [r.id for r in message_rows], said_at, [m.speaker for m in parsed]
            )
            # Weak extractions stay in the message layer only; a caller's own memory
            # (infer=False) is the caller's call and is never dropped.
            floor = self.settings.memory_min_confidence if infer else 0.0
            confident = [c for c in candidates if c.fact.confidence >= floor]
            attach_contexts(confident, [m.session_id for m in parsed])
        return _Extracted(
            scope, message_rows, confident, len(candidates) - len(confident), now, clock.laps
        )

    async def _write(
        self,
        batch: _Extracted,
        actor: str,
        finishes: tuple[str, Mapping[str, Any]] | None = None,
    ) -> AddResult:
        """Embed, link, reconcile against the scope and write one extracted batch (one
        transaction, with ``finishes`` first: GraphStore.write_plan). The scope's entities are
        read while the facts are embedded."""
        clock, candidates = StageClock(), batch.candidates
        with clock.stage("embedding"):
            known = await self._embed(candidates, batch.scope)
        with clock.stage("link"):
            linked = await asyncio.to_thread(
                link, batch.scope, [link_input(c) for c in candidates], known
            )
        with clock.stage("reconcile"):
            reconcile = await self._reconcile(batch.scope, candidates)
            plan = plan_writes(
                candidates,
                reconcile,
                self.embedder.model_name,
                Arbiter(self.settings.agent_priority),
            )
        with clock.stage("write") as stage:
            await self.store.write_plan(
                batch.scope,
                batch.message_rows,
                plan,
                linked.of({m.id for m in plan.new}),
                actor,
                batch.now,
                finishes,
            )
            stage.set_attribute("engram.memories_added", len(plan.new))
        if self.counts is not None and plan.new:
            self.counts.clear()  # a grown scope may need another route, or speak anew
        result = _add_result(batch, plan, clock.laps, await self.db.bookmark())
        for observer in list(self.write_observers):
            observer.count_write(result)
        return result

    async def _embed(self, candidates: list[Candidate], scope: Scope) -> list[KnownEntity]:
        """Give each candidate its vectors; the scope's entities, read meanwhile."""
        vectors, known = await asyncio.gather(
            self.embedder.aembed_memories(
                [c.fact.text for c in candidates], [c.context_texts for c in candidates]
            ),
            self.store.link_entities(scope),
        )
        for cand, vector in zip(candidates, vectors, strict=True):
            cand.embedding, cand.content_embedding = vector.search, vector.content
        return known

    async def _reconcile(self, scope: Scope, candidates: list[Candidate]) -> dict[str, Reconciled]:
        """Same hash, nearest near-duplicate and slot holders per candidate, from the vector
        index's top reconcile_fetch_k; a candidate whose top-k was all other scopes' near
        copies ("crowded") is looked up again, deeper (near_duplicate_depth)."""
        s = self.settings
        asks = [c.reconcile_ask() for c in candidates]
        found = await self.store.reconcile(scope, asks, s.duplicate_threshold, s.reconcile_fetch_k)
        crowded = [a for a in asks if found[a.key].crowded and not found[a.key].near_id]
        if crowded:
            total, scoped = await scope_size(self.store, self.counts, scope.params())
            depth = near_duplicate_depth(s, total, scoped)
            found |= await self.store.reconcile(scope, crowded, s.duplicate_threshold, depth)
        return found

    async def search(
        self,
        query: str,
        scope: Scope,
        limit: int | None = None,
        options: SearchOptions | None = None,
        actor: str = DEFAULT_ACTOR,
    ) -> list[SearchHit]:
        """Hybrid search (vector, full-text, graph, time window) within the scope, explained."""
        options = options or SearchOptions(limit=limit or self.settings.search_default_limit)
        if limit is not None:
            options = options.model_copy(update={"limit": limit})
        with tracing.span("engram.search", {"engram.limit": options.limit}) as span:
            async with self.audit.reading(ReadOp.SEARCH, actor, scope, query) as read:
                retriever = HybridRetriever(
                    self.settings.search, self.store, self.embedder, self.counts
                )
                hits = await retriever.search(query, scope, options)
                read.count = len(hits)
            span.set_attribute("engram.hits", len(hits))
        return hits

    @property
    def audit(self) -> ReadAudit:
        """The read audit (lifecycle/audit.py); it records only when Settings.audit_reads is on."""
        return ReadAudit(self.db, self.settings.audit_reads)

    async def read_audit(
        self, scope: Scope, first: int = 20, after: str | None = None
    ) -> Page[ReadEvent]:
        """The scope's audited reads, newest first, cursor-paged."""
        return await self.audit.events(scope, first, after)

    # -- lifecycle (lifecycle/operations.py): the Mem0-style get/update/delete/history/forget --
    async def get(self, memory_id: str, scope: Scope, actor: str = DEFAULT_ACTOR) -> StoredMemory:
        async with self.audit.reading(ReadOp.GET, actor, scope, memory_id) as read:
            found = await self.lifecycle.get(memory_id, scope)
            read.count = 1
        return found

    async def get_all(
        self,
        scope: Scope,
        where: MemoryWhere | None = None,
        first: int = 20,
        after: str | None = None,
        actor: str = DEFAULT_ACTOR,
    ) -> Page[StoredMemory]:
        filter_json = where.model_dump_json(exclude_none=True) if where else None
        async with self.audit.reading(ReadOp.GET_ALL, actor, scope, filter_json) as read:
            page = await self.lifecycle.get_all(scope, where, first, after)
            read.count = len(page.edges)
        return page

    async def update(
        self, memory_id: str, text: str, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> StoredMemory:
        return await self.lifecycle.update(memory_id, text, scope, actor)

    async def delete(
        self, memory_id: str, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> DeleteReport:
        return await self.lifecycle.delete(memory_id, scope, actor)

    async def delete_all(self, scope: Scope, actor: str = DEFAULT_ACTOR) -> DeleteReport:
        return await self.lifecycle.delete_all(scope, actor)

    async def history(
        self, memory_id: str, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> list[MemoryEvent]:
        async with self.audit.reading(ReadOp.HISTORY, actor, scope, memory_id) as read:
            events = await self.lifecycle.history(memory_id, scope)
            read.count = len(events)
        return events

    async def forget(
        self, scope: Scope, dry_run: bool = True, actor: str = DEFAULT_ACTOR
    ) -> ForgetReport:
        return await self.lifecycle.forget(scope, dry_run, actor)

    async def reset(self, confirm: str) -> int:
        return await self.lifecycle.reset(confirm, self.settings.allow_reset)

    async def context(
        self,
        query: str,
        scope: Scope,
        token_budget: int = 1000,
        options: SearchOptions | None = None,
        actor: str = DEFAULT_ACTOR,
    ) -> ContextBlock:
        """The best hits as a dated, ready-to-paste prompt block within the token budget."""
        options = options or SearchOptions(limit=50)
        async with self.audit.reading(ReadOp.CONTEXT, actor, scope, query) as read:
            block = await build_prompt_context(self, query, scope, token_budget, options)
            read.count = len(block.memory_ids)
        return block


async def build_prompt_context(
    memory: MemoryService, query: str, scope: Scope, token_budget: int, options: SearchOptions
) -> ContextBlock:
    """The best hits of ``query`` as a dated prompt block within ``token_budget`` tokens."""
    _check_budget(token_budget)
    hits = await memory.search(query, scope, options=options)
    return build_context(hits, token_budget, memory.embedder.count_tokens)


@dataclass
class _Extracted:
    """A validated batch with its candidate facts: what add() embeds, reconciles and writes."""

    scope: Scope
    message_rows: list[MessageRow]
    candidates: list[Candidate]
    below_confidence: int
    now: datetime
    stage_ms: dict[str, float]


class StageClock:
    """Milliseconds spent per stage of a call, for callers that want to see where time goes."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps[stage] = (now - self._last) * 1000
        self._last = now

    @contextmanager
    def stage(self, name: str) -> Iterator[tracing.SpanHandle]:
        """The block as stage ``name`` of an add: its span (engram.add.<name>), then its lap."""
        with tracing.span(f"engram.add.{name}") as current:
            yield current
        self.lap(name)


def _timed(load: Callable[[], T], name: str, load_ms: dict[str, float]) -> T:
    """load(), with the milliseconds it took recorded under name."""
    start = time.perf_counter()
    loaded = load()
    load_ms[name] = (time.perf_counter() - start) * 1000
    return loaded


MAX_TOKEN_BUDGET = 32_000


def _check_budget(token_budget: int) -> None:
    if not 1 <= token_budget <= MAX_TOKEN_BUDGET:
        raise ValidationError(f"tokenBudget must be between 1 and {MAX_TOKEN_BUDGET}")


def _add_result(
    batch: _Extracted, plan: WritePlan, laps: dict[str, float], bookmark: str | None
) -> AddResult:
    return AddResult(
        message_ids=[r.id for r in batch.message_rows],
        added=[c.id for c in plan.new],
        updated=[u.memory_id for u in plan.updates],
        superseded=[s.old_id for s in plan.supersessions],
        unchanged=plan.unchanged,
        below_confidence=batch.below_confidence,
        stage_ms=batch.stage_ms | laps,
        bookmark=bookmark,
    )


def parse_messages(messages: Sequence[MessageIn | dict[str, Any]]) -> list[MessageIn]:
    """Validate every message before anything is written; the error names the bad one."""
    if not messages:
        raise ValidationError("no messages to add")
    if len(messages) > MAX_BATCH:
        raise ValidationError(f"{len(messages)} messages in one call; the limit is {MAX_BATCH}")
    parsed: list[MessageIn] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(messages):
        try:
            parsed.append(raw if isinstance(raw, MessageIn) else MessageIn.model_validate(raw))
        except pydantic.ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            raise ValidationError(f"message {index}: {where}: {first['msg']}") from e
        message_id = parsed[-1].id
        if message_id is not None and message_id in seen:
            raise ValidationError(
                f"message {index}: id {message_id!r} repeats message {seen[message_id]}"
            )
        if message_id is not None:
            seen[message_id] = index
    return parsed


def _message_id(scope: Scope, msg: MessageIn, index: int) -> str:
    """The caller's id, else one from the message itself: a repeat gets the same id."""
    stamp = msg.timestamp.isoformat() if msg.timestamp else f"#{index}"
    fingerprint = msg.id or text_hash(f"{msg.speaker or msg.role}|{stamp}|{msg.content}")
    return scoped_id(scope, "msg", fingerprint)


def _message_row(scope: Scope, msg: MessageIn, index: int, said_at: datetime) -> MessageRow:
    return MessageRow(
        id=_message_id(scope, msg, index),
        props={
            "text": msg.content,
            "role": msg.role.value,
            "speaker": msg.speaker,
            "said_at": said_at,
            "session_id": msg.session_id,
            "external_id": msg.id,
        },
    )


def _whole_message_fact(msg: MessageIn, index: int) -> Fact:
    return Fact(
        text=msg.content,
        source_text=msg.content,
        message_index=index,
        lang=detect_lang(msg.content),
        confidence=STATEMENT_CONFIDENCE,
    )
