// Embeddings of candidate memories (for diversity re-ranking), still filtered for the reader.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE {{memory_visible}}
RETURN m.id AS id, m.embedding AS embedding
