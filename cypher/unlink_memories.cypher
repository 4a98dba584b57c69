// Before memories are linked again: their typed relations and MENTIONS go, and they are marked
// with the linker version that relinks them (same transaction as the new links). Returns the
// entities they mentioned, so that those no memory mentions any more can go.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
OPTIONAL CALL (m) {
  MATCH (m)-[:MENTIONS]->(:Entity)-[r]->(:Entity)
  WHERE r.memory_id = m.id
  DELETE r
}
OPTIONAL MATCH (m)-[mention:MENTIONS]->(e:Entity)
WITH m, collect(e.key) AS keys, collect(mention) AS mentions
FOREACH (x IN mentions | DELETE x)
SET m.linker_version = $version
RETURN keys
