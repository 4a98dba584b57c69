// How many entities of each type the scope holds, most common first.
MATCH (n:Entity)
WHERE {{in_scope}}
RETURN n.type AS type, count(*) AS count
ORDER BY count DESC, type
