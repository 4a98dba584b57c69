// The audit trail of one memory inside the caller's scope, oldest first. Events outlive their
// memory, so this answers for deleted and forgotten memories too (texts redacted by forget).
MATCH (n:MemoryEvent {memory_id: $id})
WHERE {{in_scope}}
RETURN n {.id, .op, .memory_id, .old_text, .new_text, .actor, .at, .redacted_at,
          .old_confidence, .new_confidence} AS event
ORDER BY n.at,
         CASE n.op WHEN 'ADD' THEN 0 WHEN 'UPDATE' THEN 1 WHEN 'SUPERSEDE' THEN 2
                   WHEN 'DELETE' THEN 3 ELSE 4 END,
         n.id
