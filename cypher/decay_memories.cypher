// Decay by disuse: each current memory of the scope loses confidence with the time since it was
// last used, new = confidence * 0.5 ^ (age_days / $half_life_days), never below $floor (a memory
// already at or under the floor is left alone). Age runs from the latest of last_accessed_at
// (touch_memory), decayed_at (the previous decay, so that repeated runs compound to what one run
// over the whole span gives instead of charging the same days twice) and said_at (else
// created_at). Whole seconds: a memory read this second does not change.
// With $dry_run nothing is written; the same statement counts, so a dry run's count is the
// real run's. The real run leaves one DECAY event per changed memory with both confidences: the
// memory's history then says why its confidence fell (and why eviction took it), which one
// summary event per scope could not; memories at the floor stop changing, so stop adding events.
MATCH (n:Memory)
WHERE {{in_scope}} AND n.invalidated_at IS NULL AND n.confidence > $floor
WITH n, reduce(since = coalesce(n.said_at, n.created_at), t IN [n.last_accessed_at, n.decayed_at] |
               CASE WHEN t > since THEN t ELSE since END) AS since
WITH n, duration.inSeconds(since, datetime($now)).seconds / 86400.0 AS age_days
WHERE age_days > 0
WITH n, n.confidence AS old, n.confidence * 0.5 ^ (age_days / $half_life_days) AS decayed
WITH n, old, CASE WHEN decayed < $floor THEN $floor ELSE decayed END AS new
WHERE new < old
FOREACH (_ IN CASE WHEN $dry_run THEN [] ELSE [1] END |
  SET n.confidence = new, n.decayed_at = datetime($now)
  CREATE (ev:MemoryEvent {id: randomUUID(), op: 'DECAY', memory_id: n.id, old_text: null,
                          new_text: null, old_confidence: old, new_confidence: new,
                          actor: $actor, at: datetime($now)})
  SET ev.user_id = n.user_id, ev.agent_id = n.agent_id, ev.run_id = n.run_id
)
RETURN count(n) AS changed, min(new) AS lowest
