// A Memory node as the API reads it: the fields of service.domain.StoredMemory, and not the
// embedding (384 floats that no reader of hits or pages needs). Included as {{memory_fields}};
// the node variable is `m`.
m {.id, .text, .source_text, .speaker, .user_id, .agent_id, .run_id, .said_at, .created_at,
   .valid_from, .valid_to, .invalidated_at, .time_granularity, .confidence, .lang, .source_ids}
