// Dashboard stats for one scope: memories (all / current / superseded), messages, entities,
// MENTIONS edges, audit events, and the first and last time a memory was said.
CALL () {
  MATCH (n:Memory)
  WHERE {{in_scope}}
  RETURN count(n) AS memories,
         count(CASE WHEN n.invalidated_at IS NULL THEN 1 END) AS current_memories,
         count(n.invalidated_at) AS superseded,
         min(n.said_at) AS first_said_at, max(n.said_at) AS last_said_at
}
CALL () {
  MATCH (n:Memory)-[r:MENTIONS]->(:Entity)
  WHERE {{in_scope}}
  RETURN count(r) AS mentions
}
CALL () {
  MATCH (n:Message)
  WHERE {{in_scope}}
  RETURN count(n) AS messages
}
CALL () {
  MATCH (n:Entity)
  WHERE {{in_scope}}
  RETURN count(n) AS entities
}
CALL () {
  MATCH (n:MemoryEvent)
  WHERE {{in_scope}}
  RETURN count(n) AS events
}
RETURN memories, current_memories, superseded, messages, entities, mentions, events,
       first_said_at, last_said_at
