// Retriever 2: Lucene BM25 over memory text; $lucene is already escaped by the caller.
CALL db.index.fulltext.queryNodes('memory_text', $lucene, {limit: $fetch_k}) YIELD node AS m, score
WHERE {{memory_visible}}
RETURN m.id AS id, score
ORDER BY score DESC
LIMIT $limit
