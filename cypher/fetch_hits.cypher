// Load the fused hits with their evidence: source messages and mentioned entities.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE {{memory_visible}}
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg:Message)
WITH m, collect(msg {.id, .external_id, .text, .speaker, said_at: toString(msg.said_at),
                     .session_id}) AS sources
OPTIONAL MATCH (m)-[r:MENTIONS]->(e:Entity)
WITH m, sources, collect(e {.name, .type, extractor: r.extractor}) AS entities
// One row holding every hit: the driver's cost is per row (GraphStore.retrieve).
RETURN collect({memory: {{memory_fields}}, sources: sources, entities: entities}) AS hits
