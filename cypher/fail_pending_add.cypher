// A batch that could not be written: its error is kept, and after $max_attempts failures it is
// set aside (failed_at) so that its scope's later batches go on. Its queue is free again.
MATCH (p:PendingAdd {id: $id})
MATCH (q:PendingQueue {key: p.queue_key})
WITH p, q, p.attempts + 1 AS attempts
SET p.attempts = attempts, p.last_error = $error,
    p.failed_at = CASE WHEN attempts >= $max_attempts THEN datetime() END,
    q.lease_until = null, q.holder = null
RETURN attempts, p.failed_at IS NOT NULL AS failed
