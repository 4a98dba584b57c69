// Retriever 2: Lucene BM25 over memory text; $lucene is already escaped by the caller.
// $text_index is the global index or the caller's user's partition (store/index_shards.py).
CALL db.index.fulltext.queryNodes($text_index, $lucene, {limit: $fetch_k}) YIELD node AS m, score
WHERE {{memory_visible}}
WITH m, score ORDER BY score DESC LIMIT $limit
RETURN collect({id: m.id, score: score}) AS hits
