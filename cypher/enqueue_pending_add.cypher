// A deferred add (service/ingest/deferred.py): the batch joins the end of its scope's queue.
// Setting the queue's counter takes its write lock, so the batches of one scope are numbered in
// the order they commit; the queue key is unique (schema.cypher). The batch id comes from the
// scope and the message ids, so a client's retry of an add still waiting is the same batch.
MERGE (q:PendingQueue {key: $queue_key})
  ON CREATE SET q.next_seq = 0
SET q.next_seq = q.next_seq + 1
MERGE (p:PendingAdd {id: $id})
  ON CREATE SET p += {
    queue_key: $queue_key, seq: q.next_seq,
    user_id: $user_id, agent_id: $agent_id, run_id: $run_id,
    messages: $messages, message_count: $message_count, infer: $infer, actor: $actor,
    received_at: datetime(), attempts: 0
  }
RETURN p.seq AS seq
