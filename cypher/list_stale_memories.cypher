// The next batch of memories to re-embed, after id $after (keyset pagination on the unique
// Memory.id index, so a run can stop and resume anywhere).
MATCH (m:Memory)
WHERE m.id > $after AND {{memory_stale}}
RETURN m.id AS id, m.text AS text, m.context_texts AS context_texts
ORDER BY m.id
LIMIT $limit
