// A memory whose vector was not made by the current embedding model ($model, $dimensions):
// another model's name (or none recorded), or a vector of another size. Included as
// {{memory_stale}}; the node variable is `m`.
coalesce(m.embedding_model, '') <> $model OR coalesce(size(m.embedding), -1) <> $dimensions
