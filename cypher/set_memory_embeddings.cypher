// One re-embedded batch: new vector and model name. A memory whose text changed since the
// batch was read (an update re-embedded it already) is left alone.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.text = row.text
SET m.embedding_model = $model, m.content_embedding = null
// As 32-bit floats (cypher/merge_memories.cypher); the own vector only where a context made
// it differ.
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
WITH m, row
CALL (m, row) {
  WITH m, row
  WHERE row.content_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'content_embedding', row.content_embedding)
}
RETURN count(m) AS written
