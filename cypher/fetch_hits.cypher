// Load fused hits that no retriever loaded with its answer, still filtered for the reader.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE {{memory_visible}}
// One row holding every hit: the driver's cost is per row (GraphStore.retrieve).
RETURN collect({{memory_hit}}) AS hits
