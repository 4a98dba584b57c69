// One re-embedded batch: new vector and model name. A memory whose text changed since the
// batch was read (an update re-embedded it already) is left alone.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.text = row.text
SET m.embedding_model = $model
// As 32-bit floats (cypher/merge_memories.cypher).
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS written
