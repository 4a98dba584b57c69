// Entities reachable from one entity in up to $hops hops (a hop: Entity <- Memory -> Entity),
// each at its shortest distance, with the number of memories that link it to the entities one
// hop closer (support) and the entities passed on one shortest path (via). Only current
// memories inside the scope are walked; hub entities (more than $hub_limit mentions) may be
// reached but are never walked through.
MATCH (n:Entity {key: $key})
WHERE {{in_scope}}
WITH n AS start
// 1. The entities the walk may pass through, at their depth: the start, and (only when walking
//    on) every non-hub entity within 2 hops, found by a pruning breadth-first search that
//    visits each node once, so the cost follows the neighbourhood, not the number of paths.
//    The literal bound (2 hops = 4 relationships) plus the last hop below caps the walk at 3.
CALL (start) {
  RETURN start AS x, 0 AS depth
  UNION
  WITH start
  WHERE $hops > 1
  MATCH p = (start)-[:MENTIONS*1..4]-(x:Entity)
  WHERE all(m IN nodes(p) WHERE NOT m:Memory OR {{memory_visible}})
    AND all(n IN nodes(p) WHERE NOT n:Entity OR ({{in_scope}}
            AND (n = start OR COUNT { (n)<-[:MENTIONS]-() } <= $hub_limit)))
  RETURN x, min(length(p)) / 2 AS depth
}
WITH start, x, min(depth) AS depth
WHERE depth < $hops
// 2. One more hop from each of them; a neighbour's distance is its nearest such step, and its
//    support counts the memories of that step.
MATCH (x)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(n:Entity)
WHERE n <> start AND {{memory_visible}} AND {{in_scope}}
WITH start, n AS neighbor, depth + 1 AS distance, count(DISTINCT m) AS support
WITH start, neighbor, min(distance) AS nearest,
     collect({distance: distance, support: support}) AS steps
WITH start, neighbor, nearest AS distance,
     [s IN steps WHERE s.distance = nearest][0].support AS support
ORDER BY distance, support DESC, neighbor.name, neighbor.key
LIMIT $limit
// 3. Only for the rows returned, two hops or more: the entities on one shortest path.
OPTIONAL CALL (start, neighbor, distance) {
  WITH start, neighbor
  WHERE distance > 1
  MATCH path = ANY SHORTEST (start)((a:Entity)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(n:Entity)
                 WHERE {{memory_visible}} AND {{in_scope}}
                   AND (a = start OR COUNT { (a)<-[:MENTIONS]-() } <= $hub_limit)){1,3}(neighbor)
  RETURN [y IN nodes(path)[1..-1] WHERE y:Entity | y.name] AS via
}
RETURN neighbor {.key, .name, .type, .aliases, .first_seen, .last_seen,
                 mention_count: COUNT { (neighbor)<-[:MENTIONS]-() }} AS entity,
       distance, coalesce(via, []) AS via, support
ORDER BY distance, support DESC, entity.name, entity.key
