// The memories that mention each of several entities (one request's DataLoader batch), newest
// first: current ones, or those standing at $as_of; at most $limit per entity.
UNWIND $keys AS key
MATCH (n:Entity {key: key})
WHERE {{in_scope}}
CALL (n) {
  MATCH (n)<-[:MENTIONS]-(m:Memory)
  WHERE {{memory_visible}}
  WITH DISTINCT m
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $limit
  RETURN collect({{memory_fields}}) AS memories
}
RETURN key, memories
