// Delete edges by element id (as listed by list_forget_targets), only where one end lies in
// the caller's scope.
UNWIND $ids AS edge_id
MATCH (a)-[r]->(b)
WHERE elementId(r) = edge_id
WITH DISTINCT r, edge_id, [a, b] AS ends
WHERE any(n IN ends WHERE {{in_scope}})
DELETE r
RETURN collect(edge_id) AS deleted
