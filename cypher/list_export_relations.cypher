// One page of a scope's entities, in key order after $after, with the typed relations that
// leave them for an export (docs/export.md): stated ones (one edge per supporting memory),
// things done (DOES, one per memory and day) and inferred LIKES, every property of each.
MATCH (n:Entity)
WHERE {{in_scope}} AND ($after IS NULL OR n.key > $after)
WITH n
ORDER BY n.key
LIMIT $limit
CALL (n) {
  OPTIONAL MATCH (n)-[r]->(t:Entity)
  WITH r, t
  ORDER BY type(r), t.key, r.memory_id, r.day, r.invalidated_at, r.inferred
  RETURN collect(r {type: type(r), source_key: n.key, target_key: t.key, .memory_id,
                    day: toString(r.day), .confidence, .extractor,
                    valid_from: toString(r.valid_from), valid_to: toString(r.valid_to),
                    since: toString(r.since), invalidated_at: toString(r.invalidated_at),
                    .inferred, .base_confidence, .evidence_days,
                    last_evidence: toString(r.last_evidence)}) AS relations
}
RETURN n.key AS cursor, relations
