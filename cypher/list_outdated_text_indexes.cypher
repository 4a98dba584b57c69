// Memory full-text indexes (the global one and the partitions') made before context_text was
// indexed: apply_schema drops them, and the schema creates them again with it.
SHOW FULLTEXT INDEXES YIELD name, properties
WHERE (name = 'memory_text' OR name STARTS WITH 'memory_text_shard_')
  AND NOT 'context_text' IN properties
RETURN name
