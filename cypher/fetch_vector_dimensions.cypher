// The configured size of the memory vector index (no row when the index does not exist).
SHOW VECTOR INDEXES YIELD name, options
WHERE name = 'memory_embedding'
RETURN options.indexConfig['vector.dimensions'] AS dimensions
