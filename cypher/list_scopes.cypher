// The scopes holding memories, within the ids a caller may touch ($user_ids … null: any id),
// the largest first; what the dashboard's scope picker offers.
MATCH (m:Memory)
WHERE ($user_ids IS NULL OR m.user_id IN $user_ids)
  AND ($agent_ids IS NULL OR m.agent_id IN $agent_ids)
  AND ($run_ids IS NULL OR m.run_id IN $run_ids)
WITH m.user_id AS user_id, m.agent_id AS agent_id, m.run_id AS run_id, count(m) AS memories,
     max(m.said_at) AS last_said_at
RETURN user_id, agent_id, run_id, memories, last_said_at
ORDER BY memories DESC, user_id, agent_id, run_id
LIMIT $limit
