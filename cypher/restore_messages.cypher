// Messages from an export (docs/export.md), as they were stored. An id the store already
// holds is left as it is (the store wins), so a second import changes nothing; how many were
// new is returned.
UNWIND $rows AS row
OPTIONAL MATCH (found:Message {id: row.id})
WITH row, found IS NULL AS fresh
MERGE (n:Message {id: row.id})
  ON CREATE SET n += row.props
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
