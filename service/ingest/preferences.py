"""Changes of mind and inferred preferences on the write path: pure decisions over what a batch
says and what the store holds; the store writes them in the batch's transaction.

- A change of mind (``ChangeRow``, service/nlp/preferences/) retires its speaker's current
  LIKES, USES and DOES of the same thing, or, when it names only what it adopts, of the same
  kind (coffee → green tea: both hot drinks). A stated LIKES or USES is retired with its memory
  (superseded, as a slot is); a thing done and an inferred LIKES lose only their edge, since
  what was done stays true. A DISLIKES retires the LIKES of the same thing.
- A thing done (DOES) on ``inferred_like_min_days`` separate days (by the memories' event time),
  which the speaker never said they like or dislike, is an inferred LIKES: one edge per
  evidence memory, ``inferred: true``, with a confidence from the count and the spread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from service.core.config import Settings
from service.nlp.entities.link_rows import ChangeRow, LinkedBatch
from service.nlp.preferences.lexicon import kind_of
from service.nlp.relations.extractor import RelationType
from service.store.writes import (
    Activity,
    Closing,
    Evidence,
    HeldRelation,
    InferredLike,
    Pair,
    PreferenceAsk,
    Supersession,
    WritePlan,
)

# What a change retires, and what a dislike does.
_CHANGE_RETIRES = frozenset({RelationType.LIKES, RelationType.USES, RelationType.DOES})
_DISLIKE_RETIRES = frozenset({RelationType.LIKES})
# A stated relation is retired with its memory; these lose only their edge.
_EDGE_ONLY = frozenset({RelationType.DOES})
_TASTES = frozenset({RelationType.LIKES, RelationType.DISLIKES})


@dataclass(frozen=True)
class Retirement:
    """Whose relations of which types to which things a statement retires, and when."""

    memory_id: str
    subject_key: str
    types: frozenset[RelationType]
    retired_keys: tuple[str, ...]
    adopted_keys: tuple[str, ...]
    adopted_kinds: tuple[str, ...]
    at: datetime
    reason: str

    def retires(self, held: HeldRelation) -> bool:
        if held.subject_key != self.subject_key or held.type not in self.types:
            return False
        if held.memory_id == self.memory_id or (held.said_at and held.said_at > self.at):
            return False
        if held.target_key in self.retired_keys:
            return True
        alike = kind_of(held.target_name) in self.adopted_kinds
        return alike and held.target_key not in self.adopted_keys


def retirements(linked: LinkedBatch, said_at: Mapping[str, datetime]) -> list[Retirement]:
    """The batch's changes of mind and dislikes as retirements, oldest first."""
    found = [_of_change(c, said_at[c.memory_id]) for c in linked.changes if c.memory_id in said_at]
    found += [
        _of_dislike(r.memory_id, r.source_key, r.target_key, said_at[r.memory_id])
        for r in linked.relations
        if r.type is RelationType.DISLIKES and r.memory_id in said_at
    ]
    return sorted(found, key=lambda r: r.at)


def _of_dislike(memory_id: str, subject_key: str, target_key: str, at: datetime) -> Retirement:
    return Retirement(
        memory_id, subject_key, _DISLIKE_RETIRES, (target_key,), (), (), at, "disliked"
    )


def _of_change(change: ChangeRow, at: datetime) -> Retirement:
    return Retirement(
        change.memory_id,
        change.subject_key,
        _CHANGE_RETIRES,
        change.retired_keys,
        change.adopted_keys,
        change.adopted_kinds,
        at,
        f"changed mind ({change.rule})",
    )


def plan_retirements(
    changes: list[Retirement], held: Iterable[HeldRelation]
) -> tuple[list[Supersession], list[Closing]]:
    """Stated relations retired with their memories, the rest edge by edge."""
    supersessions: dict[str, Supersession] = {}
    closings: list[Closing] = []
    held = list(held)
    for change in changes:
        for h in held:
            if not change.retires(h):
                continue
            if h.inferred or h.type in _EDGE_ONLY:
                closings.append(
                    Closing(h.subject_key, h.target_key, h.type, h.memory_id, change.at)
                )
            elif h.memory_id not in supersessions:
                reason = f"{change.reason}: {h.target_name}"
                supersessions[h.memory_id] = Supersession(
                    change.memory_id, h.memory_id, reason, change.at
                )
    return list(supersessions.values()), closings


def plan_inferences(
    held: Iterable[HeldRelation], changes: list[Retirement], settings: Settings
) -> list[InferredLike]:
    """The LIKES inferred for each (subject, thing) the batch did something with: stored and
    new evidence that no change of the batch retired, unless a taste was stated."""
    by_pair: dict[Pair, list[HeldRelation]] = {}
    for h in held:
        by_pair.setdefault(h.pair, []).append(h)
    found = []
    for pair, relations in by_pair.items():
        if any(h.type in _TASTES and not h.inferred for h in relations):
            continue  # never over a statement
        done = [
            h
            for h in relations
            if h.type == RelationType.DOES
            and h.day is not None
            and not any(c.retires(h) for c in changes)
        ]
        inferred = infer(pair, done, settings)
        if inferred is not None:
            found.append(inferred)
    return found


