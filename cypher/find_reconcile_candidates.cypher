// For each candidate fact: an existing memory with the same hash, the current memories above
// the similarity threshold (the caller picks the nearest whose words are alike too), and the
// current memories holding the same subject + slot.
// Near-duplicates are judged on what the texts say: c.embedding is the candidate's own vector,
// compared with a memory's content_embedding where its context made its indexed vector differ.
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
// The index's top-k is global: when even its k-th neighbour is at the threshold (other scopes
// say the same), a near-duplicate of this scope may lie further down, and `crowded` tells the
// caller to look again (Memory._reconcile). $vector_index: the global index or the user's
// partition (service/store/index_shards.py).
OPTIONAL CALL (c) {
  WITH c WHERE $near_duplicates  // false while the vector index is missing or being rebuilt
  CALL db.index.vector.queryNodes($vector_index, $fetch_k, c.embedding) YIELD node, score
  WITH collect({node: node, score: score}) AS hits
  WITH c, hits, size(hits) = $fetch_k AND hits[-1].score >= $threshold AS crowded
  WITH crowded, [h IN hits WHERE ($user_id IS NULL OR h.node.user_id = $user_id)
          AND ($agent_id IS NULL OR h.node.agent_id = $agent_id)
          AND ($run_id IS NULL OR h.node.run_id = $run_id)
          AND h.node.invalidated_at IS NULL
        | {node: h.node, score: CASE WHEN h.node.content_embedding IS NULL THEN h.score
             ELSE vector.similarity.cosine(c.embedding, h.node.content_embedding) END}] AS seen
  RETURN [h IN seen WHERE h.score >= $threshold
          | {id: h.node.id, text: h.node.text, score: h.score}] AS nears, crowded
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
RETURN c.key AS key, same_id, nears, crowded, holders
