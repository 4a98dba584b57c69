// A memory as a search hit carries it: its fields ({{memory_fields}}), the messages it was
// derived from and the entities it mentions. Included as {{memory_hit}}; the node variable is
// `m`. The retrievers load it with their answer for the hits fusion can keep
// (retrieval/hybrid.py), fetch_hits for the rest. Sources come in the order they were said and
// entities by name, so the same memory always reads the same.
{memory: {{memory_fields}},
 sources: COLLECT { MATCH (m)-[:DERIVED_FROM]->(msg:Message)
                    RETURN msg {.id, .external_id, .text, .speaker,
                                said_at: toString(msg.said_at), .session_id}
                    ORDER BY msg.said_at, msg.id },
 entities: COLLECT { MATCH (m)-[r:MENTIONS]->(e:Entity)
                     RETURN e {.name, .type, extractor: r.extractor} ORDER BY e.name, e.type }}
