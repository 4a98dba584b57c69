// One page of a scope's read-audit events for an export (docs/export.md): in id order, after
// $after.
MATCH (n:ReadEvent)
WHERE {{in_scope}} AND ($after IS NULL OR n.id > $after)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN n {.id, .operation, .actor, .query_hash, .result_count, at: toString(n.at),
          .user_id, .agent_id, .run_id} AS record
