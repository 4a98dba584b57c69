// The first waiting batch of the scope queue that has waited longest and that no live worker
// holds; the queue is then this worker's until the lease ends. Setting a property takes the
// queue's write lock first and the lease is read again under it, so two workers never hold one
// queue (once locked, Neo4j reads the latest committed value).
MATCH (waiting:PendingAdd)
WHERE waiting.failed_at IS NULL
WITH waiting.queue_key AS key, min(waiting.received_at) AS since
ORDER BY since
MATCH (q:PendingQueue {key: key})
WHERE q.lease_until IS NULL OR q.lease_until < datetime()
WITH q LIMIT 1
SET q.locked = true
REMOVE q.locked
WITH q
WHERE q.lease_until IS NULL OR q.lease_until < datetime()
SET q.lease_until = datetime() + duration({seconds: $lease_s}), q.holder = $holder
WITH q
MATCH (p:PendingAdd {queue_key: q.key})
WHERE p.failed_at IS NULL
WITH p ORDER BY p.seq LIMIT 1
RETURN p.id AS id, p.queue_key AS queue_key, p.user_id AS user_id, p.agent_id AS agent_id,
       p.run_id AS run_id, p.messages AS messages, p.infer AS infer, p.actor AS actor,
       p.received_at AS received_at, p.attempts AS attempts
