// One page of a scope's memories for an export (docs/export.md): in id order, after $after,
// with every property the store keeps, vectors included. Times travel as ISO 8601 text.
MATCH (n:Memory)
WHERE {{in_scope}} AND ($after IS NULL OR n.id > $after)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN n {.id, .text, .source_text, .hash, .speaker, .lang, .confidence,
          said_at: toString(n.said_at), created_at: toString(n.created_at),
          updated_at: toString(n.updated_at), valid_from: toString(n.valid_from),
          valid_to: toString(n.valid_to), happened_start: toString(n.happened_start),
          happened_end: toString(n.happened_end), .time_granularity, .time_expressions,
          invalidated_at: toString(n.invalidated_at), .subject, .slot, .slot_value,
          .context_texts, .context_text, .source_ids, .access_count,
          last_accessed_at: toString(n.last_accessed_at), decayed_at: toString(n.decayed_at),
          .linker_version, .embedding_model, .embedding, .content_embedding,
          .user_id, .agent_id, .run_id} AS record
