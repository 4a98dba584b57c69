// One page of a scope's entities for an export (docs/export.md): in key order, after $after.
// aliases_text is left out: it is made from the aliases again on import.
MATCH (n:Entity)
WHERE {{in_scope}} AND ($after IS NULL OR n.key > $after)
WITH n
ORDER BY n.key
LIMIT $limit
RETURN n {.key, .name, .type, .type_confidence, .type_votes, .label_votes, .aliases,
          .alias_keys, first_seen: toString(n.first_seen), last_seen: toString(n.last_seen),
          .user_id, .agent_id, .run_id} AS record
