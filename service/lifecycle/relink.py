"""Entity links of stored memories, made again: `engram relink`.

Every memory records the linker version that made its MENTIONS and relations
(`linker_version`, nlp/entities/linking.py). A store written by an older Engram (entities keyed
by type, no speakers, no relations) is brought up to date by reading each stale memory's words
again (its `source_text`, said by its speaker at its time), linking them against its scope's
entities and writing the result. Batches of ids in order (keyset pagination), one transaction
each, so a run can stop anywhere and the next carries on; a second run finds nothing. Entities
that no memory mentions afterwards (the old, type-keyed nodes) are deleted in the same
transaction. Like `engram reembed`, an operator's tool across every scope, not an API.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.core.domain import MessageIn, Scope
from service.core.errors import ValidationError
from service.core.ids import text_hash
from service.ingest.write_plan import Candidate, link_input
from service.nlp.entities.link_rows import KnownEntity, LinkedBatch
from service.nlp.entities.linking import LINKER_VERSION, link
from service.nlp.pipeline import Extractor, whole_text_fact
from service.store.database import Database
from service.store.repository import GraphStore, link_steps

log = logging.getLogger(__name__)

DEFAULT_BATCH = 256
Progress = Callable[[int, int], None]  # (memories done, memories to do)


@dataclass(frozen=True)
class StoredText:
    """A memory to relink: the words it came from, who said them, when, and where."""

    id: str
    text: str
    speaker: str | None
    said_at: datetime
    scope: Scope
    confidence: float | None


@dataclass(frozen=True)
class RelinkReport:
    stale: int  # memories linked by another version when the run began
    relinked: int
    remaining: int
    dry_run: bool
    seconds: float


async def count_unlinked(db: Database) -> int:
    [row] = await db.read("count_unlinked_memories", {"version": LINKER_VERSION})
    return int(row["unlinked"])


async def warn_if_unlinked(db: Database) -> None:
    """At start-up: say so when memories were linked by an older Engram."""
    if unlinked := await count_unlinked(db):
        log.warning(
            "%d memories were linked by an older version of Engram: their entities, speakers "
            "and relations are incomplete until you run `engram relink`",
            unlinked,
        )


async def relink(
    db: Database,
    extractor: Extractor | None,
    batch_size: int = DEFAULT_BATCH,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> RelinkReport:
    """Link every stale memory again, batch after batch in id order (a dry run only counts,
    and needs no extractor)."""
    if batch_size < 1:
        raise ValidationError(f"batch size must be at least 1, got {batch_size}")
    began = time.monotonic()
    stale = await count_unlinked(db)
    done = 0
    if not dry_run:
        if extractor is None:
            raise ValueError("relinking needs an extractor")
        cursor = ""
        if progress is not None:
            progress(0, stale)
        while batch := await _next_batch(db, cursor, batch_size):
            await _relink_batch(db, extractor, batch)
            cursor, done = batch[-1].id, done + len(batch)
            if progress is not None:
                progress(done, max(stale, done))
    remaining = stale if dry_run else await count_unlinked(db)
    return RelinkReport(stale, done, remaining, dry_run, time.monotonic() - began)


async def _next_batch(db: Database, after: str, limit: int) -> list[StoredText]:
    params = {"after": after, "limit": limit, "version": LINKER_VERSION}
    rows = await db.read("list_unlinked_memories", params)
    return [
        StoredText(
            id=r["id"],
            text=r["text"],
            speaker=r["speaker"],
            said_at=r["said_at"],
            scope=Scope(user_id=r["user_id"], agent_id=r["agent_id"], run_id=r["run_id"]),
            confidence=r["confidence"],
        )
        for r in rows
    ]


async def _relink_batch(db: Database, extractor: Extractor, batch: list[StoredText]) -> None:
    """One transaction: the batch's old links out, the new ones in, orphans deleted."""
    store = GraphStore(db)
    by_scope: dict[Scope, list[StoredText]] = defaultdict(list)
    for memory in batch:
        by_scope[memory.scope].append(memory)
    ids = [m.id for m in batch]
    # The entities mentioned now: those no memory mentions after the relink are deleted.
    [row] = await db.read("list_mentioned_entity_keys", {"ids": ids})
    steps: list[tuple[str, Mapping[str, Any]]] = [
        ("unlink_memories", {"ids": ids, "version": LINKER_VERSION})
    ]
    for scope, memories in by_scope.items():
        known = await store.link_entities(scope)
        linked = await asyncio.to_thread(_link_scope, extractor, scope, memories, known)
        steps += link_steps(_scope_fields(scope), linked)
    steps.append(("delete_orphan_entities_by_key", {"keys": row["keys"]}))
    await db.write_many(steps)


def _link_scope(
    extractor: Extractor, scope: Scope, memories: list[StoredText], known: list[KnownEntity]
) -> LinkedBatch:
    """The memories of one scope read as one batch (their names find each other)."""
    messages = [MessageIn(content=m.text, speaker=m.speaker) for m in memories]
    facts = extractor.extract(messages, [m.said_at for m in memories])
    candidates = [
        Candidate(
            key=m.id,
            hash=text_hash(m.text),
            fact=whole_text_fact(m.text, found, m.confidence),
            said_at=m.said_at,
            speaker=m.speaker,
            subject=m.speaker,
            source_ids=[],
        )
        for m, found in zip(memories, facts, strict=True)
    ]
    return link(scope, [link_input(c) for c in candidates], known)


def _scope_fields(scope: Scope) -> dict[str, str]:
    return {k: v for k, v in scope.params().items() if isinstance(v, str)}
