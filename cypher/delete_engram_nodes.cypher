// reset(): one batch of Engram's nodes (every scope) with their edges; the caller repeats
// until a batch comes back short. Other labels in the database and the schema are left alone.
MATCH (n)
WHERE n:Memory OR n:Message OR n:Entity OR n:MemoryEvent OR n:ReadEvent OR n:PendingAdd
   OR n:PendingQueue
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
