// One re-embedded batch: new vector and model name. A memory whose text changed since the
// batch was read (an update re-embedded it already) is left alone.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.text = row.text
SET m.embedding = row.embedding, m.embedding_model = $model
RETURN count(m) AS written
