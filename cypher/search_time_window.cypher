// Retriever 4 (only with a time window): every visible memory in the window, ranked by exact
// cosine similarity to the query, so a question about "last month" is not left to the top-k of
// the whole history. Bounded by $window_cap memories.
MATCH (m:Memory)
WHERE {{memory_visible}}
WITH m LIMIT $window_cap
RETURN m.id AS id, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $limit
