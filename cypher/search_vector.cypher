// Nearest memories by embedding, over-fetched so that a small scope among many is not starved,
// then restricted to the caller's scope and to current facts.
CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, $embedding) YIELD node, score
WHERE ($user_id IS NULL OR node.user_id = $user_id)
  AND ($agent_id IS NULL OR node.agent_id = $agent_id)
  AND ($run_id IS NULL OR node.run_id = $run_id)
  AND node.invalidated_at IS NULL
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $limit
