// Memories from an export (docs/export.md), as they were stored: ids, times and vectors kept,
// nothing extracted again. A new one gets the user's index partition label ($row.shard,
// service/store/index_shards.py), its vectors as 32-bit floats (cypher/merge_memories.cypher)
// and DERIVED_FROM to the messages of its source_ids. An id the store already holds is left
// as it is (the store wins); how many were new is returned.
UNWIND $rows AS row
OPTIONAL MATCH (found:Memory {id: row.id})
WITH row, found IS NULL AS fresh
MERGE (n:Memory {id: row.id})
  ON CREATE SET n += row.props
WITH n, row, fresh
FOREACH (label IN CASE WHEN fresh AND row.shard IS NOT NULL THEN [row.shard] ELSE [] END |
  SET n:$(label))
WITH n, row, fresh
CALL (n, row, fresh) {
  WITH n, row, fresh
  WHERE fresh AND row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
CALL (n, row, fresh) {
  WITH n, row, fresh
  WHERE fresh AND row.content_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'content_embedding', row.content_embedding)
}
CALL (n, row, fresh) {
  WITH n, row, fresh
  WHERE fresh
  UNWIND coalesce(row.props.source_ids, []) AS source_id
  MATCH (msg:Message {id: source_id})
  MERGE (n)-[:DERIVED_FROM]->(msg)
}
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
