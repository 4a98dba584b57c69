// Every current memory of one scope with its embedding: what a client-side ranker reads to
// score a query by brute-force cosine (bench.scale's baseline; Graphiti ranks this way).
MATCH (n:Memory)
WHERE {{in_scope}}
  AND n.invalidated_at IS NULL
RETURN n.id AS id, n.embedding AS embedding
