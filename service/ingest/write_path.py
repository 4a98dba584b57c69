"""The write path: a batch of messages validated, its facts extracted, embedded, linked,
reconciled against the scope and written in one transaction, now or by the deferred-add worker
(docs/write-path.md). MemoryService.add and add_batches delegate here."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import pydantic

from service.core.config import Settings
from service.core.domain import MAX_BATCH, AddMode, AddResult, MessageIn, Messages, Scope, utcnow
from service.core.errors import ValidationError
from service.core.ids import scoped_id, text_hash
from service.embedding.embedder import Embedder
from service.ingest.deferred import DeferredWorker, PendingObserver
from service.ingest.preferences import (
    activities,
    add_preferences,
    preference_asks,
    retirements,
)
from service.ingest.write_plan import (
    Arbiter,
    Candidate,
    Decision,
    confident_candidates,
    decide,
    near_duplicate_depth,
)
from service.nlp.entities.link_rows import KnownEntity
from service.nlp.language import detect_lang
from service.nlp.pipeline import STATEMENT_CONFIDENCE, Extractor, Fact
from service.observability import tracing
from service.store.pending_queries import PendingBatch, PendingStore
from service.store.repository import GraphStore, MessageRow
from service.store.scope_sizes import ScopeCounts, scope_size
from service.store.writes import Reconciled, WritePlan


class WriteObserver(PendingObserver, Protocol):
    """What add() and the deferred-add worker tell (the API's metrics)."""

    def count_write(self, result: AddResult) -> None: ...


@dataclass
class Extracted:
    """A validated batch with its candidate facts: what add() embeds, reconciles and writes."""

    scope: Scope
    message_rows: list[MessageRow]
    candidates: list[Candidate]
    below_confidence: int
    now: datetime
    stage_ms: dict[str, float]


class WritePath:
    """Adds messages to memory: at once (``add``), in bulk (``add_batches``) or deferred to
    this process's worker (``start_worker``)."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        extractor: Extractor,
        counts: ScopeCounts | None = None,
        observers: weakref.WeakSet[WriteObserver] | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        # Scope sizes, shared with search: a write that grows a scope clears them.
        self.counts = counts
        self.observers: weakref.WeakSet[WriteObserver] = (
            weakref.WeakSet() if observers is None else observers
        )
        self.queue = PendingStore(store.db)
        self.worker: DeferredWorker | None = None

    async def add(
        self, messages: Messages, scope: Scope, infer: bool, actor: str, mode: AddMode
    ) -> AddResult:
        """Extract and write now, or (``DEFERRED``) queue the messages for the worker."""
        with tracing.span(
            "engram.add",
            {"engram.messages": len(messages), "engram.infer": infer, "engram.mode": mode.value},
        ):
            if mode is AddMode.DEFERRED:
                return await self._defer(messages, scope, infer, actor)
            return await self.write(await self.extract(messages, scope, infer), actor)

    async def add_batches(
        self, batches: Iterable[tuple[Messages, Scope]], infer: bool, actor: str
    ) -> AsyncGenerator[AddResult, None]:
        """add() over consecutive batches, each extracted while the one before is written
        (MemoryService.add_batches)."""
        pending = iter(batches)

        def extract_next() -> asyncio.Future[Extracted] | None:
            batch = next(pending, None)
            return None if batch is None else asyncio.ensure_future(self.extract(*batch, infer))

        upcoming = extract_next()
        try:
            while upcoming is not None:
                extracted = await upcoming
                upcoming = extract_next()
                yield await self.write(extracted, actor)
        finally:
            if upcoming is not None:
                upcoming.cancel()

    async def write_pending(self, batch: PendingBatch) -> AddResult:
        """Write one deferred batch as add() would have; the batch ends in the same
        transaction (or nothing is written: NothingMatched)."""
        with tracing.span("engram.add.deferred", {"engram.messages": len(batch.messages)}):
            extracted = await self.extract(
                batch.messages, batch.scope, batch.infer, batch.received_at
            )
            return await self.write(extracted, batch.actor, batch.finishes())

    def start_worker(self) -> DeferredWorker:
        """Write deferred adds in the background of this process until stop_worker()."""
        if self.worker is None:
            self.worker = DeferredWorker(
                self.queue, self.write_pending, self.settings, self.observers
            )
            self.worker.start()
        return self.worker

    async def stop_worker(self, grace_s: float = 0.0) -> None:
        if self.worker is not None:
            await self.worker.stop(grace_s)
            self.worker = None

    async def _defer(self, messages: Messages, scope: Scope, infer: bool, actor: str) -> AddResult:
        parsed = parse_messages(messages)
        message_ids = [_message_id(scope, m, i) for i, m in enumerate(parsed)]
        await self.queue.enqueue(scope, parsed, message_ids, infer, actor)
        if self.worker is not None:
            self.worker.wake()
        return AddResult(
            message_ids=message_ids, pending=True, bookmark=await self.store.db.bookmark()
        )

    async def extract(
        self, messages: Messages, scope: Scope, infer: bool, received_at: datetime | None = None
    ) -> Extracted:
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
            # Weak extractions stay in the message layer only; a caller's own memory
            # (infer=False) is the caller's call and is never dropped.
            floor = self.settings.memory_min_confidence if infer else 0.0
            confident, below = confident_candidates(
                scope,
                facts,
                [r.id for r in message_rows],
                said_at,
                [m.speaker for m in parsed],
                [m.session_id for m in parsed],
                floor,
            )
        return Extracted(scope, message_rows, confident, below, now, clock.laps)

    async def write(
        self,
        batch: Extracted,
        actor: str,
        finishes: tuple[str, Mapping[str, Any]] | None = None,
    ) -> AddResult:
        """Embed, reconcile against the scope, decide and write one extracted batch (one
        transaction, with ``finishes`` first: GraphStore.write_plan). The scope's entities are
        read while the facts are embedded."""
        clock, candidates, scope = StageClock(), batch.candidates, batch.scope
        with clock.stage("embedding"):
            known = await self.embed(candidates, scope)
        with clock.stage("reconcile"):
            reconciled = await self._reconcile(scope, candidates)
        return await self.commit(batch, known, reconciled, actor, finishes, clock)

    async def commit(
        self,
        batch: Extracted,
        known: list[KnownEntity],
        reconciled: Mapping[str, Reconciled],
        actor: str,
        finishes: tuple[str, Mapping[str, Any]] | None = None,
        clock: StageClock | None = None,
    ) -> AddResult:
        """Decide and write an embedded batch against what ``reconciled`` says the scope holds
        (write() reconciles first; a bulk load checks exact repeats only, ingest/bulk.py)."""
        clock = clock or StageClock()
        scope, candidates = batch.scope, batch.candidates
        with clock.stage("link"):
            s, model = self.settings, self.embedder.model_name
            decision = await asyncio.to_thread(
                decide,
                scope,
                candidates,
                known,
                reconciled,
                model,
                Arbiter(s.agent_priority),
                s.duplicate_min_wording,
            )
            await self._add_preferences(decision, candidates)
        with clock.stage("write") as stage:
            await self._store(batch, decision, actor, finishes)
            stage.set_attribute("engram.memories_added", len(decision.plan.new))
        return await self._report(batch, decision.plan, clock.laps)

    async def embed(self, candidates: list[Candidate], scope: Scope) -> list[KnownEntity]:
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

    async def _add_preferences(self, decision: Decision, candidates: list[Candidate]) -> None:
        """Changes of mind and inferred LIKES join the plan (ingest/preferences.py decides),
        against the relations they concern: read only when the batch has a change of mind or
        a thing done."""
        linked, moments = decision.batch_links, {c.id: c.moment() for c in candidates}
        said = {key: m.said_at for key, m in moments.items()}
        asks = preference_asks(retirements(linked, said), activities(linked, moments, {}))
        held = await self.store.held_preferences(asks)
        add_preferences(decision.plan, linked, moments, held, self.settings)

    async def _reconcile(self, scope: Scope, candidates: list[Candidate]) -> dict[str, Reconciled]:
        """Same hash, nearest near-duplicate and slot holders per candidate, from the vector
        index's top reconcile_fetch_k; a candidate whose top-k was all other scopes' near
        copies ("crowded") is looked up again, deeper (near_duplicate_depth)."""
        s = self.settings
        asks = [c.reconcile_ask() for c in candidates]
        found = await self.store.reconcile(scope, asks, s.duplicate_threshold, s.reconcile_fetch_k)
        crowded = [a for a in asks if found[a.key].crowded and not found[a.key].nears]
        if crowded:
            total, scoped = await scope_size(self.store, self.counts, scope.params())
            depth = near_duplicate_depth(s, total, scoped)
            found |= await self.store.reconcile(scope, crowded, s.duplicate_threshold, depth)
        return found

    async def _store(
        self,
        batch: Extracted,
        decision: Decision,
        actor: str,
        finishes: tuple[str, Mapping[str, Any]] | None,
    ) -> None:
        """The plan, its messages and the new memories' entities, in one transaction."""
        plan = decision.plan
        await self.store.write_plan(
            batch.scope, batch.message_rows, plan, decision.linked, actor, batch.now, finishes
        )
        if self.counts is not None and plan.new:
            self.counts.clear()  # a grown scope may need another route, or speak anew

    async def _report(self, batch: Extracted, plan: WritePlan, laps: dict[str, float]) -> AddResult:
        """The add's result, told to the observers (metrics)."""
        result = add_result(batch, plan, laps, await self.store.db.bookmark())
        for observer in list(self.observers):
            observer.count_write(result)
        return result


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


def add_result(
    batch: Extracted, plan: WritePlan, laps: dict[str, float], bookmark: str | None
) -> AddResult:
    """What an add reports: the ids it wrote, kept or superseded, and its time per stage."""
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


def parse_messages(messages: Messages) -> list[MessageIn]:
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
