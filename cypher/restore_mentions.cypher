// MENTIONS edges from an export (docs/export.md), keyed like cypher/merge_mentions.cypher by
// their span. An edge the store already holds is left as it is; how many were new is returned.
UNWIND $rows AS row
MATCH (mem:Memory {id: row.memory_id})
MATCH (e:Entity {key: row.entity_key})
OPTIONAL MATCH (mem)-[found:MENTIONS {start: row.start, end: row.end}]->(e)
WITH mem, e, row, found IS NULL AS fresh
MERGE (mem)-[r:MENTIONS {start: row.start, end: row.end}]->(e)
  ON CREATE SET r += row.props
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
