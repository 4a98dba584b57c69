// Which memories a read may see: the caller's scope, current facts (or those standing at
// $as_of), the SAID window on said_at and the HAPPENED window on happened_start/happened_end
// (valid_from/valid_to, or said_at for a fact without its own time: service/ingest/write_plan.py),
// which a user's window seeks through memory_user_happened_end. Included as
// {{memory_visible}}; the node variable is `m`.
($user_id IS NULL OR m.user_id = $user_id)
AND ($agent_id IS NULL OR m.agent_id = $agent_id)
AND ($run_id IS NULL OR m.run_id = $run_id)
AND CASE WHEN $as_of IS NULL THEN m.invalidated_at IS NULL
         ELSE coalesce(m.said_at, m.created_at) <= $as_of
              AND (m.invalidated_at IS NULL OR m.invalidated_at > $as_of) END
AND ($said_from IS NULL OR m.said_at >= $said_from)
AND ($said_to IS NULL OR m.said_at < $said_to)
AND ($happened_from IS NULL OR m.happened_end > $happened_from)
AND ($happened_to IS NULL OR m.happened_start < $happened_to)
