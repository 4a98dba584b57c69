// Drop a partition's vector index before it is rebuilt for another vector size (engram
// reembed); schema_shard.cypher creates it again. {shard} is a checked integer.
DROP INDEX memory_embedding_shard_{shard} IF EXISTS
