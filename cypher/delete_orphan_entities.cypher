// Of the given entities, delete those that no memory mentions any more.
UNWIND $keys AS key
MATCH (n:Entity {key: key})
WHERE {{in_scope}} AND NOT EXISTS { (n)<-[:MENTIONS]-() }
DETACH DELETE n
RETURN collect(key) AS deleted
