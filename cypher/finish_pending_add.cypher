// In the transaction that writes a batch's result: the batch goes and its queue is free again.
// No row (another worker wrote it after this one's lease ran out) rolls the write back.
MATCH (p:PendingAdd {id: $id})
MATCH (q:PendingQueue {key: p.queue_key})
DETACH DELETE p
SET q.lease_until = null, q.holder = null
RETURN q.key AS key
