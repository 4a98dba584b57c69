// Memories of the scope that match ANY given criterion (a null criterion matches nothing;
// $everything matches all): said (else stored) before $older_than, read at most
// $max_access_count times, or confidence below $min_confidence (a memory without a confidence
// is never evicted for it). Also the entities that only these memories mention, which go too.
MATCH (n:Memory)
WHERE {{in_scope}}
  AND ($everything
       OR ($older_than IS NOT NULL AND coalesce(n.said_at, n.created_at) < $older_than)
       OR ($max_access_count IS NOT NULL AND coalesce(n.access_count, 0) <= $max_access_count)
       OR ($min_confidence IS NOT NULL AND n.confidence < $min_confidence))
WITH n ORDER BY n.id
WITH collect(n) AS doomed
CALL (doomed) {
  UNWIND doomed AS m
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WITH DISTINCT e, doomed
  WHERE NOT EXISTS { MATCH (e)<-[:MENTIONS]-(other:Memory) WHERE NOT other IN doomed }
  WITH e ORDER BY e.key
  RETURN collect(e.key) AS entity_keys
}
RETURN [m IN doomed | m.id] AS memory_ids, entity_keys
