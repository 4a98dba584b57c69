// Drop a partition the shard count no longer has (both its indexes). {shard}: a checked integer.
DROP INDEX memory_embedding_shard_{shard} IF EXISTS;
DROP INDEX memory_text_shard_{shard} IF EXISTS;
