// The vector index partitions that exist, whatever the shard count they were made for.
SHOW VECTOR INDEXES YIELD name
WHERE name STARTS WITH 'memory_embedding_shard_'
RETURN name