def infer(pair: Pair, done: list[HeldRelation], settings: Settings) -> InferredLike | None:
    """A LIKES from ``done`` when it spans enough separate days."""
    days = sorted({h.day for h in done if h.day is not None})
    if len(days) < settings.inferred_like_min_days:
        return None
    evidence = tuple(dict.fromkeys(Evidence(h.memory_id, h.day) for h in done if h.day))
    said = [h.said_at for h in done if h.said_at is not None]
    since = max(said, default=datetime.combine(days[-1], datetime.min.time(), UTC))
    return InferredLike(
        pair[0],
        pair[1],
        evidence,
        inferred_confidence(len(days), (days[-1] - days[0]).days, settings),
        len(days),
        days[-1],
        since,
    )


def inferred_confidence(days: int, spread_days: int, settings: Settings) -> float:
    """max × (1 − 0.5 ^ (days / count_half)) × (0.5 + 0.5 × min(1, spread / spread_days))."""
    count = 1.0 - 0.5 ** (days / settings.inferred_like_count_half)
    spread = 0.5 + 0.5 * min(1.0, spread_days / settings.inferred_like_spread_days)
    confidence: float = settings.inferred_like_max_confidence * count * spread
    return round(confidence, 4)


def day_of(moment: datetime) -> date:
    """The calendar day a moment falls on, where it was said (counted once a day)."""
    return moment.date()


@dataclass(frozen=True)
class Moment:
    """When a candidate fact was said and on which day what it tells happened."""

    said_at: datetime
    day: date


def activities(
    linked: LinkedBatch, moments: Mapping[str, Moment], kept: Mapping[str, str]
) -> list[Activity]:
    """The things the batch says were done, each on its day; a fact the scope already holds
    (``kept``: candidate id → stored memory id) counts on the stored memory."""
    found = []
    for r in linked.relations:
        moment = moments.get(r.memory_id)
        if r.type is not RelationType.DOES or moment is None:
            continue
        memory_id = kept.get(r.memory_id, r.memory_id)
        found.append(
            Activity(
                memory_id,
                r.source_key,
                r.target_key,
                moment.day,
                moment.said_at,
                r.confidence,
                r.extractor,
            )
        )
    return list({(a.memory_id, a.source_key, a.target_key, a.day): a for a in found}.values())


def batch_relations(
    linked: LinkedBatch, done: list[Activity], said_at: Mapping[str, datetime]
) -> list[HeldRelation]:
    """The tastes and uses of the memories the batch adds, and its things done, as held."""
    names = {e.key: e.name for e in linked.entities}
    held = [
        HeldRelation(r.source_key, r.type, r.target_key, names.get(r.target_key, ""), r.memory_id)
        for r in linked.relations
        if r.type in _TASTES | {RelationType.USES} and r.memory_id in said_at
    ]
    held = [replace(h, said_at=said_at[h.memory_id]) for h in held]
    return held + [_done(a, names.get(a.target_key, "")) for a in done]


def _done(a: Activity, name: str) -> HeldRelation:
    return HeldRelation(
        a.source_key, RelationType.DOES, a.target_key, name, a.memory_id, False, a.said_at, a.day
    )


def preference_asks(changes: list[Retirement], done: list[Activity]) -> list[PreferenceAsk]:
    """What to read before a batch's preferences are decided (nothing for most batches)."""
    everything = {c.subject_key for c in changes}
    targets: dict[str, set[str]] = {}
    for a in done:
        if a.source_key not in everything:
            targets.setdefault(a.source_key, set()).add(a.target_key)
    asks = [PreferenceAsk(key, None) for key in sorted(everything)]
    return asks + [PreferenceAsk(k, tuple(sorted(v))) for k, v in sorted(targets.items())]


def add_preferences(
    plan: WritePlan,
    linked: LinkedBatch,
    moments: Mapping[str, Moment],
    stored: list[HeldRelation],
    settings: Settings,
) -> None:
    """Fill in what the batch's preferences write: its things done, the relations its changes
    of mind retire (memories superseded, edges closed) and the LIKES now inferred."""
    new_ids = {m.id for m in plan.new}
    said = {i: moments[i].said_at for i in new_ids if i in moments}
    changes = retirements(linked, said)
    counted = {i: m for i, m in moments.items() if i in new_ids or i in plan.kept}
    plan.activities = activities(linked, counted, plan.kept)
    batch = batch_relations(linked, plan.activities, said)
    supersessions, plan.closings = plan_retirements(changes, [*stored, *batch])
    taken = {s.old_id for s in plan.supersessions}
    plan.supersessions += [s for s in supersessions if s.old_id not in taken]
    pairs = {(a.source_key, a.target_key) for a in plan.activities}
    held = [h for h in [*stored, *batch] if h.pair in pairs]
    plan.inferred = plan_inferences(held, changes, settings)
