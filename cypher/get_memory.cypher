// One memory by id inside the caller's scope (none when it lives in another scope), with the
// keys of the entities it mentions.
MATCH (n:Memory {id: $id})
WHERE {{in_scope}}
OPTIONAL MATCH (n)-[:MENTIONS]->(e:Entity)
// The vectors stay behind: 384 floats each that no reader of one memory needs.
RETURN n {.*, embedding: null, content_embedding: null} AS memory,
       collect(DISTINCT e.key) AS entity_keys
