// The memories that mention one entity, newest first: current ones, or those standing at $as_of.
MATCH (n:Entity {key: $key})
WHERE {{in_scope}}
MATCH (n)<-[:MENTIONS]-(m:Memory)
WHERE {{memory_visible}}
WITH DISTINCT m
ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
LIMIT $limit
RETURN m {.*, embedding: null} AS memory
