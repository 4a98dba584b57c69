// Retriever 5 (only when the query names someone who speaks in this scope): that speaker's
// visible memories ranked by exact cosine similarity to the query, so "What does Melanie do
// to relax?" weighs what Melanie said above what others said about relaxing.
MATCH (m:Memory)
WHERE m.speaker IN $speakers AND {{memory_visible}}
WITH m LIMIT $window_cap
// After the LIMIT, so that the planner cannot test this first and read the vector of every
// memory of the scope, in the window or not. Vectors of another model's size are skipped.
WITH m WHERE size(m.embedding) = size($embedding)
WITH m.id AS id, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $limit
RETURN collect({id: id, score: score}) AS hits
