// Delete the given messages, memories and entities (by id / key) of the caller's scope with
// any edge still attached; returns what was deleted.
CALL () {
  UNWIND $messages AS id
  MATCH (n:Message {id: id})
  WHERE {{in_scope}}
  DETACH DELETE n
  RETURN collect(id) AS messages
}
CALL () {
  UNWIND $memories AS id
  MATCH (n:Memory {id: id})
  WHERE {{in_scope}}
  DETACH DELETE n
  RETURN collect(id) AS memories
}
CALL () {
  UNWIND $entities AS key
  MATCH (n:Entity {key: key})
  WHERE {{in_scope}}
  DETACH DELETE n
  RETURN collect(key) AS entities
}
RETURN messages, memories, entities
