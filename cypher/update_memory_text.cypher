// A caller's new wording for one memory: text, hash, embedding and time tags replaced in
// place (the id stays), with an UPDATE event that keeps both texts. MENTIONS are relinked by
// delete_memory_mentions + merge_mentions in the same transaction.
MATCH (n:Memory {id: $id})
WHERE {{in_scope}}
WITH n, n.text AS old_text
SET n += $props, n.updated_at = datetime($now)
// The vector as 32-bit floats (cypher/merge_memories.cypher).
WITH n, old_text
CALL (n) {
  WITH n
  WHERE size(coalesce($props.embedding, [])) > 0
  CALL db.create.setNodeVectorProperty(n, 'embedding', $props.embedding)
}
WITH n, old_text
CALL (n) {
  WITH n
  WHERE $props.content_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'content_embedding', $props.content_embedding)
}
WITH n, old_text
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'UPDATE', memory_id: n.id, old_text: old_text,
                        new_text: n.text, actor: $actor, at: datetime($now)})
SET ev.user_id = n.user_id, ev.agent_id = n.agent_id, ev.run_id = n.run_id
RETURN n.id AS id
