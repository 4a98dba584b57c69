// One page of a scope's memory events (its audit trail, deleted memories' included) for an
// export (docs/export.md): in id order, after $after.
MATCH (n:MemoryEvent)
WHERE {{in_scope}} AND ($after IS NULL OR n.id > $after)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN n {.id, .op, .memory_id, .old_text, .new_text, .actor, at: toString(n.at),
          redacted_at: toString(n.redacted_at), .old_confidence, .new_confidence,
          .user_id, .agent_id, .run_id} AS record
