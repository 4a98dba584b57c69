// Retriever 3: entities named in the query (full-text over entity names, inside the scope)
// -> MENTIONS -> memories (hop 1), and one more hop through entities co-mentioned with them
// (hop 2, weighted down by $hop_decay). A memory's weight from an entity falls with the
// entity's degree. Hub entities (more than $hub_limit mentions, such as the people of the
// conversation) say little about which memory is meant: they are neither entered nor walked
// through; the vector and full-text retrievers cover them.
CALL db.index.fulltext.queryNodes('entity_name', $lucene, {limit: $max_entities * 4})
  YIELD node AS e, score AS entity_score
WHERE ($user_id IS NULL OR e.user_id = $user_id)
  AND ($agent_id IS NULL OR e.agent_id = $agent_id)
  AND ($run_id IS NULL OR e.run_id = $run_id)
WITH e ORDER BY entity_score DESC LIMIT $max_entities
WITH e, COUNT { (e)<-[:MENTIONS]-() } AS degree
WHERE degree <= $hub_limit
CALL (e, degree) {
  MATCH (e)<-[:MENTIONS]-(m:Memory)
  WHERE {{memory_visible}}
  RETURN m, 1.0 / sqrt(degree) AS weight, [e.name] AS path
  UNION
  MATCH (e)<-[:MENTIONS]-(:Memory)-[:MENTIONS]->(via:Entity)<-[:MENTIONS]-(m:Memory)
  WHERE via <> e AND COUNT { (via)<-[:MENTIONS]-() } <= $hub_limit
    AND {{memory_visible}}
  RETURN m, $hop_decay / sqrt(degree) AS weight, [e.name, via.name] AS path
}
WITH m, sum(weight) AS score, collect(path) AS paths, collect(DISTINCT e.name) AS matched
ORDER BY score DESC, m.said_at DESC LIMIT $limit
RETURN collect({id: m.id, score: score, path: paths[0], matched: matched}) AS hits
