"""The memory lifecycle (Mem0's API beyond add/search): get, get_all, update, delete,
delete_all, history, reset, and the verifiable forget, eviction and decay, each within one scope.

Every change leaves a MemoryEvent (ADD / UPDATE / SUPERSEDE / DELETE / FORGET / DECAY) with actor
and time; events outlive their memory. Delete keeps the text in its event (an audit trail);
forget erases it (right to be forgotten) and proves the erasure. An id from another scope is
reported exactly like an unknown id.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pydantic
from pydantic import BaseModel, Field

from service.core.domain import MAX_ID_CHARS, MessageIn, Scope, StoredMemory, utcnow
from service.core.errors import ForbiddenError, NotFoundError, ValidationError
from service.core.ids import text_hash
from service.core.paging import Page
from service.ingest.write_plan import Candidate, link_input
from service.lifecycle.decay import DECAY_ACTOR, DecayReport, PreferenceFading, decay
from service.nlp.entities.linking import link
from service.nlp.pipeline import whole_text_fact
from service.store.dashboard_queries import DashboardStore
from service.store.filters import MemoryWhere
from service.store.lifecycle_queries import (
    Deletion,
    EdgeRef,
    ForgetTargets,
    Leftovers,
    LifecycleStore,
    MemoryEvent,
)
from service.store.repository import GraphStore

if TYPE_CHECKING:
    from service.embedding.embedder import Embedder
    from service.nlp.pipeline import Extractor
    from service.store.database import Database

RESET_PHRASE = "delete everything"
EVICTION_ACTOR = "eviction"
DEFAULT_ACTOR = "engram"
# How many nearest neighbours forget asks the vector index for, per forgotten embedding.
VECTOR_PROBE_K = 10
# What update replaces on the memory; said_at, speaker, confidence and provenance stay.
_REVISED = (
    "text",
    "source_text",
    "hash",
    "lang",
    "embedding",
    "content_embedding",
    "embedding_model",
    "valid_from",
    "valid_to",
    "happened_start",
    "happened_end",
    "time_granularity",
    "time_expressions",
    "subject",
    "slot",
    "slot_value",
    "linker_version",
)


class DeleteReport(BaseModel):
    """Memories deleted (each with a DELETE event) and the entities that went with them."""

    memory_ids: list[str] = Field(default_factory=list)
    entity_keys: list[str] = Field(default_factory=list)


class EvictReport(DeleteReport):
    """Memories matching any eviction criterion; deleted unless ``dry_run``."""

    dry_run: bool


class ForgetReport(BaseModel):
    """What forget(scope) removes (dry run) or removed, by id, and the proof of absence.

    ``events_redacted`` are the scope's events whose texts are (or would be) erased; a real run
    also adds one text-less FORGET event per memory (``forget_events``). ``read_events`` are
    the scope's read-audit events, deleted with it: they hold its ids and query hashes.
    ``leftovers`` is null on a dry run.
    """

    dry_run: bool
    messages: list[str]
    memories: list[str]
    entities: list[str]
    edges: list[EdgeRef]
    events_redacted: list[str]
    read_events: int = 0
    forget_events: int = 0
    leftovers: Leftovers | None = None

    @property
    def mentions(self) -> list[EdgeRef]:
        return [e for e in self.edges if e.type == "MENTIONS"]

    @property
    def derived_from(self) -> list[EdgeRef]:
        return [e for e in self.edges if e.type == "DERIVED_FROM"]

    @property
    def supersedes(self) -> list[EdgeRef]:
        return [e for e in self.edges if e.type == "SUPERSEDES"]

    @property
    def verified(self) -> bool | None:
        """True when nothing of the scope is left or findable; None on a dry run."""
        return None if self.leftovers is None else self.leftovers.none

    @classmethod
    def of(cls, targets: ForgetTargets, dry_run: bool) -> ForgetReport:
        return cls(
            dry_run=dry_run,
            messages=targets.messages,
            memories=targets.memories,
            entities=targets.entities,
            edges=targets.edges,
            events_redacted=targets.events,
            read_events=targets.read_events,
        )


class Lifecycle:
    """Lifecycle use cases over the Memory service's database and models."""

    def __init__(self, db: Database, embedder: Embedder, extractor: Extractor) -> None:
        self.db = db
        self.embedder = embedder
        self.extractor = extractor
        self.store = LifecycleStore(db)

    async def get(self, memory_id: str, scope: Scope) -> StoredMemory:
        """One memory by id; the read counts towards its access_count."""
        found = await self.store.touch(_checked_id(memory_id), scope, utcnow())
        if found is None:
            raise _not_found(memory_id)
        return found

    async def get_all(
        self,
        scope: Scope,
        where: MemoryWhere | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> Page[StoredMemory]:
        """Memories of the scope (current and superseded), newest said first, cursor-paged."""
        return await DashboardStore(self.db).memories(scope, where, (), first, after)

    async def history(self, memory_id: str, scope: Scope) -> list[MemoryEvent]:
        """The memory's events, oldest first; answers for deleted and forgotten memories too."""
        events = await self.store.history(_checked_id(memory_id), scope)
        if not events:
            raise _not_found(memory_id)
        return events

    async def update(
        self, memory_id: str, text: str, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> StoredMemory:
        """Replace a memory's text (kept verbatim): entities re-extracted, re-embedded, relinked.

        Time tags and the slot are re-derived from the new text against the memory's said_at.
        The very same text changes nothing and records no event. Update neither merges nor
        supersedes; text that another memory of the scope already says is refused.
        """
        found = await self.store.find(_checked_id(memory_id), scope)
        if found is None:
            raise _not_found(memory_id)
        old = found.memory
        message = _checked_text(text, old.speaker)
        if message.content == old.text:
            return old
        duplicate = await self.store.same_text(old.id, text_hash(message.content), scope)
        if duplicate is not None:
            raise ValidationError(f"memory {duplicate} already says this")
        candidate = await self._revise(old, message, found.context_texts)
        props: dict[str, object] = {
            k: v for k, v in candidate.props(self.embedder.model_name).items() if k in _REVISED
        }
        own = _own_scope(old)
        known = await GraphStore(self.db).link_entities(own)
        linked = await asyncio.to_thread(link, own, [link_input(candidate)], known)
        await self.store.update(found, scope, props, linked, actor, utcnow())
        revised = await self.store.find(old.id, scope)
        if revised is None:  # deleted between the write and this read
            raise _not_found(memory_id)
        return revised.memory

    async def delete(
        self, memory_id: str, scope: Scope, actor: str = DEFAULT_ACTOR
    ) -> DeleteReport:
        """Delete one memory and its edges (a DELETE event keeps its text) and the entities that
        no other memory mentions."""
        found = await self.store.find(_checked_id(memory_id), scope)
        if found is None:
            raise _not_found(memory_id)
        done = await self.store.delete(
            scope,
            Deletion(memory_ids=[found.memory.id], entity_keys=found.entity_keys),
            actor,
            utcnow(),
        )
        if not done.memory_ids:
            raise _not_found(memory_id)
        return DeleteReport(**done.model_dump())

    async def delete_all(self, scope: Scope, actor: str = DEFAULT_ACTOR) -> DeleteReport:
        """Delete every memory of the scope as ``delete`` does; messages stay (forget erases
        those too). Deferred adds not written yet go first, or they would write memories after
        this returned."""
        await self.store.delete_pending(scope)
        doomed = await self.store.deletion_candidates(scope, everything=True)
        done = await self.store.delete(scope, doomed, actor, utcnow())
        return DeleteReport(**done.model_dump())

    async def evict(
        self,
        scope: Scope,
        older_than: datetime | None = None,
        max_access_count: int | None = None,
        min_confidence: float | None = None,
        dry_run: bool = True,
    ) -> EvictReport:
        """Memories matching ANY given criterion: said (else stored) before ``older_than``, read
        at most ``max_access_count`` times, or confidence below ``min_confidence``. Unless
        ``dry_run``, they are deleted with DELETE events by the actor "eviction"."""
        _check_eviction(older_than, max_access_count, min_confidence)
        if older_than is not None and older_than.tzinfo is None:
            older_than = older_than.replace(tzinfo=UTC)  # naive is UTC, as on the write path
        doomed = await self.store.deletion_candidates(
            scope,
            older_than=older_than,
            max_access_count=max_access_count,
            min_confidence=min_confidence,
        )
        if not dry_run:
            doomed = await self.store.delete(scope, doomed, EVICTION_ACTOR, utcnow())
        return EvictReport(dry_run=dry_run, **doomed.model_dump())

    async def decay(
        self,
        scope: Scope,
        half_life_days: float,
        floor: float = 0.0,
        dry_run: bool = True,
        actor: str = DECAY_ACTOR,
    ) -> DecayReport:
        """Lower confidences by time unused, and inferred LIKES by the time since their last
        evidence (lifecycle/decay.py); evict(min_confidence=…) then removes what has faded."""
        s = self.db.settings
        fading = PreferenceFading(s.inferred_like_half_life_days, s.inferred_like_min_confidence)
        return await decay(self.store, scope, half_life_days, floor, dry_run, actor, fading)

    async def forget(
        self, scope: Scope, dry_run: bool = True, actor: str = DEFAULT_ACTOR
    ) -> ForgetReport:
        """Erase a scope: its messages, memories and entities with their edges go, its events'
        texts are redacted (a text-less FORGET event marks each memory), and the indexes are
        probed for the forgotten texts and embeddings.

        The dry run lists exactly the ids the real run deletes. The real run reports what it
        did delete; anything written to the scope meanwhile is not deleted and shows up in
        ``leftovers`` (``verified`` is then false: run it again).
        """
        targets, content = await self.store.forget_targets(scope, with_content=not dry_run)
        if dry_run:
            return ForgetReport.of(targets, dry_run=True)
        done = await self.store.forget(scope, targets, actor, utcnow())
        report = ForgetReport.of(done, dry_run=False)
        report.forget_events = len(done.memories)
        report.leftovers = await self.store.leftovers(scope, content, VECTOR_PROBE_K)
        return report

    async def reset(self, confirm: str, allow_reset: bool) -> int:
        """Delete every Engram node of every scope (the schema stays); the number deleted.

        Only when the deployment allows it and ``confirm`` is exactly "delete everything".
        """
        if not allow_reset:
            raise ForbiddenError("reset is disabled by the settings of this deployment")
        if confirm != RESET_PHRASE:
            raise ValidationError(f"reset needs the confirmation {RESET_PHRASE!r}")
        return await self.store.delete_everything()

    async def _revise(
        self, old: StoredMemory, message: MessageIn, context_texts: list[str]
    ) -> Candidate:
        """The new text as a write-path candidate: mentions, time tags, slot, and an embedding
        in the memory's own conversational context (it still answers what it answered)."""
        said_at = old.said_at or old.created_at or utcnow()
        facts = (await asyncio.to_thread(self.extractor.extract, [message], [said_at]))[0]
        fact = whole_text_fact(message.content, facts, old.confidence)
        scope = _own_scope(old)
        candidate = Candidate(
            key=old.id,
            hash=text_hash(fact.text),
            fact=fact,
            said_at=said_at,
            speaker=old.speaker,
            subject=old.speaker or scope.user_id or scope.agent_id,
            source_ids=old.source_ids,
            context_texts=context_texts,
        )
        [vectors] = await self.embedder.aembed_memories([fact.text], [context_texts])
        candidate.embedding, candidate.content_embedding = vectors.search, vectors.content
        return candidate


def _own_scope(memory: StoredMemory) -> Scope:
    """The scope a memory was written in; its entities are keyed by it."""
    return Scope(user_id=memory.user_id, agent_id=memory.agent_id, run_id=memory.run_id)


def _checked_id(memory_id: str) -> str:
    if not memory_id or len(memory_id) > MAX_ID_CHARS:
        raise ValidationError(f"id: must be 1 to {MAX_ID_CHARS} characters")
    return memory_id


def _checked_text(text: str, speaker: str | None) -> MessageIn:
    try:
        return MessageIn(content=text, speaker=speaker)
    except pydantic.ValidationError as e:
        raise ValidationError(f"text: {e.errors()[0]['msg']}") from e


def _check_eviction(
    older_than: datetime | None, max_access_count: int | None, min_confidence: float | None
) -> None:
    if older_than is None and max_access_count is None and min_confidence is None:
        raise ValidationError("evict needs a criterion: age, access count or confidence")
    if max_access_count is not None and max_access_count < 0:
        raise ValidationError("maxAccessCount: must be 0 or more")
    if min_confidence is not None and not 0.0 <= min_confidence <= 1.0:
        raise ValidationError("minConfidence: must be between 0 and 1")


def _not_found(memory_id: str) -> NotFoundError:
    # The same words whether the id is unknown or lives in another scope: nothing leaks.
    return NotFoundError(f"no memory {memory_id!r} in this scope")


__all__ = [
    "DecayReport",
    "DeleteReport",
    "EvictReport",
    "ForgetReport",
    "Lifecycle",
    "MemoryEvent",
]
