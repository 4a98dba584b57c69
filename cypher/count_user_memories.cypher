// How many memories have a user (through the memory_user index): each of them carries one
// partition label when partitions are on (service/store/index_shards.py).
MATCH (m:Memory)
WHERE m.user_id IS NOT NULL
RETURN count(m) AS memories
