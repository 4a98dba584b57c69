// Create new memories with provenance and an ADD event each; ids come from scope + hash.
UNWIND $memories AS row
MERGE (mem:Memory {id: row.id})
  ON CREATE SET mem += row.props, mem.source_ids = row.source_ids,
                mem.created_at = datetime($now), mem.updated_at = datetime($now),
                mem.access_count = 0
WITH mem, row
// The user's index partition (service/store/index_shards.py); null when off or without a user.
FOREACH (label IN CASE WHEN row.shard IS NULL THEN [] ELSE [row.shard] END | SET mem:$(label))
WITH mem, row
// The vector as 32-bit floats (SET stores the list as sent, 64-bit: twice the bytes, and exact
// cosine reads it ~25% slower), on the memories this statement created.
CALL (mem, row) {
  WITH mem, row
  WHERE mem.created_at = datetime($now) AND size(coalesce(row.props.embedding, [])) > 0
  CALL db.create.setNodeVectorProperty(mem, 'embedding', row.props.embedding)
}
// Its own vector, where its context made the one above differ (Embedder.aembed_memories).
CALL (mem, row) {
  WITH mem, row
  WHERE mem.created_at = datetime($now) AND row.props.content_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(mem, 'content_embedding', row.props.content_embedding)
}
WITH mem, row
CALL (mem, row) {
  UNWIND row.source_ids AS source_id
  MATCH (msg:Message {id: source_id})
  MERGE (mem)-[:DERIVED_FROM]->(msg)
}
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'ADD', memory_id: mem.id, old_text: null,
                        new_text: mem.text, actor: $actor, at: datetime($now)})
SET ev += $scope
RETURN mem.id AS id
