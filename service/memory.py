"""The use cases, composed: add (ingest/write_path.py), search, and the lifecycle, in one scope."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from service.core.config import Settings
from service.core.domain import (
    MAX_BATCH,
    AddMode,
    AddResult,
    ContextBlock,
    MessageIn,
    Messages,
    PendingWork,
    Scope,
    SearchHit,
    SearchOptions,
    StoredMemory,
)
from service.core.errors import ValidationError
from service.core.export_records import DataRecord, EndRecord, ExportCounts, ExportHeader
from service.core.paging import Page
from service.embedding.embedder import Embedder
from service.export.check import TargetModel, check_export
from service.export.dump import export_scope
from service.export.restore import DEFAULT_BATCH as DEFAULT_RESTORE_BATCH
from service.export.restore import RestoreReport
from service.export.restore import restore as restore_file
from service.ingest import bulk
from service.ingest.deferred import DeferredWorker
from service.ingest.write_path import WriteObserver, WritePath
from service.lifecycle.audit import ReadAudit, ReadEvent, ReadOp
from service.lifecycle.operations import DeleteReport, ForgetReport, Lifecycle, MemoryEvent
from service.lifecycle.reembed import EmbeddingStatus, check_embeddings, warn_if_stale
from service.lifecycle.relink import warn_if_unlinked
from service.nlp.pipeline import Extractor
from service.nlp.time import tags as time_tags
from service.observability import tracing
from service.profile.model import Changes, Profile
from service.profile.reader import ChangeWindow, ProfileReader
from service.retrieval import word_forms
from service.retrieval.context import build_context
from service.retrieval.hybrid import HybridRetriever
from service.retrieval.traversal import GraphTraversal
from service.retrieval.warm_up import RecentSearch, RecentSearches, WarmUpWatch
from service.store.dashboard_queries import DashboardStore
from service.store.database import Database
from service.store.export_queries import ExportStore
from service.store.filters import MemoryWhere
from service.store.pending_queries import PendingBatch, PendingStore
from service.store.repository import GraphStore
from service.store.schema import apply_schema
from service.store.scope_sizes import ScopeCounts, scope_counts

DEFAULT_ACTOR = "engram"
# Connections Memory.start opens: as many as a search's queries that run side by side (the
# text query, the scope's and the window's counts).
SEARCH_CONNECTIONS = 4
T = TypeVar("T")


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
    # The write path (ingest/write_path.py): add, add_batches and the deferred adds' worker;
    # ``deferred`` is its queue.
    write_path: WritePath = field(init=False, repr=False)
    deferred: PendingStore = field(init=False, repr=False)
    # The last searches, asked again when Neo4j comes back (retrieval/warm_up.py).
    recent_searches: RecentSearches = field(init=False, repr=False)
    warm_up_watch: WarmUpWatch | None = field(default=None, init=False, repr=False)
    # Profiles of entities and the changes of windows (profile/reader.py).
    profiles: ProfileReader = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.counts = scope_counts(self.settings)
        self.recent_searches = RecentSearches(self.settings.warm_up_searches)
        self.lifecycle = Lifecycle(self.db, self.embedder, self.extractor)
        self.dashboard = DashboardStore(self.db)
        self.graph = GraphTraversal(self.db, hub_limit=self.settings.graph_hub_limit)
        self.write_path = WritePath(
            self.settings,
            self.store,
            self.embedder,
            self.extractor,
            self.counts,
            self.write_observers,
        )
        self.deferred = self.write_path.queue
        self.profiles = ProfileReader(self.db, self.graph)

    def __setattr__(self, name: str, value: Any) -> None:
        # Settings replaced on a running service (a test's agent_priority) reach the write path.
        super().__setattr__(name, value)
        if name == "settings" and "write_path" in self.__dict__:
            self.write_path.settings = value

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
        if self.warm_up_watch is not None:
            await self.warm_up_watch.stop()
        await self.stop_worker(grace_s)
        await self.db.close()

    def watch_neo4j(self) -> WarmUpWatch:
        """Warm search up again whenever Neo4j comes back, until close() (retrieval/warm_up.py)."""
        self.warm_up_watch = WarmUpWatch(self.db.ping, self.warm_up, self.settings.neo4j_watch_s)
        self.warm_up_watch.start()
        return self.warm_up_watch

    async def warm_up(self) -> None:
        """Ask the recent searches again, twice (a statement's first runs after a restart are
        all slow, not only its planning), their hits unread; then prepare every search plan."""
        await self.db.open_connections(SEARCH_CONNECTIONS)  # the old ones died with Neo4j
        retriever = HybridRetriever(self.settings.search, self.store, self.embedder, self.counts)
        for recent in 2 * self.recent_searches.latest():
            await retriever.search(recent.query, recent.scope, recent.options)
        await retriever.prepare_plans()

    def start_worker(self) -> DeferredWorker:
        """Write deferred adds in the background of this process until close()."""
        return self.write_path.start_worker()

    async def stop_worker(self, grace_s: float = 0.0) -> None:
        await self.write_path.stop_worker(grace_s)

    @property
    def worker(self) -> DeferredWorker | None:
        """This process's deferred-add worker, once started."""
        return self.write_path.worker

    async def add(
        self,
        messages: Messages,
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
        return await self.write_path.add(messages, scope, infer, actor, mode)

    async def write_pending(self, batch: PendingBatch) -> AddResult:
        """Write one deferred batch as add() would have; the batch ends in the same
        transaction (or nothing is written: NothingMatched)."""
        return await self.write_path.write_pending(batch)

    async def pending_work(self, scope: Scope) -> PendingWork:
        """Deferred adds of the scope not written yet (a read's scope: unset ids match any)."""
        return await self.deferred.work(scope)

    def add_batches(
        self,
        batches: Iterable[tuple[Messages, Scope]],
        infer: bool = True,
        actor: str = DEFAULT_ACTOR,
    ) -> AsyncGenerator[AddResult, None]:
        """add() over consecutive batches, in order, for bulk import: each batch is extracted
        (spaCy, on a thread) while the one before it is embedded, reconciled and written, so
        the two halves share the cores (bench/ingest.py). Each batch is still one transaction;
        the first batch that fails stops the run with its error, and every batch before it has
        landed, whole. Extraction reads nothing stored, so running it early changes nothing.
        """
        return self.write_path.add_batches(batches, infer, actor)

    async def import_bulk(
        self,
        messages: Iterable[tuple[Scope, MessageIn]],
        batch_size: int = bulk.DEFAULT_BULK_BATCH,
        actor: str = DEFAULT_ACTOR,
        progress: bulk.Progress | None = None,
    ) -> bulk.BulkReport:
        """Load many messages, each stored as one memory (add(infer=False)), a transaction
        per ``batch_size`` consecutive messages of a scope, each batch embedded while the one
        before it is written. Only exact repeats are checked (no near-duplicate search), so a
        second run adds nothing and a killed run is finished by running it again
        (ingest/bulk.py). ``progress`` hears how many messages each batch finished."""
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValidationError(f"batch_size must be 1 to {MAX_BATCH}, not {batch_size}")
        batches = bulk.batched(messages, batch_size)
        return await bulk.load(self.write_path, batches, actor, progress)

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
            self.recent_searches.remember(RecentSearch(query, scope, options))
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

    async def profile(
        self,
        entity: str,
        scope: Scope,
        as_of: datetime | None = None,
        actor: str = DEFAULT_ACTOR,
    ) -> Profile:
        """What the scope knows of one entity (any name or alias), grouped by kind: its current
        facts, or those standing at ``as_of``."""
        async with self.audit.reading(ReadOp.PROFILE, actor, scope, entity) as read:
            found = await self.profiles.profile(entity, scope, as_of)
            read.count = sum(len(group.facts) for group in found.groups)
        return found

    async def changes(
        self,
        scope: Scope,
        window: ChangeWindow | None = None,
        entity: str | None = None,
        limit: int = 100,
        actor: str = DEFAULT_ACTOR,
    ) -> Changes:
        """The facts that started, ended or were superseded in the window (dates or a phrase),
        around one entity or in the whole scope, as before -> after pairs, oldest first."""
        window = window or ChangeWindow()
        asked = "\n".join(filter(None, [entity, window.phrase])) or None
        async with self.audit.reading(ReadOp.CHANGES, actor, scope, asked) as read:
            found = await self.profiles.changes(scope, window, entity, limit)
            read.count = len(found.changes)
        return found

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

    async def export(
        self, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> AsyncIterator[DataRecord | ExportHeader | EndRecord]:
        """The scope as export records (docs/export.md): header, data, end record with counts.
        Read a page at a time; one audited read when the audit is on, counting the records
        handed out (a download cut short is recorded with what it got)."""
        async with self.audit.reading(ReadOp.EXPORT, actor, scope) as read:
            read.count = 0
            async for record in export_scope(ExportStore(self.db), scope, self.settings):
                yield record
                read.count += 1

    async def export_counts(self, scope: Scope) -> ExportCounts:
        """How many records of each kind an export of the scope holds."""
        return await ExportStore(self.db).counts(scope)

    async def restore(self, path: Path, batch_size: int = DEFAULT_RESTORE_BATCH) -> RestoreReport:
        """Import an export file: checked whole (ValidationError, nothing written), then written
        as it was stored, with what the store holds already left as it is (export/restore.py)."""
        target = TargetModel(self.embedder.model_name, self.embedder.dimensions)
        checked = await asyncio.to_thread(check_export, path, target)
        report = await restore_file(self.db, checked, self.store.shards, batch_size, self.embedder)
        if self.counts is not None:
            self.counts.clear()  # the scopes it wrote into have grown
        return report

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
