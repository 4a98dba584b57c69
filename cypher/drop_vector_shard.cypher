// Drop a vector index partition that the shard count no longer has, or before a rebuild for
// another vector size (engram reembed). {shard} is a checked integer.
DROP INDEX memory_embedding_shard_{shard} IF EXISTS
