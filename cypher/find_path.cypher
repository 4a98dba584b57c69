// The shortest chain of entities between two entities through co-mentioning memories, at most
// $max_hops hops (the quantifier caps it at 4), with up to $per_step supporting memories per
// step, newest first. As in find_neighbors: current memories inside the scope only, and hubs
// (more than $hub_limit mentions) are never walked through. No row: no such path.
MATCH (n:Entity {key: $from_key})
WHERE {{in_scope}}
WITH n AS source
MATCH (n:Entity {key: $to_key})
WHERE {{in_scope}}
WITH source, n AS target
MATCH path = ANY SHORTEST (source)((a:Entity)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(n:Entity)
               WHERE {{memory_visible}} AND {{in_scope}}
                 AND (a = source OR COUNT { (a)<-[:MENTIONS]-() } <= $hub_limit)){1,4}(target)
WHERE size(m) <= $max_hops
WITH [y IN nodes(path) WHERE y:Entity] AS chain
UNWIND range(0, size(chain) - 2) AS step
CALL (chain, step) {
  // Walk from the less mentioned end of the step: either end may be a hub.
  WITH chain[step] AS x, chain[step + 1] AS y
  WITH CASE WHEN COUNT { (x)<-[:MENTIONS]-() } <= COUNT { (y)<-[:MENTIONS]-() }
            THEN [x, y] ELSE [y, x] END AS pair
  WITH pair[0] AS near, pair[1] AS far
  MATCH (near)<-[:MENTIONS]-(m:Memory)
  WHERE {{memory_visible}} AND (m)-[:MENTIONS]->(far)
  WITH DISTINCT m
  ORDER BY coalesce(m.said_at, m.created_at) DESC, m.id
  LIMIT $per_step
  RETURN collect({{memory_fields}}) AS memories
}
WITH chain, step, memories
ORDER BY step
WITH chain, collect(memories) AS steps
RETURN [y IN chain | y {.key, .name, .type, .aliases, .first_seen, .last_seen,
                        mention_count: COUNT { (y)<-[:MENTIONS]-() }}] AS entities,
       steps
