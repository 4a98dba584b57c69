// Deferred adds not written yet in the caller's scope (every scope when all three are null):
// waiting batches and their messages, when the oldest was received, and failed batches.
MATCH (n:PendingAdd)
WHERE {{in_scope}}
WITH count(CASE WHEN n.failed_at IS NULL THEN 1 END) AS batches,
     sum(CASE WHEN n.failed_at IS NULL THEN n.message_count ELSE 0 END) AS messages,
     min(CASE WHEN n.failed_at IS NULL THEN n.received_at END) AS oldest,
     count(n.failed_at) AS failed
RETURN batches, messages, oldest, failed, datetime() AS now
