// Retriever 4 (with a time window): every visible memory in the window, ranked by exact cosine
// similarity to the query, so a question about "last month" is not left to the top-k of the
// whole history. Without a window it is the exact ranking of a scope (retrieval.hybrid.
// embedding_route), or the vector retriever's fallback for a scope the index's top-k starved.
// Bounded by $window_cap memories. A cosine costs ~25 µs, most of it reading the vector.
MATCH (m:Memory)
WHERE {{memory_visible}}
WITH m LIMIT $window_cap
// After the LIMIT, so that the planner cannot test this first and read the vector of every
// memory of the scope, in the window or not. Vectors of another model's size are skipped.
WITH m WHERE size(m.embedding) = size($embedding)
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score ORDER BY score DESC
{{ranked_hits}}
