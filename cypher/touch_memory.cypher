// Read one memory by id inside the caller's scope and count the read: access_count and
// last_accessed_at are what eviction by access count looks at.
MATCH (n:Memory {id: $id})
WHERE {{in_scope}}
SET n.access_count = coalesce(n.access_count, 0) + 1, n.last_accessed_at = datetime($now)
RETURN n {.*, embedding: null, content_embedding: null} AS memory
