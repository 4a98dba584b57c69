// Any scoped node (Memory, Message, Entity, MemoryEvent) of the caller's scope; a null scope
// field matches anything. Included as {{in_scope}}; the node variable is `n`.
($user_id IS NULL OR n.user_id = $user_id)
AND ($agent_id IS NULL OR n.agent_id = $agent_id)
AND ($run_id IS NULL OR n.run_id = $run_id)
