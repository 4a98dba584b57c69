// One read of the caller's scope for the read audit (Settings.audit_reads): who read, which
// operation, the sha256 of the query text (never the text), how many results, when. The scope
// fields make the event part of the scope it read: listed by readAudit, erased by forget.
CREATE (n:ReadEvent {id: randomUUID(), operation: $operation, actor: $actor,
                     query_hash: $query_hash, result_count: $result_count, at: datetime($now)})
SET n.user_id = $user_id, n.agent_id = $agent_id, n.run_id = $run_id
RETURN n.id AS id
