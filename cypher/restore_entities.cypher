// Entities from an export (docs/export.md), as they were stored: key, aliases and type votes
// (in the order of cypher/merge_entities.cypher). aliases_text, which the full-text index
// reads, is made from the aliases as merge_entities makes it. A key the store already holds
// is left as it is (the store wins); how many were new is returned.
UNWIND $rows AS row
OPTIONAL MATCH (found:Entity {key: row.key})
WITH row, found IS NULL AS fresh
MERGE (e:Entity {key: row.key})
  ON CREATE SET e += row.props,
                e.aliases_text = reduce(s = '', a IN coalesce(row.props.aliases, []) | s + ' ' + a)
RETURN count(CASE WHEN fresh THEN 1 END) AS restored
