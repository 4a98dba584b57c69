// Retriever 1: nearest memories by embedding, over-fetched so that a small scope among many is
// not starved, then filtered to what the caller may see. $vector_index is the global index or
// the caller's user's partition (service/store/index_shards.py).
CALL db.index.vector.queryNodes($vector_index, $fetch_k, $embedding) YIELD node AS m, score
WHERE {{memory_visible}}
WITH m, score ORDER BY score DESC
{{ranked_hits}}
