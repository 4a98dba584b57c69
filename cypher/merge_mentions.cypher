// The MENTIONS edges of memories with their span; the entities exist (merge_entities runs
// first in the same transaction). role: "subject" for the speaker of a first-person fact.
UNWIND $mentions AS row
MATCH (mem:Memory {id: row.memory_id})
MATCH (e:Entity {key: row.key})
MERGE (mem)-[r:MENTIONS {start: row.start, end: row.end}]->(e)
  ON CREATE SET r.extractor = row.extractor, r.confidence = row.confidence, r.role = row.role
RETURN count(r) AS mentions
