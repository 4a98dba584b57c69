// One page of the scope's read events, newest first (id breaks ties), with the total; $after_at
// and $after_id come from the previous page's cursor (both null on the first page).
CALL () {
  MATCH (n:ReadEvent)
  WHERE {{in_scope}}
  RETURN count(n) AS total
}
CALL () {
  MATCH (n:ReadEvent)
  WHERE {{in_scope}}
    AND ($after_at IS NULL OR n.at < $after_at OR (n.at = $after_at AND n.id < $after_id))
  WITH n
  ORDER BY n.at DESC, n.id DESC
  LIMIT $limit
  RETURN collect(n {.id, .operation, .actor, .user_id, .agent_id, .run_id, .query_hash,
                    .result_count, .at}) AS rows
}
RETURN total, rows
