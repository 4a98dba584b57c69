// Near-duplicates: the existing memory gains the new sources (and the longer wording), with an
// UPDATE event that keeps both texts.
UNWIND $updates AS row
MATCH (mem:Memory {id: row.memory_id})
WITH mem, row, mem.text AS old_text
SET mem.source_ids = mem.source_ids + [s IN row.source_ids WHERE NOT s IN mem.source_ids],
    mem.updated_at = datetime($now)
FOREACH (_ IN CASE WHEN row.replace_text THEN [1] ELSE [] END |
  SET mem.text = row.text, mem.source_text = row.source_text, mem.hash = row.hash,
      mem.context_texts = row.context_texts, mem.context_text = row.context_text,
      mem.content_embedding = null)
WITH mem, row, old_text
// The new vector as 32-bit floats (cypher/merge_memories.cypher).
CALL (mem, row) {
  WITH mem, row
  WHERE row.replace_text
  CALL db.create.setNodeVectorProperty(mem, 'embedding', row.embedding)
}
WITH mem, row, old_text
CALL (mem, row) {
  WITH mem, row
  WHERE row.replace_text AND row.content_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(mem, 'content_embedding', row.content_embedding)
}
WITH mem, row, old_text
CALL (mem, row) {
  UNWIND row.source_ids AS source_id
  MATCH (msg:Message {id: source_id})
  MERGE (mem)-[:DERIVED_FROM]->(msg)
}
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'UPDATE', memory_id: mem.id, old_text: old_text,
                        new_text: row.text, actor: $actor, at: datetime($now)})
SET ev += $scope
RETURN mem.id AS id
