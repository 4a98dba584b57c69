// Remove every node of one scope (messages, memories, entities, events, read events, deferred
// adds) with their edges.
MATCH (n)
WHERE (n:Memory OR n:Message OR n:Entity OR n:MemoryEvent OR n:ReadEvent OR n:PendingAdd)
  AND ($user_id IS NULL OR n.user_id = $user_id)
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND ($run_id IS NULL OR n.run_id = $run_id)
DETACH DELETE n
RETURN count(*) AS deleted
