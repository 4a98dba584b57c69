// Node counts by label inside one scope, for stats and checks.
MATCH (n)
WHERE (n:Memory OR n:Message OR n:Entity OR n:MemoryEvent)
  AND ($user_id IS NULL OR n.user_id = $user_id)
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND ($run_id IS NULL OR n.run_id = $run_id)
RETURN labels(n)[0] AS label, count(*) AS n
