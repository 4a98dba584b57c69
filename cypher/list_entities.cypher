// One dashboard page of entities (with how many memories mention each) and the size of the
// whole filtered set. Markers as in list_memories, filled only by service.retrieval.filters.
CALL () {
  MATCH (n:Entity)
  WHERE {{in_scope}}
  WITH n AS e
  WHERE true /*where*/
  RETURN count(e) AS total
}
CALL () {
  MATCH (n:Entity)
  WHERE {{in_scope}}
  WITH n AS e
  WHERE true /*where*/
  WITH e, COUNT { (e)<-[:MENTIONS]-(:Memory) } AS mention_count
  WITH e, mention_count, /*keys*/ AS sort_key
  WHERE true /*after*/
  WITH e, mention_count, sort_key
  ORDER BY /*order*/
  LIMIT $limit
  RETURN collect({
    node: e {.key, .name, .type, .aliases, .first_seen, .last_seen, mention_count: mention_count},
    sort_key: sort_key, id: e.key
  }) AS rows
}
RETURN total, rows
