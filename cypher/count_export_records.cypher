// How many records of each kind an export of the scope writes (docs/export.md).
CALL () {
  MATCH (n:Message)
  WHERE {{in_scope}}
  RETURN count(n) AS messages
}
CALL () {
  MATCH (n:Memory)
  WHERE {{in_scope}}
  CALL (n) {
    OPTIONAL MATCH (n)-[r:MENTIONS]->(:Entity)
    RETURN count(r) AS mentions
  }
  CALL (n) {
    OPTIONAL MATCH (n)-[s:SUPERSEDES]->(:Memory)
    RETURN count(s) AS supersessions
  }
  RETURN count(n) AS memories, sum(mentions) AS mentions, sum(supersessions) AS supersessions
}
CALL () {
  MATCH (n:Entity)
  WHERE {{in_scope}}
  CALL (n) {
    OPTIONAL MATCH (n)-[r]->(:Entity)
    RETURN count(r) AS relations
  }
  RETURN count(n) AS entities, sum(relations) AS relations
}
CALL () {
  MATCH (n:MemoryEvent)
  WHERE {{in_scope}}
  RETURN count(n) AS memory_events
}
CALL () {
  MATCH (n:ReadEvent)
  WHERE {{in_scope}}
  RETURN count(n) AS read_events
}
RETURN messages, memories, entities, mentions, relations, supersessions, memory_events,
       read_events
