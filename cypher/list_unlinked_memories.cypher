// The next batch of memories to relink, after id $after (keyset pagination on the unique
// Memory.id index, so a run can stop and resume anywhere): what their entities and relations
// are read from again.
MATCH (m:Memory)
WHERE m.id > $after AND (m.linker_version IS NULL OR m.linker_version <> $version)
RETURN m.id AS id, coalesce(m.source_text, m.text) AS text, m.speaker AS speaker,
       coalesce(m.said_at, m.created_at) AS said_at, m.user_id AS user_id,
       m.agent_id AS agent_id, m.run_id AS run_id, m.confidence AS confidence
ORDER BY m.id
LIMIT $limit
