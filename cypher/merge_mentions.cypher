// The MENTIONS edges of memories with their span; the entities exist (merge_entities runs
// first in the same transaction). role: "subject" for the speaker of a first-person fact;
// surface: the words; link: how they found the entity (service/nlp/entities/linking.py).
UNWIND $mentions AS row
MATCH (mem:Memory {id: row.memory_id})
MATCH (e:Entity {key: row.key})
MERGE (mem)-[r:MENTIONS {start: row.start, end: row.end}]->(e)
  ON CREATE SET r.extractor = row.extractor, r.confidence = row.confidence, r.role = row.role,
                r.surface = row.surface, r.link = row.link
RETURN count(r) AS mentions
