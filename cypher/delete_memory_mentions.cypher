// Unlink one memory from every entity it mentions (before its new text is linked again).
MATCH (n:Memory {id: $id})-[r:MENTIONS]->(:Entity)
WHERE {{in_scope}}
DELETE r
RETURN count(*) AS removed
