// A fact seen again in another message: the memory gains that message as a source, nothing else.
UNWIND $links AS row
MATCH (mem:Memory {id: row.memory_id})
WITH mem, row, [s IN row.source_ids WHERE NOT s IN mem.source_ids] AS fresh
SET mem.source_ids = mem.source_ids + fresh
WITH mem, fresh
UNWIND fresh AS source_id
MATCH (msg:Message {id: source_id})
MERGE (mem)-[:DERIVED_FROM]->(msg)
RETURN count(*) AS linked
