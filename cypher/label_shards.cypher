// Give every memory of these users its partition's label and no other (label null: none).
// Memories already labelled so are read, not written.
UNWIND $users AS u
MATCH (m:Memory {user_id: u.user_id})
WITH m, u, [l IN labels(m) WHERE l STARTS WITH 'MemoryShard_' AND l <> coalesce(u.label, '')] AS stale
WHERE stale <> [] OR (u.label IS NOT NULL AND NOT u.label IN labels(m))
FOREACH (l IN stale | REMOVE m:$(l))
FOREACH (l IN CASE WHEN u.label IS NULL THEN [] ELSE [u.label] END | SET m:$(l))
RETURN count(m) AS relabelled
