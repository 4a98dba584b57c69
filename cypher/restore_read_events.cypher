// Read-audit events from an export (docs/export.md), ids and times kept. An id the store
// already holds is left as it is; how many were new is returned.
UNWIND $rows AS row
OPTIONAL MATCH (found:ReadEvent {id: row.id})
WITH row, found IS NULL AS fresh
MERGE (ev:ReadEvent {id: row.id})
  ON CREATE SET ev += row.props
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
