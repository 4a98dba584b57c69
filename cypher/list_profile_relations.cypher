// The typed relations behind an entity's profile, one row per edge (a supporting memory, or an
// inferred relation with its evidence): those of $types leaving the entity, and those of $mutual
// types (FAMILY_OF, FRIEND_OF) arriving at it. Current ones, or those standing at $as_of, as
// {{relation_visible}} and {{memory_visible}} read them. The evidence is the edge's memory and,
// for an inferred relation (`inferred: true`, no single memory), its `evidence_ids`: those
// visible too. A missing `inferred` is an explicit statement. Newest first, at most $limit.
MATCH (n:Entity {key: $key})
WHERE {{in_scope}}
MATCH (n)-[r:{{relation_types}}]-(other:Entity)
WHERE type(r) IN $types
  AND (startNode(r) = n OR type(r) IN $mutual)
  AND {{relation_visible}}
  AND (r.memory_id IS NULL OR EXISTS { MATCH (m:Memory {id: r.memory_id}) WHERE {{memory_visible}} })
WITH n, r, other, [i IN [r.memory_id] + coalesce(r.evidence_ids, []) WHERE i IS NOT NULL] AS ids
WITH n, r, other, ids,
     COLLECT { MATCH (m:Memory) WHERE m.id IN ids AND {{memory_visible}}
               WITH m ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
               RETURN {{memory_fields}} } AS memories
WHERE size(memories) > 0
ORDER BY r.since DESC, other.key
LIMIT $limit
RETURN type(r) AS relation, null AS slot, n.name AS subject, other.name AS value,
       other {.key, .name, .type, .aliases, mention_count: COUNT { (other)<-[:MENTIONS]-() }}
         AS other,
       toString(r.since) AS since, toString(r.invalidated_at) AS ended,
       coalesce(r.inferred, false) AS inferred, r.confidence AS confidence, ids AS memory_ids,
       [] AS successors, false AS restated, memories
