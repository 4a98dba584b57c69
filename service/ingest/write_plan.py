"""Turn extracted facts into a write plan: new memories, near-duplicate updates, supersessions.

Pure logic over what the store reports (reconcile rows); the store executes the plan in one
transaction. Order matters: within a batch, later messages win a slot over earlier ones.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from service.core.config import Settings
from service.core.domain import Scope
from service.core.ids import scoped_id, text_hash
from service.ingest.preferences import Moment, day_of
from service.nlp.entities.link_rows import KnownEntity, LinkedBatch, LinkInput
from service.nlp.entities.linking import LINKER_VERSION, link
from service.nlp.entities.names import identity_form
from service.nlp.pipeline import Fact
from service.store.writes import (
    ContextProps,
    MemoryProps,
    Near,
    NewMemory,
    ReconcileAsk,
    Reconciled,
    SourceLink,
    Supersession,
    Update,
    WritePlan,
)


@dataclass
class Candidate:
    """A fact ready to be stored, keyed by its content hash."""

    key: str
    hash: str
    fact: Fact
    said_at: datetime
    speaker: str | None
    subject: str | None
    source_ids: list[str]
    agent_id: str | None = None
    embedding: list[float] = field(default_factory=list)
    # The facts its vector is mixed with (attach_contexts), stored so reembed can redo it, and
    # its own vector where that differs (Embedder.aembed_memories).
    context_texts: list[str] = field(default_factory=list)
    content_embedding: list[float] | None = None

    @property
    def id(self) -> str:
        return self.key

    @property
    def context_text(self) -> str | None:
        """What the full-text indexes read of the context (memory_text_query)."""
        return " ".join(self.context_texts) or None

    def context_props(self) -> ContextProps:
        """The properties its context makes, as a new memory and a near-duplicate update
        store them alike."""
        return {
            "context_texts": self.context_texts,
            "context_text": self.context_text,
            "content_embedding": self.content_embedding,
        }

    def moment(self) -> Moment:
        """When it was said, and the day what it tells happened (its own time, else then)."""
        time = self.fact.times[0].range if self.fact.times else None
        return Moment(self.said_at, day_of(time.start if time else self.said_at))

    def reconcile_ask(self) -> ReconcileAsk:
        """What the store looks up for it: same hash, near-duplicates (by its own vector),
        the holders of its slot."""
        return ReconcileAsk(
            self.key,
            self.hash,
            self.content_embedding or self.embedding,
            self.fact.slot.slot if self.fact.slot else None,
            self.subject,
        )

    def new_memory(self, embedding_model: str) -> NewMemory:
        return NewMemory(self.id, self.props(embedding_model), self.source_ids)

    def props(self, embedding_model: str) -> MemoryProps:
        fact, time = self.fact, self.fact.times[0].range if self.fact.times else None
        return {
            "text": fact.text,
            "source_text": fact.source_text,
            "hash": self.hash,
            "speaker": self.speaker,
            "said_at": self.said_at,
            "lang": fact.lang,
            "confidence": fact.confidence,
            "embedding": self.embedding,
            **self.context_props(),
            "embedding_model": embedding_model,
            "linker_version": LINKER_VERSION,
            "valid_from": time.start if time else None,
            "valid_to": time.end if time else None,
            # When it happened, as one indexed interval: its own time, else when it was said
            # (the HAPPENED window of memory_visible; cypher/schema.cypher).
            "happened_start": (time.start if time else None) or self.said_at,
            "happened_end": (time.end if time else None) or self.said_at,
            "time_granularity": time.granularity.value if time else None,
            "time_expressions": [t.expression for t in fact.times],
            "subject": self.subject if fact.slot else None,
            "slot": fact.slot.slot if fact.slot else None,
            "slot_value": fact.slot.value if fact.slot else None,
        }


def near_duplicate_depth(settings: Settings, total: int, scoped: int) -> int:
    """How deep a crowded near-duplicate check asks the vector index again (its top
    reconcile_fetch_k held only other scopes' near copies): deep enough that this scope can
    expect reconcile_fetch_k of its own in the answer, at most vector_fetch_max."""
    share = min(max(scoped, 1) / max(total, 1), 1.0)
    wanted = math.ceil(settings.reconcile_fetch_k / share)
    return min(max(wanted, settings.reconcile_fetch_k), settings.vector_fetch_max)


def make_candidates(
    scope: Scope,
    facts: list[list[Fact]],
    message_ids: list[str],
    said_at: list[datetime],
    speakers: list[str | None],
) -> list[Candidate]:
    """One candidate per distinct fact text; a repeated fact collects all its sources."""
    by_hash: dict[str, Candidate] = {}
    for index, message_facts in enumerate(facts):
        for fact in message_facts:
            digest = text_hash(fact.text)
            if digest in by_hash:
                if message_ids[index] not in by_hash[digest].source_ids:
                    by_hash[digest].source_ids.append(message_ids[index])
                continue
            by_hash[digest] = Candidate(
                key=scoped_id(scope, "mem", digest),
                hash=digest,
                fact=fact,
                said_at=said_at[index],
                speaker=speakers[index],
                subject=speakers[index] or scope.user_id or scope.agent_id,
                source_ids=[message_ids[index]],
                agent_id=scope.agent_id,
            )
    return list(by_hash.values())


def confident_candidates(
    scope: Scope,
    facts: list[list[Fact]],
    message_ids: list[str],
    said_at: list[datetime],
    speakers: list[str | None],
    sessions: list[str | None],
    floor: float,
) -> tuple[list[Candidate], int]:
    """The batch's candidates at or above ``floor`` confidence, each with its conversational
    context, and how many fell below (those stay in the message layer only)."""
    candidates = make_candidates(scope, facts, message_ids, said_at, speakers)
    confident = [c for c in candidates if c.fact.confidence >= floor]
    attach_contexts(confident, sessions)
    return confident, len(candidates) - len(confident)


def attach_contexts(candidates: list[Candidate], sessions: list[str | None]) -> None:
    """Give each candidate the texts of the facts of the nearest earlier message of the batch,
    in the same session, that has any: a reply is about what it answers."""
    by_message: dict[int, list[str]] = {}
    for cand in candidates:
        by_message.setdefault(cand.fact.message_index, []).append(cand.fact.text)
    context: dict[int, list[str]] = {}
    latest: dict[str | None, list[str]] = {}
    for index in sorted(by_message):
        context[index] = latest.get(sessions[index], [])
        latest[sessions[index]] = by_message[index]
    for cand in candidates:
        cand.context_texts = context[cand.fact.message_index]


def plan_writes(
    candidates: list[Candidate],
    reconcile: Mapping[str, Reconciled],
    embedding_model: str,
    arbiter: Arbiter | None = None,
    min_wording: float = 0.0,
) -> WritePlan:
    """Decide per candidate: unchanged (same hash), UPDATE (near-duplicate), or new."""
    plan, new = WritePlan(), []
    for cand in candidates:
        known = reconcile.get(cand.key, Reconciled())
        if known.same_id:
            plan.unchanged.append(known.same_id)
            plan.source_links.append(SourceLink(known.same_id, cand.source_ids))
            plan.kept[cand.id] = known.same_id
        elif (near := _near_duplicate(cand, known, min_wording)) is not None:
            plan.updates.append(_update(near.id, near.text, cand))
            plan.kept[cand.id] = near.id
        else:
            new.append(cand)
    plan.new = [cand.new_memory(embedding_model) for cand in new]
    plan.supersessions = _supersessions(new, reconcile, arbiter or Arbiter())
    return plan


def _near_duplicate(cand: Candidate, known: Reconciled, min_wording: float) -> Near | None:
    """The nearest memory the candidate would update: alike by vector and in its words. A
    change of mind is never folded into what it may retire, however alike they read."""
    if cand.fact.preferences.change is not None:
        return None
    alike = (n for n in known.nears if wording_alike(cand.fact.text, n.text, min_wording))
    return next(alike, None)


def wording_alike(text: str, other: str, floor: float) -> bool:
    """Whether two texts share at least ``floor`` of their characters, in order (difflib)."""
    if floor <= 0.0:
        return True
    matcher = difflib.SequenceMatcher(None, text.casefold(), other.casefold(), autojunk=False)
    return matcher.ratio() >= floor


def _update(memory_id: str, old_text: str, cand: Candidate) -> Update:
    # The longer wording usually carries more detail; keep it as the memory's text.
    return Update(
        memory_id=memory_id,
        source_ids=cand.source_ids,
        text=cand.fact.text,
        source_text=cand.fact.source_text,
        hash=cand.hash,
        embedding=cand.embedding,
        context_texts=cand.context_texts,
        context_text=cand.context_text,
        content_embedding=cand.content_embedding,
        replace_text=len(cand.fact.text) > len(old_text),
    )


def _supersessions(
    new: list[Candidate], reconcile: Mapping[str, Reconciled], priority: Arbiter
) -> list[Supersession]:
    """Conflicting values for one subject + slot: the loser is superseded (kept, invalidated)."""
    result: list[Supersession] = []
    latest: dict[tuple[str, str], Candidate] = {}
    for cand in sorted(new, key=lambda c: priority.rank(c.said_at, c.agent_id, c.fact.confidence)):
        slot = cand.fact.slot
        if slot is None or cand.subject is None:
            continue
        value = identity_form(slot.value)
        mine = priority.rank(cand.said_at, cand.agent_id, cand.fact.confidence)
        for old in reconcile.get(cand.key, Reconciled()).holders:
            if identity_form(old.slot_value or "") == value:
                continue
            theirs = priority.rank(old.said_at, old.agent_id, old.confidence)
            if mine >= theirs:
                result.append(_supersede(cand.id, old.id, slot.slot, slot.value, cand.said_at))
            else:  # an older fact arrived late: the stored, newer one keeps the slot
                result.append(_supersede(old.id, cand.id, slot.slot, old.slot_value, old.said_at))
        previous = latest.get((cand.subject, slot.slot))
        previous_value = previous.fact.slot.value if previous and previous.fact.slot else None
        if previous and previous_value and identity_form(previous_value) != value:
            result.append(_supersede(cand.id, previous.id, slot.slot, slot.value, cand.said_at))
        latest[(cand.subject, slot.slot)] = cand
    return result


def _supersede(
    new_id: str, old_id: str, slot: str, value: str | None, at: datetime | None
) -> Supersession:
    return Supersession(new_id, old_id, f"{slot}: {value}", at)


@dataclass(frozen=True)
class Arbiter:
    """Who wins a slot: the newer fact, then the agent with the higher priority (Settings
    agent_priority; unknown agents 0), then the higher confidence."""

    agent_priority: dict[str, int] = field(default_factory=dict)

    def rank(
        self, said_at: datetime | None, agent_id: str | None, confidence: float | None
    ) -> tuple[datetime, int, float]:
        return (
            said_at or datetime.min.replace(tzinfo=UTC),
            self.agent_priority.get(agent_id or "", 0),
            confidence or 0.0,
        )


@dataclass(frozen=True)
class Decision:
    """What one batch writes: the plan, and the new memories' entities and relations; and
    every candidate's links (``batch_links``), which its preferences are decided from (a thing
    done again counts on the memory it repeats)."""

    plan: WritePlan
    linked: LinkedBatch
    batch_links: LinkedBatch


def decide(
    scope: Scope,
    candidates: list[Candidate],
    known: list[KnownEntity],
    reconciled: Mapping[str, Reconciled],
    embedding_model: str,
    arbiter: Arbiter,
    min_wording: float = 0.0,
) -> Decision:
    """The plan against what the scope holds, and the batch linked against the scope's
    entities. Every candidate is linked (one names what another's short form means); only
    the new memories' links are written."""
    plan = plan_writes(candidates, reconciled, embedding_model, arbiter, min_wording)
    linked = link(scope, [link_input(c) for c in candidates], known)
    return Decision(plan, linked.of({m.id for m in plan.new}), linked)


def link_input(cand: Candidate) -> LinkInput:
    """What the linker reads of a candidate (service/nlp/entities/linking.py)."""
    fact = cand.fact
    return LinkInput(
        memory_id=cand.id,
        text=fact.source_text,
        lang=fact.lang,
        speaker=cand.speaker,
        said_at=cand.said_at,
        mentions=fact.mentions,
        relations=fact.relations,
        change=fact.preferences.change,
    )
