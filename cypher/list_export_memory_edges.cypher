// One page of a scope's memories, in id order after $after, with the edges that leave them for
// an export (docs/export.md): MENTIONS (to entities) and SUPERSEDES (to the memories they
// replaced). DERIVED_FROM is not listed: the memories' source_ids make it again.
MATCH (n:Memory)
WHERE {{in_scope}} AND ($after IS NULL OR n.id > $after)
WITH n
ORDER BY n.id
LIMIT $limit
CALL (n) {
  OPTIONAL MATCH (n)-[r:MENTIONS]->(e:Entity)
  WITH r, e
  ORDER BY e.key, r.start, r.end
  RETURN collect(r {memory_id: n.id, entity_key: e.key, .start, .end, .extractor, .confidence,
                    .role, .surface, .link}) AS mentions
}
CALL (n) {
  OPTIONAL MATCH (n)-[s:SUPERSEDES]->(old:Memory)
  WITH s, old
  ORDER BY old.id
  RETURN collect(s {new_id: n.id, old_id: old.id, .reason, at: toString(s.at)}) AS supersessions
}
RETURN n.id AS cursor, mentions, supersessions
