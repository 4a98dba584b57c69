// Remove the typed relations one memory supports (before its new text is linked again). A
// relation's endpoints are always among the entities its memory mentions.
MATCH (n:Memory {id: $id})-[:MENTIONS]->(:Entity)-[r]->(:Entity)
WHERE {{in_scope}} AND r.memory_id = n.id
DELETE r
RETURN count(*) AS removed
