// The start-up check: memories whose vector another model made (or that name none). Cheap on a
// large store: the total comes from the count store and the current model's memories from the
// memory_embedding_model index, without reading a vector. Vectors of the right model but of
// another size are counted only by count_stale_memories (`engram reembed`).
CALL () { MATCH (every:Memory) RETURN count(every) AS total }
RETURN total - COUNT { MATCH (m:Memory) WHERE m.embedding_model = $model } AS stale
