// A FORGET event, without text, for each memory about to be forgotten: the tombstone that
// says the memory existed and when it was erased, and by whom.
UNWIND $ids AS id
MATCH (n:Memory {id: id})
WHERE {{in_scope}}
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'FORGET', memory_id: n.id, old_text: null,
                        new_text: null, actor: $actor, at: datetime($now)})
SET ev.user_id = n.user_id, ev.agent_id = n.agent_id, ev.run_id = n.run_id
RETURN count(ev) AS recorded
