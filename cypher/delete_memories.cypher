// Delete memories by id inside the caller's scope, with their edges. Each leaves a DELETE
// event that keeps its text (forget is what erases text).
UNWIND $ids AS id
MATCH (n:Memory {id: id})
WHERE {{in_scope}}
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'DELETE', memory_id: n.id, old_text: n.text,
                        new_text: null, actor: $actor, at: datetime($now)})
SET ev.user_id = n.user_id, ev.agent_id = n.agent_id, ev.run_id = n.run_id
// The typed relations it supported go with it (they hang between entities, not on it).
WITH n, id
CALL (n) {
  MATCH (n)-[:MENTIONS]->(:Entity)-[r]->(:Entity)
  WHERE r.memory_id = n.id
  DELETE r
}
DETACH DELETE n
RETURN collect(id) AS deleted
