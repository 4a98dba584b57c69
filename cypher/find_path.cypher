// The shortest chain of entities between two entities, at most $max_hops entity-to-entity
// hops. A hop is a typed relation (Entity -[:WORKS_AT …]- Entity, one relationship) or, unless
// $typed_only, a co-mention (Entity <- Memory -> Entity, two), so a typed hop is preferred
// wherever one exists (the caller asks typed_only first: a chain of typed relations beats a
// shorter one through a memory that merely names both ends). Current memories and relations
// inside the scope only (or as of $as_of); a hub entity (more than $hub_limit mentions) is
// never left through a co-mention. Unless $with_inferred, a relation no memory states (an
// inferred LIKES or family tie) is no step: the path walks the stated ones, which say why.
// Among equally short chains the answer is the one with the most typed steps, then the most
// support (per step, the distinct memories behind its relations or naming both ends, summed),
// then its entities' names in order, then their keys: the same graph answers the same chain.
// Only the first $path_limit shortest paths are ranked (parallel relations and memories make
// one chain many paths); past that, which chains are seen depends on the store's layout.
// Each step comes with its kind (the pair's relation type with the most memories, then by
// name; or MENTIONED_WITH) and up to $per_step supporting memories, newest first. No row: no
// such path.
MATCH (n:Entity {key: $from_key})
WHERE {{in_scope}}
WITH n AS source
MATCH (n:Entity {key: $to_key})
WHERE {{in_scope}}
WITH source, n AS target
MATCH path = ALL SHORTEST (
  (source)((n)-[r:MENTIONS|{{relation_types}}]-(m)
    WHERE (NOT m:Memory OR {{memory_visible}}) AND {{in_scope}}
      AND (type(r) = 'MENTIONS' OR ({{relation_visible}}
                                    AND ($with_inferred OR NOT coalesce(r.inferred, false))))
      AND (NOT $typed_only OR type(r) <> 'MENTIONS')
      AND (type(r) <> 'MENTIONS' OR NOT n:Entity OR n = source
           OR COUNT { (n)<-[:MENTIONS]-() } <= $hub_limit)){1,8}(target)
  WHERE size([x IN n WHERE x:Entity]) <= $max_hops
)
WITH path
LIMIT $path_limit
// Per path: its entities, and per step whether it is typed and the memory behind it (the
// relation's, or the one naming both ends).
WITH nodes(path) AS ns, relationships(path) AS rs
WITH [y IN ns WHERE y:Entity] AS chain,
     [k IN range(0, size(rs) - 1) WHERE ns[k + 1]:Entity | type(rs[k]) <> 'MENTIONS'] AS typed,
     [k IN range(0, size(rs) - 1) WHERE ns[k + 1]:Entity |
      CASE WHEN type(rs[k]) = 'MENTIONS' THEN ns[k].id ELSE rs[k].memory_id END] AS evidence
UNWIND range(0, size(evidence) - 1) AS step
WITH chain, typed, step, count(DISTINCT evidence[step]) AS memories
WITH chain, typed, sum(memories) AS support
ORDER BY size([t IN typed WHERE t]) DESC, support DESC, [y IN chain | y.name],
         [y IN chain | y.key]
LIMIT 1
UNWIND range(0, size(chain) - 2) AS step
WITH chain, step, chain[step] AS x, chain[step + 1] AS y, typed[step] AS is_typed
CALL (x, y, is_typed) {
  // A typed step's kind: the pair's relation type with the most supporting memories, then
  // by name; its source is x when any relation of that type leaves x.
  OPTIONAL MATCH (x)-[r:{{relation_types}}]-(y)
  WHERE is_typed AND {{relation_visible}}
  WITH type(r) AS kind, count(DISTINCT r.memory_id) AS support,
       sum(CASE WHEN startNode(r) = x THEN 1 ELSE 0 END) > 0 AS forward
  ORDER BY support DESC, kind
  RETURN coalesce(collect(CASE WHEN kind IS NOT NULL
                               THEN {kind: kind,
                                     source_key: CASE WHEN forward THEN x.key ELSE y.key END}
                          END)[0],
                  {kind: 'MENTIONED_WITH', source_key: null}) AS found
}
CALL (x, y, found) {
  // The memories behind every current relation of the step's type between the two.
  WITH x, y, found
  WHERE found.kind <> 'MENTIONED_WITH'
  MATCH (x)-[r:{{relation_types}}]-(y)
  WHERE type(r) = found.kind AND {{relation_visible}}
  MATCH (m:Memory {id: r.memory_id})
  WHERE {{memory_visible}}
  WITH DISTINCT m
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $per_step
  RETURN collect({{memory_fields}}) AS stated
}
CALL (x, y, found) {
  // The memories naming both, walked from the less mentioned end (either may be a hub).
  WITH x, y, found
  WHERE found.kind = 'MENTIONED_WITH'
  WITH CASE WHEN COUNT { (x)<-[:MENTIONS]-() } <= COUNT { (y)<-[:MENTIONS]-() }
            THEN [x, y] ELSE [y, x] END AS pair
  WITH pair[0] AS near, pair[1] AS far
  MATCH (near)<-[:MENTIONS]-(m:Memory)
  WHERE {{memory_visible}} AND (m)-[:MENTIONS]->(far)
  WITH DISTINCT m
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $per_step
  RETURN collect({{memory_fields}}) AS named
}
WITH chain, step, {kind: found.kind, source_key: found.source_key, memories: stated + named}
  AS found
ORDER BY step
WITH chain, collect(found) AS steps
RETURN [y IN chain | y {.key, .name, .type, .aliases, .first_seen, .last_seen,
                        mention_count: COUNT { (y)<-[:MENTIONS]-() }}] AS entities,
       steps
