// Typed relations between entities, one edge per supporting memory (memory_id), carrying the
// memory's time: valid_from/valid_to when it happened or held, since when it was said (what
// asOf reads), and invalidated_at once that memory is superseded (apply_supersessions). An
// inferred relation (family.py) is marked so: its memory closed a chain but does not state it.
// The type is one of service.nlp.relations.RelationType, checked before it is sent; it travels as
// a parameter ($(row.type)), never in the text.
UNWIND $relations AS row
MATCH (mem:Memory {id: row.memory_id})
MATCH (s:Entity {key: row.source_key})
MATCH (t:Entity {key: row.target_key})
MERGE (s)-[r:$(row.type) {memory_id: row.memory_id}]->(t)
  ON CREATE SET r.confidence = row.confidence, r.extractor = row.extractor,
                r.inferred = row.inferred,
                r.valid_from = mem.valid_from, r.valid_to = mem.valid_to,
                r.since = coalesce(mem.said_at, mem.created_at),
                r.invalidated_at = mem.invalidated_at
RETURN count(r) AS relations
