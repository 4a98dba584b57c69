// One page of a scope's messages for an export (docs/export.md): in id order, after $after.
// Times travel as ISO 8601 text (the record models parse them).
MATCH (n:Message)
WHERE {{in_scope}} AND ($after IS NULL OR n.id > $after)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN n {.id, .text, .role, .speaker, said_at: toString(n.said_at), .session_id, .external_id,
          created_at: toString(n.created_at), .user_id, .agent_id, .run_id} AS record
