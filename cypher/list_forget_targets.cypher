// Everything forget(scope) removes, by id: the scope's messages, memories and entities, every
// edge touching them (by element id), and the scope's events that still hold text; and how many
// read events (the read audit) the scope holds. The dry run reports this; the real run deletes
// exactly these ids, and every read event of the scope. With $with_content the texts, entity
// names and embeddings come too, so that the real run can probe the indexes for them after.
CALL () {
  MATCH (n:Message)
  WHERE {{in_scope}}
  WITH n ORDER BY n.id
  RETURN collect(n.id) AS messages, collect(CASE WHEN $with_content THEN n.text END) AS message_texts
}
CALL () {
  MATCH (n:Memory)
  WHERE {{in_scope}}
  WITH n ORDER BY n.id
  RETURN collect(n.id) AS memories,
         collect(CASE WHEN $with_content THEN n.text END) AS memory_texts,
         collect(CASE WHEN $with_content THEN n.source_text END) AS source_texts,
         collect(CASE WHEN $with_content THEN n.embedding END) AS embeddings
}
CALL () {
  MATCH (n:Entity)
  WHERE {{in_scope}}
  WITH n ORDER BY n.key
  RETURN collect(n.key) AS entities, collect(CASE WHEN $with_content THEN n.name END) AS entity_names
}
CALL () {
  MATCH (n)-[r]-()
  WHERE (n:Message OR n:Memory OR n:Entity) AND {{in_scope}}
  WITH DISTINCT r
  WITH r, startNode(r) AS a, endNode(r) AS b
  ORDER BY type(r), elementId(r)
  RETURN collect({id: elementId(r), type: type(r), source: coalesce(a.id, a.key),
                  target: coalesce(b.id, b.key)}) AS edges
}
CALL () {
  MATCH (n:MemoryEvent)
  WHERE {{in_scope}} AND (n.old_text IS NOT NULL OR n.new_text IS NOT NULL)
  WITH n ORDER BY n.id
  RETURN collect(n.id) AS events
}
CALL () {
  MATCH (n:ReadEvent)
  WHERE {{in_scope}}
  RETURN count(n) AS read_events
}
RETURN messages, message_texts, memories, memory_texts, source_texts, embeddings, entities,
       entity_names, edges, events, read_events
