// Inferred LIKES (service/ingest/preferences.py): one edge per evidence memory, made where the
// pair has no current inferred edge for it, then every current inferred edge of the pair takes
// the pair's confidence (from the count of days and their spread), that confidence before any
// fading (base_confidence, what decay_inferred_likes fades), the count and the last day.
UNWIND $inferred AS row
MATCH (s:Entity {key: row.subject_key})
MATCH (t:Entity {key: row.target_key})
CALL (s, t, row) {
  UNWIND row.evidence AS ev
  MATCH (m:Memory {id: ev.memory_id})
  WHERE NOT EXISTS {
    MATCH (s)-[old:LIKES {memory_id: ev.memory_id}]->(t)
    WHERE old.inferred AND old.invalidated_at IS NULL
  }
  WITH DISTINCT s, t, row, m
  CREATE (s)-[r:LIKES {memory_id: m.id}]->(t)
  SET r.inferred = true, r.extractor = 'inferred', r.since = row.since,
      r.valid_from = m.valid_from, r.valid_to = m.valid_to
}
WITH s, t, row
MATCH (s)-[r:LIKES]->(t)
WHERE r.inferred AND r.invalidated_at IS NULL
SET r.confidence = row.confidence, r.base_confidence = row.confidence,
    r.evidence_days = row.days, r.last_evidence = row.last_day
RETURN count(r) AS inferred
