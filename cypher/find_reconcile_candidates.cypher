// For each candidate fact: an existing memory with the same hash, the nearest current memory
// above the similarity threshold, and the current memories holding the same subject + slot.
// All inside the caller's scope; slot holders inside the caller's user, across its agents and
// runs, so that two agents writing for one user are arbitrated.
UNWIND $candidates AS c
OPTIONAL CALL (c) {
  MATCH (same:Memory {hash: c.hash})
  WHERE ($user_id IS NULL OR same.user_id = $user_id)
    AND ($agent_id IS NULL OR same.agent_id = $agent_id)
    AND ($run_id IS NULL OR same.run_id = $run_id)
  RETURN same.id AS same_id
  LIMIT 1
}
OPTIONAL CALL (c) {
  WITH c WHERE $near_duplicates  // false while the vector index is missing or being rebuilt
  CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, c.embedding) YIELD node, score
  WHERE score >= $threshold
    AND ($user_id IS NULL OR node.user_id = $user_id)
    AND ($agent_id IS NULL OR node.agent_id = $agent_id)
    AND ($run_id IS NULL OR node.run_id = $run_id)
    AND node.invalidated_at IS NULL
  RETURN node.id AS near_id, node.text AS near_text, score AS near_score
  ORDER BY score DESC
  LIMIT 1
}
OPTIONAL CALL (c) {
  WITH c WHERE c.slot IS NOT NULL
  MATCH (old:Memory {slot: c.slot, subject: c.subject})
  WHERE old.invalidated_at IS NULL
    AND CASE WHEN $user_id IS NOT NULL THEN old.user_id = $user_id
             ELSE ($agent_id IS NULL OR old.agent_id = $agent_id)
                  AND ($run_id IS NULL OR old.run_id = $run_id) END
  RETURN collect(old {.id, .slot_value, .said_at, .agent_id, .confidence}) AS holders
}
RETURN c.key AS key, same_id, near_id, near_text, near_score, holders
