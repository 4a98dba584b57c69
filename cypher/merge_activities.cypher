// Things done (DOES), one edge per memory and day: a fact said again on another day (the same
// memory, found by its hash or as a near-duplicate) counts that day too. The edge holds the
// day as its valid time, since when it was said, and the memory's invalidated_at.
UNWIND $activities AS row
MATCH (mem:Memory {id: row.memory_id})
MATCH (s:Entity {key: row.source_key})
MATCH (t:Entity {key: row.target_key})
MERGE (s)-[r:DOES {memory_id: row.memory_id, day: row.day}]->(t)
  ON CREATE SET r.confidence = row.confidence, r.extractor = row.extractor,
                r.valid_from = datetime({date: row.day}),
                r.valid_to = datetime({date: row.day}) + duration('P1D'),
                r.since = row.said_at, r.invalidated_at = mem.invalidated_at
RETURN count(r) AS activities
