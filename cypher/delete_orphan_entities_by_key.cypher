// Of the given entities (any scope: the relink maintenance run), delete those that no memory
// mentions any more, with their relations.
UNWIND $keys AS key
MATCH (n:Entity {key: key})
WHERE NOT EXISTS { (n)<-[:MENTIONS]-() }
DETACH DELETE n
RETURN count(*) AS deleted
