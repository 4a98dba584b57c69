// The memories that replaced each of several memories (one request's DataLoader batch), newest
// first. Each ask names a memory and the scope it was read in; both ends stay in that scope.
UNWIND $asks AS ask
MATCH (old:Memory {id: ask.id})<-[:SUPERSEDES]-(m:Memory)
WHERE all(n IN [old, m] WHERE (ask.user_id IS NULL OR n.user_id = ask.user_id)
                          AND (ask.agent_id IS NULL OR n.agent_id = ask.agent_id)
                          AND (ask.run_id IS NULL OR n.run_id = ask.run_id))
WITH ask, m
ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
RETURN ask.id AS id, collect({{memory_fields}}) AS memories
