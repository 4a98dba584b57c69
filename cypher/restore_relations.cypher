// Typed relations from an export (docs/export.md), with their stored times, invalidation and
// inference. Two edges of one pair may share a memory (a retired inferred LIKES and its
// successor, a thing done on two days), so an edge is the same only when every property is:
// one the store already holds is left as it is, and how many were new is returned. The type
// is checked against service.nlp.relations.table.RelationType before it is sent and travels
// as a parameter.
UNWIND $rows AS row
MATCH (s:Entity {key: row.source_key})
MATCH (t:Entity {key: row.target_key})
OPTIONAL MATCH (s)-[found:$(row.type) {memory_id: row.memory_id}]->(t)
WHERE properties(found) = row.props
WITH s, t, row, count(found) = 0 AS fresh
CALL (s, t, row, fresh) {
  WITH s, t, row, fresh
  WHERE fresh
  CREATE (s)-[r:$(row.type)]->(t)
  SET r = row.props
}
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
