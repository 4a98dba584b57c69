// SUPERSEDES edges from an export (docs/export.md); the replaced memory's invalidated_at came
// with it. An edge the store already holds is left as it is; how many were new is returned.
UNWIND $rows AS row
MATCH (new:Memory {id: row.new_id})
MATCH (old:Memory {id: row.old_id})
OPTIONAL MATCH (new)-[found:SUPERSEDES]->(old)
WITH new, old, row, found IS NULL AS fresh
MERGE (new)-[s:SUPERSEDES]->(old)
  ON CREATE SET s += row.props
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
