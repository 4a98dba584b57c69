// The typed relations of the scope of $types said (`since`) or retired (`invalidated_at`) in the
// window [$from, $to), one row per edge. Around $entity_key when set: relations reaching it (at
// either end), and those of the same source and type as one reaching it (what "moved to Berlin"
// replaced, for Berlin's changes). Each row carries the memories that superseded its memory (`successors`, to pair it with what replaced it),
// whether the same relation already stood when it was said (`restated`: said again, not
// begun), and its memory (superseded or not). An inferred LIKES (`inferred: true`) is one edge
// per evidence memory. Oldest first, at most $limit.
MATCH (n:Entity)-[r:{{relation_types}}]->(t:Entity)
WHERE {{in_scope}} AND type(r) IN $types
  AND ($entity_key IS NULL OR n.key = $entity_key OR t.key = $entity_key
       OR EXISTS { MATCH (n)-[o]->(:Entity {key: $entity_key}) WHERE type(o) = type(r) })
  AND ((r.since >= $from AND r.since < $to)
       OR (r.invalidated_at >= $from AND r.invalidated_at < $to))
WITH n, r, t
ORDER BY coalesce(r.invalidated_at, r.since), n.key, type(r), t.key
LIMIT $limit
RETURN type(r) AS relation, null AS slot, n.name AS subject, t.name AS value,
       t {.key, .name, .type, .aliases, mention_count: COUNT { (t)<-[:MENTIONS]-() }} AS other,
       toString(r.since) AS since, toString(r.invalidated_at) AS ended,
       coalesce(r.inferred, false) AS inferred, r.confidence AS confidence,
       [r.memory_id] AS memory_ids,
       COLLECT { MATCH (:Memory {id: r.memory_id})<-[:SUPERSEDES]-(s:Memory) RETURN s.id }
         AS successors,
       EXISTS { MATCH (n)-[e]->(t)
                WHERE type(e) = type(r) AND e.since < r.since
                  AND (e.invalidated_at IS NULL OR e.invalidated_at > r.since) } AS restated,
       COLLECT { MATCH (m:Memory {id: r.memory_id}) WHERE {{memory_in_scope}}
                 RETURN {{memory_fields}} } AS memories
