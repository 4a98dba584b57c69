"""Decay as an explicit operation: confidence fades with disuse, and eviction by minimum
confidence then removes what has faded. Together they make forgetting-by-disuse something an
operator runs (with a dry run first), never something that happens behind the caller's back.

The arithmetic runs inside Neo4j, in one statement (cypher/decay_memories.cypher): each
current memory's confidence is multiplied by 0.5 ** (age_days / half_life_days), where age is
the time since the memory was last read, last decayed, or else said; it never falls below the
floor. Reading a memory (Lifecycle.get) restarts its clock. Inferred LIKES fade the same way
by the time since their last evidence (cypher/decay_inferred_likes.cypher), and one that fades
below its floor is retired.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel

from service.core.domain import Scope, utcnow
from service.core.errors import ValidationError
from service.store.lifecycle_queries import LifecycleStore

DECAY_ACTOR = "decay"


class DecayReport(BaseModel):
    """How many memories lost (or, on a dry run, would lose) confidence, and the lowest
    confidence any of them ends with (null when none changes)."""

    dry_run: bool
    changed: int
    lowest_confidence: float | None = None
    half_life_days: float
    floor: float
    # Inferred LIKES (person, thing) whose confidence fell, and those of them now retired.
    preferences_faded: int = 0
    preferences_retired: int = 0


@dataclass(frozen=True)
class PreferenceFading:
    """How inferred LIKES fade once their evidence stops (Settings.inferred_like_*): halved
    every ``half_life_days`` since the last evidence, retired below ``retire_below``."""

    half_life_days: float
    retire_below: float


async def decay(
    store: LifecycleStore,
    scope: Scope,
    half_life_days: float,
    floor: float = 0.0,
    dry_run: bool = True,
    actor: str = DECAY_ACTOR,
    fading: PreferenceFading | None = None,
) -> DecayReport:
    """Lower the confidence of the scope's current memories by their time unused, and of its
    inferred LIKES by the time since their last evidence (``fading``); unless ``dry_run``,
    write the new confidences and one DECAY event per changed memory."""
    check_decay(half_life_days, floor)
    now = utcnow()
    changed, lowest = await store.decay(scope, half_life_days, floor, dry_run, actor, now)
    faded, retired = (0, 0)
    if fading is not None:
        faded, retired = await store.fade_inferred_likes(
            scope, fading.half_life_days, fading.retire_below, dry_run, now
        )
    return DecayReport(
        dry_run=dry_run,
        changed=changed,
        lowest_confidence=lowest,
        half_life_days=half_life_days,
        floor=floor,
        preferences_faded=faded,
        preferences_retired=retired,
    )


def check_decay(half_life_days: float, floor: float) -> None:
    """Refuse a half life that is not a positive number of days, or a floor outside [0, 1]."""
    if not (math.isfinite(half_life_days) and half_life_days > 0):
        raise ValidationError("halfLifeDays: must be a positive number of days")
    if not (math.isfinite(floor) and 0.0 <= floor <= 1.0):
        raise ValidationError("floor: must be between 0 and 1")
