// Edges a change of mind retires without their memory (a thing done stays done; an inferred
// LIKES has no statement to supersede): closed at the change, kept for asOf.
UNWIND $closings AS row
MATCH (s:Entity {key: row.subject_key})-[r]->(t:Entity {key: row.target_key})
WHERE type(r) = row.type AND r.memory_id = row.memory_id AND r.invalidated_at IS NULL
SET r.invalidated_at = row.at
RETURN count(r) AS closed
