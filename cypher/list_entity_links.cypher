// How some entities of one scope ($keys: a dashboard page of them) are linked to each other:
// each typed relation between two of them that stands (current, or at $as_of), source to
// target as stated, and each pair that visible memories mention together (kind
// MENTIONED_WITH, the lower key as source), with the number of memories behind it. Most
// supported first. At most one row per (source, kind, target): |$keys| bounds the answer.
MATCH (n:Entity)
WHERE n.key IN $keys AND {{in_scope}}
CALL (n) {
  MATCH (n)-[r:{{relation_types}}]->(t:Entity)
  WHERE t.key IN $keys AND {{relation_visible}}
  MATCH (m:Memory {id: r.memory_id})
  WHERE {{memory_visible}}
  RETURN t, type(r) AS kind, count(DISTINCT m) AS support
  UNION
  MATCH (n)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(t:Entity)
  WHERE t.key IN $keys AND n.key < t.key AND {{memory_visible}}
  RETURN t, 'MENTIONED_WITH' AS kind, count(DISTINCT m) AS support
}
RETURN n {.key, .name, .type, .aliases, .first_seen, .last_seen,
          mention_count: COUNT { (n)<-[:MENTIONS]-() }} AS source,
       t {.key, .name, .type, .aliases, .first_seen, .last_seen,
          mention_count: COUNT { (t)<-[:MENTIONS]-() }} AS target,
       kind, support
ORDER BY support DESC, source.key, kind, target.key
