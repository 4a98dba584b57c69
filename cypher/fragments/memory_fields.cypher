// A Memory node as the API reads it: the fields of service.core.domain.StoredMemory, and not the
// embedding (384 floats that no reader of hits or pages needs). Included as {{memory_fields}};
// the node variable is `m`. Times travel as ISO 8601 text, which StoredMemory parses: the
// Python driver builds a DateTime struct per value (~60 µs each, 5 per memory).
m {.id, .text, .source_text, .speaker, .user_id, .agent_id, .run_id,
   said_at: toString(m.said_at), created_at: toString(m.created_at),
   valid_from: toString(m.valid_from), valid_to: toString(m.valid_to),
   invalidated_at: toString(m.invalidated_at),
   .time_granularity, .confidence, .lang, .source_ids}
