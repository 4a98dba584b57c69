// Store memories with provenance; ids are derived from scope + hash, so a repeat writes nothing.
// A known memory seen again in another message only gains that message as a source.
UNWIND $memories AS row
MERGE (mem:Memory {id: row.id})
  ON CREATE SET mem += row.props, mem.source_ids = row.source_ids,
                mem.created_at = datetime(), mem.updated_at = datetime(),
                mem.access_count = 0, mem._new = true
  ON MATCH SET mem.source_ids = mem.source_ids +
                [s IN row.source_ids WHERE NOT s IN mem.source_ids]
WITH mem, row
UNWIND row.source_ids AS source_id
MATCH (msg:Message {id: source_id})
MERGE (mem)-[:DERIVED_FROM]->(msg)
WITH DISTINCT mem
WITH mem, coalesce(mem._new, false) AS created
REMOVE mem._new
RETURN mem.id AS id, created
