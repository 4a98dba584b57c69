// One page of the scope's typed relations, one row per (source, type, target) however many
// memories support it: the earliest valid_from, the latest valid_to, the best confidence and
// up to $per_relation supporting memories, newest first; inferred when every edge is (an
// inferred LIKES, service/ingest/preferences.py; a family tie, family.py), with the memories
// of its inferred edges as evidence. Current relations of current memories,
// or those standing at $as_of. $types (null: all), $entity_key with $direction ('OUT': it is
// the source, 'IN': the target, 'BOTH') narrow it. Keyset-paged on source key, type, target key.
CALL () {
  MATCH (n:Entity)-[r:{{relation_types}}]->(t:Entity)
  WHERE {{in_scope}} AND {{relation_visible}}
    AND ($types IS NULL OR type(r) IN $types)
    AND ($entity_key IS NULL
         OR ($direction <> 'IN' AND n.key = $entity_key)
         OR ($direction <> 'OUT' AND t.key = $entity_key))
    AND EXISTS { MATCH (m:Memory {id: r.memory_id}) WHERE {{memory_visible}} }
  WITH DISTINCT n, type(r) AS type, t
  RETURN count(*) AS total
}
CALL () {
  MATCH (n:Entity)-[r:{{relation_types}}]->(t:Entity)
  WHERE {{in_scope}} AND {{relation_visible}}
    AND ($types IS NULL OR type(r) IN $types)
    AND ($entity_key IS NULL
         OR ($direction <> 'IN' AND n.key = $entity_key)
         OR ($direction <> 'OUT' AND t.key = $entity_key))
  MATCH (m:Memory {id: r.memory_id})
  WHERE {{memory_visible}}
  WITH n, type(r) AS type, t, r, m, n.key + '\u001f' + type(r) + '\u001f' + t.key AS id
  WHERE $after IS NULL OR id > $after
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  WITH n, type, t, id, min(r.valid_from) AS valid_from, max(r.valid_to) AS valid_to,
       max(r.confidence) AS confidence, collect(DISTINCT {{memory_fields}})[..$per_relation] AS memories,
       all(i IN collect(coalesce(r.inferred, false)) WHERE i) AS inferred,
       collect(DISTINCT CASE WHEN r.inferred THEN {{memory_fields}} END)[..$per_relation] AS evidence
  ORDER BY id
  LIMIT $limit
  RETURN collect({
    id: id, type: type, valid_from: toString(valid_from), valid_to: toString(valid_to),
    confidence: confidence, memories: memories, inferred: inferred, evidence: evidence,
    source: n {.key, .name, .type, .aliases, mention_count: COUNT { (n)<-[:MENTIONS]-() }},
    target: t {.key, .name, .type, .aliases, mention_count: COUNT { (t)<-[:MENTIONS]-() }}
  }) AS rows
}
RETURN total, rows
