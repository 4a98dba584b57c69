// Retrievers 2 and 3 in one statement, asked while the query is embedded (retrieval/hybrid.py):
// one round trip and one server thread, where two queries cost the driver's and the server's
// per-query work twice and took a core from the embedding.
//
// Full-text: Lucene BM25 over memory text; $memory_lucene is already escaped by the caller.
// $text_index is the global index or the caller's user's partition (store/index_shards.py).
CALL () {
  CALL db.index.fulltext.queryNodes($text_index, $memory_lucene, {limit: $text_fetch_k})
    YIELD node AS m, score
  WHERE {{memory_visible}}
  WITH m, score ORDER BY score DESC LIMIT $limit
  RETURN collect({m: m, score: score}) AS fulltext
}
// Graph: entities named in the query (full-text over entity names, inside the scope)
// -> MENTIONS -> memories (hop 1), and one more hop through entities co-mentioned with them
// (hop 2, weighted down by $hop_decay). A memory's weight from an entity falls with the
// entity's degree. Hub entities (more than $hub_limit mentions, such as the people of the
// conversation) say little about which memory is meant: they are neither entered nor walked
// through by co-mention; the vector and full-text retrievers cover them.
// Typed relations of the kinds the question asks about ($relations.types: "works for", "based
// in") are followed from every named entity, hubs included, one or two steps (Alice
// -WORKS_AT-> Acme -LOCATED_IN-> Toronto): the memories that state them answer it.
CALL () {
  CALL db.index.fulltext.queryNodes('entity_name', $entity_lucene, {limit: $max_entities * 4})
    YIELD node AS e, score AS entity_score
  WHERE ($user_id IS NULL OR e.user_id = $user_id)
    AND ($agent_id IS NULL OR e.agent_id = $agent_id)
    AND ($run_id IS NULL OR e.run_id = $run_id)
  WITH e ORDER BY entity_score DESC LIMIT $max_entities
  WITH e, COUNT { (e)<-[:MENTIONS]-() } AS degree
  CALL (e, degree) {
    WITH e, degree WHERE degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(m:Memory)
    WHERE {{memory_visible}}
    RETURN m, 1.0 / sqrt(degree) AS weight, [e.name] AS path
    UNION
    WITH e, degree WHERE degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(:Memory)-[:MENTIONS]->(via:Entity)<-[:MENTIONS]-(m:Memory)
    WHERE via <> e AND COUNT { (via)<-[:MENTIONS]-() } <= $hub_limit
      AND {{memory_visible}}
    RETURN m, $hop_decay / sqrt(degree) AS weight, [e.name, via.name] AS path
    UNION
    WITH e WHERE size($relations.types) > 0
    MATCH (e)-[r:{{relation_types}}]-(x:Entity)
    WHERE type(r) IN $relations.types AND {{relation_visible}}
    MATCH (m:Memory {id: r.memory_id})
    WHERE {{memory_visible}}
    RETURN m, 1.0 AS weight, [e.name, type(r), x.name] AS path
    UNION
    WITH e WHERE size($relations.types) > 1
    MATCH (e)-[first:{{relation_types}}]-(x:Entity)-[r:{{relation_types}}]-(y:Entity)
    WHERE type(first) IN $relations.types AND type(r) IN $relations.types AND y <> e
      AND type(r) <> type(first) AND first.invalidated_at IS NULL AND {{relation_visible}}
    MATCH (m:Memory {id: r.memory_id})
    WHERE {{memory_visible}}
    RETURN m, $hop_decay AS weight, [e.name, type(first), x.name, type(r), y.name] AS path
  }
  WITH m, sum(weight) AS score, collect(path) AS paths, collect(DISTINCT e.name) AS matched
  ORDER BY score DESC, m.said_at DESC LIMIT $limit
  RETURN collect({m: m, score: score, path: paths[0], matched: matched}) AS graph
}
// The hits fusion can keep from these two lists come loaded ({{memory_hit}}): each list's
// first $preload, and every memory both lists hold (a memory found by one list only, below
// its first $preload, is outranked by those $preload). A memory both hold is loaded once,
// with the full-text row.
WITH fulltext, graph, [r IN graph | r.m] AS graph_nodes, [r IN fulltext | r.m] AS text_nodes
CALL (fulltext, graph_nodes) {
  UNWIND range(0, size(fulltext) - 1) AS i
  WITH fulltext[i].m AS m, fulltext[i].score AS score, i
  RETURN collect({id: m.id, score: score,
                  hit: CASE WHEN i < $preload OR m IN graph_nodes THEN {{memory_hit}} END})
    AS fulltext_hits
}
CALL (graph, text_nodes) {
  UNWIND range(0, size(graph) - 1) AS i
  WITH graph[i].m AS m, graph[i] AS row, i
  RETURN collect({id: m.id, score: row.score, path: row.path, matched: row.matched,
                  hit: CASE WHEN i < $preload AND NOT m IN text_nodes THEN {{memory_hit}} END})
    AS graph_hits
}
// One row holding both lists: the driver's cost is per row (GraphStore.retrieve).
RETURN fulltext_hits AS fulltext, graph_hits AS graph
