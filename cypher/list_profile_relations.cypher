// The typed relations behind an entity's profile, one row per edge (one supporting memory):
// those of $types leaving the entity, and those of $mutual types (FAMILY_OF, FRIEND_OF)
// arriving at it. Current ones, or those standing at $as_of, as {{relation_visible}} and
// {{memory_visible}} read them. An inferred LIKES (`inferred: true`) is one edge per evidence
// memory, as a stated relation is one per stating memory; a missing `inferred` is a statement.
// Newest first, at most $limit.
MATCH (n:Entity {key: $key})
WHERE {{in_scope}}
MATCH (n)-[r:{{relation_types}}]-(other:Entity)
WHERE type(r) IN $types
  AND (startNode(r) = n OR type(r) IN $mutual)
  AND {{relation_visible}}
MATCH (m:Memory {id: r.memory_id})
WHERE {{memory_visible}}
WITH n, r, other, m
ORDER BY r.since DESC, other.key, m.id
LIMIT $limit
RETURN type(r) AS relation, null AS slot, n.name AS subject, other.name AS value,
       other {.key, .name, .type, .aliases, mention_count: COUNT { (other)<-[:MENTIONS]-() }}
         AS other,
       toString(r.since) AS since, toString(r.invalidated_at) AS ended,
       coalesce(r.inferred, false) AS inferred, r.confidence AS confidence,
       [m.id] AS memory_ids, [] AS successors, false AS restated, [{{memory_fields}}] AS memories
