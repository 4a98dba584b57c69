// Inferred LIKES fade once their evidence stops: each current inferred edge of the scope takes
// confidence = base_confidence x 0.5 ^ (days since the pair's last evidence / $half_life_days),
// computed from the confidence at inference (base_confidence), so repeated runs do not compound;
// one that falls below $retire_below is retired (invalidated_at, kept for asOf). New evidence
// infers it again (merge_inferred_likes). With $dry_run nothing is written; the same statement
// counts. Counted by (person, thing) pair.
MATCH (n:Entity)-[r:LIKES]->(t:Entity)
WHERE {{in_scope}} AND r.inferred AND r.invalidated_at IS NULL AND r.last_evidence IS NOT NULL
WITH n, t, r, duration.inDays(r.last_evidence, date(datetime($now))).days AS age
WITH n, t, r, r.base_confidence * 0.5 ^ (age / $half_life_days) AS faded
WITH n, t, r, faded, faded < $retire_below AS retired
WHERE faded < r.confidence OR retired
FOREACH (_ IN CASE WHEN $dry_run THEN [] ELSE [1] END |
  SET r.confidence = faded,
      r.invalidated_at = CASE WHEN retired THEN datetime($now) ELSE null END
)
RETURN count(DISTINCT n.key + '|' + t.key) AS faded,
       count(DISTINCT CASE WHEN retired THEN n.key + '|' + t.key END) AS retired
