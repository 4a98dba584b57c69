// The typed relations between one entity and some of its neighbours (current, inside the
// scope), by neighbour key: what a co-mention step also is (Neighbor.relations).
MATCH (n:Entity {key: $key})-[r:{{relation_types}}]-(other:Entity)
WHERE {{in_scope}} AND other.key IN $keys AND {{relation_visible}}
RETURN other.key AS key, collect(DISTINCT type(r)) AS types
