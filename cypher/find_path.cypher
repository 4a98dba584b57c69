// The shortest chain of entities between two entities, at most $max_hops entity-to-entity
// hops. A hop is a typed relation (Entity -[:WORKS_AT …]- Entity, one relationship) or, unless
// $typed_only, a co-mention (Entity <- Memory -> Entity, two), so a typed hop is preferred
// wherever one exists (the caller asks typed_only first: a chain of typed relations beats a
// shorter one through a memory that merely names both ends). Current memories and relations inside the scope only (or as of $as_of); a hub
// entity (more than $hub_limit mentions) is never left through a co-mention. Each step comes
// with its kind (the relation type, or MENTIONED_WITH) and up to $per_step supporting
// memories, newest first. No row: no such path.
MATCH (n:Entity {key: $from_key})
WHERE {{in_scope}}
WITH n AS source
MATCH (n:Entity {key: $to_key})
WHERE {{in_scope}}
WITH source, n AS target
MATCH path = ANY SHORTEST (
  (source)((n)-[r:MENTIONS|{{relation_types}}]-(m)
    WHERE (NOT m:Memory OR {{memory_visible}}) AND {{in_scope}}
      AND (type(r) = 'MENTIONS' OR {{relation_visible}})
      AND (NOT $typed_only OR type(r) <> 'MENTIONS')
      AND (type(r) <> 'MENTIONS' OR NOT n:Entity OR n = source
           OR COUNT { (n)<-[:MENTIONS]-() } <= $hub_limit)){1,8}(target)
  WHERE size([x IN n WHERE x:Entity]) <= $max_hops
)
WITH [y IN nodes(path) WHERE y:Entity] AS chain,
     [r IN relationships(path) WHERE type(r) <> 'MENTIONS'] AS typed
UNWIND range(0, size(chain) - 2) AS step
WITH chain, step, chain[step] AS x, chain[step + 1] AS y,
     [r IN typed WHERE (startNode(r) = chain[step] AND endNode(r) = chain[step + 1])
                    OR (startNode(r) = chain[step + 1] AND endNode(r) = chain[step])][0] AS hop
CALL (x, y, hop) {
  // A typed step: the memories behind every current relation of that type between the two.
  WITH x, y, hop
  WHERE hop IS NOT NULL
  MATCH (x)-[r]-(y)
  WHERE type(r) = type(hop) AND {{relation_visible}}
  MATCH (m:Memory {id: r.memory_id})
  WHERE {{memory_visible}}
  WITH DISTINCT m, hop
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $per_step
  RETURN type(hop) AS kind, startNode(hop).key AS source_key, collect({{memory_fields}}) AS memories
  UNION
  // A co-mention step, walked from its less mentioned end (either may be a hub).
  WITH x, y, hop
  WHERE hop IS NULL
  WITH CASE WHEN COUNT { (x)<-[:MENTIONS]-() } <= COUNT { (y)<-[:MENTIONS]-() }
            THEN [x, y] ELSE [y, x] END AS pair
  WITH pair[0] AS near, pair[1] AS far
  MATCH (near)<-[:MENTIONS]-(m:Memory)
  WHERE {{memory_visible}} AND (m)-[:MENTIONS]->(far)
  WITH DISTINCT m
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $per_step
  RETURN 'MENTIONED_WITH' AS kind, null AS source_key, collect({{memory_fields}}) AS memories
}
WITH chain, step, {kind: kind, source_key: source_key, memories: memories} AS found
ORDER BY step
WITH chain, collect(found) AS steps
RETURN [y IN chain | y {.key, .name, .type, .aliases, .first_seen, .last_seen,
                        mention_count: COUNT { (y)<-[:MENTIONS]-() }}] AS entities,
       steps
