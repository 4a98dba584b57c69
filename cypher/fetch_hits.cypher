// Load the fused hits with their evidence: source messages and mentioned entities.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE {{memory_visible}}
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg:Message)
WITH m, collect(msg {.id, .external_id, .text, .speaker, .said_at, .session_id}) AS sources
OPTIONAL MATCH (m)-[r:MENTIONS]->(e:Entity)
RETURN {{memory_fields}} AS memory, sources,
       collect(e {.name, .type, extractor: r.extractor}) AS entities
