// Another memory of the scope that already says this text (same hash), if any.
MATCH (n:Memory {hash: $hash})
WHERE {{in_scope}} AND n.id <> $id
RETURN n.id AS id
LIMIT 1
