// Every user that holds memories (through the memory_user index).
MATCH (m:Memory)
WHERE m.user_id IS NOT NULL
RETURN DISTINCT m.user_id AS user_id
