// A newer value for the same subject + slot: the old memory is invalidated (never deleted) and
// linked from the new one; the typed relations it supported are closed.
UNWIND $supersessions AS row
MATCH (new:Memory {id: row.new_id}), (old:Memory {id: row.old_id})
SET old.invalidated_at = datetime(row.at), old.updated_at = datetime($now)
// The relations the old memory supported are closed with it and kept (asOf reads them).
WITH old, new, row
CALL (old) {
  MATCH (old)-[:MENTIONS]->(:Entity)-[r]->(:Entity)
  WHERE r.memory_id = old.id
  SET r.invalidated_at = old.invalidated_at
}
MERGE (new)-[s:SUPERSEDES]->(old)
  ON CREATE SET s.reason = row.reason, s.at = datetime(row.at)
CREATE (ev:MemoryEvent {id: randomUUID(), op: 'SUPERSEDE', memory_id: old.id,
                        old_text: old.text, new_text: new.text, actor: $actor,
                        at: datetime($now)})
SET ev += $scope
RETURN old.id AS id
