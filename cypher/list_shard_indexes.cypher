// The partitions' indexes that exist, whatever shard count they were made for.
SHOW INDEXES YIELD name
WHERE name STARTS WITH 'memory_embedding_shard_' OR name STARTS WITH 'memory_text_shard_'
RETURN name
