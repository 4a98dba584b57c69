// A memory as a search hit carries it: its fields ({{memory_fields}}), the messages it was
// derived from and the entities it mentions. Included as {{memory_hit}}; the node variable is
// `m`. The retrievers load it with their answer for the hits fusion can keep
// (retrieval/hybrid.py), fetch_hits for the rest.
{memory: {{memory_fields}},
 sources: COLLECT { MATCH (m)-[:DERIVED_FROM]->(msg:Message)
                    RETURN msg {.id, .external_id, .text, .speaker,
                                said_at: toString(msg.said_at), .session_id} },
 entities: COLLECT { MATCH (m)-[r:MENTIONS]->(e:Entity)
                     RETURN e {.name, .type, extractor: r.extractor} }}
