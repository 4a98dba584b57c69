// The slot memories of the scope said or superseded (`invalidated_at`) in the window
// [$from, $to), of the subjects named in $subjects (null: any). Each row carries the memories
// that superseded it (`successors`) and whether the same value already stood for the subject
// when it was said (`restated`: said again, not begun; values compared trimmed and lowercase).
// Oldest first, at most $limit.
MATCH (m:Memory)
WHERE m.slot IS NOT NULL AND {{memory_in_scope}}
  AND ($subjects IS NULL OR m.subject IN $subjects)
  AND ((coalesce(m.said_at, m.created_at) >= $from AND coalesce(m.said_at, m.created_at) < $to)
       OR (m.invalidated_at >= $from AND m.invalidated_at < $to))
WITH m
ORDER BY coalesce(m.invalidated_at, m.said_at, m.created_at), m.id
LIMIT $limit
RETURN null AS relation, m.slot AS slot, m.subject AS subject, m.slot_value AS value,
       null AS other, toString(coalesce(m.said_at, m.created_at)) AS since,
       toString(m.invalidated_at) AS ended, false AS inferred, m.confidence AS confidence,
       [m.id] AS memory_ids,
       COLLECT { MATCH (m)<-[:SUPERSEDES]-(s:Memory) RETURN s.id } AS successors,
       EXISTS { MATCH (e:Memory {slot: m.slot, subject: m.subject})
                WHERE coalesce(e.user_id, '') = coalesce(m.user_id, '')
                  AND coalesce(e.agent_id, '') = coalesce(m.agent_id, '')
                  AND coalesce(e.run_id, '') = coalesce(m.run_id, '')
                  AND toLower(trim(e.slot_value)) = toLower(trim(m.slot_value))
                  AND coalesce(e.said_at, e.created_at) < coalesce(m.said_at, m.created_at)
                  AND (e.invalidated_at IS NULL
                       OR e.invalidated_at > coalesce(m.said_at, m.created_at)) } AS restated,
       [{{memory_fields}}] AS memories
