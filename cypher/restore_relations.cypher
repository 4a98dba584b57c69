// Typed relations from an export (docs/export.md), one edge per supporting memory as
// cypher/merge_relations.cypher keys them, with their stored times and invalidation. The type
// is checked against service.nlp.relations.RelationType before it is sent and travels as a
// parameter. An edge the store already holds is left as it is; how many were new is returned.
UNWIND $rows AS row
MATCH (s:Entity {key: row.source_key})
MATCH (t:Entity {key: row.target_key})
OPTIONAL MATCH (s)-[found:$(row.type) {memory_id: row.memory_id}]->(t)
WITH s, t, row, found IS NULL AS fresh
MERGE (s)-[r:$(row.type) {memory_id: row.memory_id}]->(t)
  ON CREATE SET r += row.props
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
