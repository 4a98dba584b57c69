// A worker that stops lets go of the queue it holds, so that another takes it up at once.
MATCH (q:PendingQueue {key: $queue_key})
WHERE q.holder = $holder
SET q.lease_until = null, q.holder = null
RETURN count(q) AS released
