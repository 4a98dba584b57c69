// Which memories a dashboard lists: the caller's scope, as the graph stood at $as_of (memories
// recorded after it are hidden; none when null). Unlike {{memory_visible}}, superseded memories
// are included: dashboards show the whole record and filter with `current`. Included as
// {{memory_in_scope}}; the node variable is `m`.
($user_id IS NULL OR m.user_id = $user_id)
AND ($agent_id IS NULL OR m.agent_id = $agent_id)
AND ($run_id IS NULL OR m.run_id = $run_id)
AND ($as_of IS NULL OR coalesce(m.said_at, m.created_at) <= $as_of)
