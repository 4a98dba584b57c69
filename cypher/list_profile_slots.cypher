// The slot memories behind an entity's profile ("lives_in", "job", "favourite_book" …;
// nlp_models/slots.jsonl): memories that mention the entity and set a slot of a subject named
// as it is ($subjects: its name and aliases). Current ones, or those standing at $as_of
// ({{memory_visible}}). Newest first, at most $limit.
MATCH (n:Entity {key: $key})
WHERE {{in_scope}}
MATCH (n)<-[:MENTIONS]-(m:Memory)
WHERE m.slot IS NOT NULL AND m.subject IN $subjects AND {{memory_visible}}
WITH DISTINCT n, m
ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
LIMIT $limit
RETURN null AS relation, m.slot AS slot, n.name AS subject, m.slot_value AS value,
       null AS other, toString(coalesce(m.said_at, m.created_at)) AS since,
       toString(m.invalidated_at) AS ended, false AS inferred, m.confidence AS confidence,
       [m.id] AS memory_ids, [] AS successors, false AS restated, [{{memory_fields}}] AS memories
