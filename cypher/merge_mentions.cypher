// Entities per scope (MERGEd on their normalised key) and the MENTIONS edges with their span.
UNWIND $mentions AS row
MATCH (mem:Memory {id: row.memory_id})
MERGE (e:Entity {key: row.key})
  ON CREATE SET e.name = row.name, e.type = row.type, e.aliases = [row.name],
                e.aliases_text = row.name, e.first_seen = datetime(row.seen),
                e.last_seen = datetime(row.seen), e += $scope
  ON MATCH SET e.last_seen = CASE WHEN datetime(row.seen) > e.last_seen
                                  THEN datetime(row.seen) ELSE e.last_seen END,
               e.aliases = CASE WHEN row.name IN e.aliases THEN e.aliases
                                ELSE e.aliases + row.name END
SET e.aliases_text = reduce(s = '', a IN e.aliases | s + ' ' + a)
MERGE (mem)-[r:MENTIONS {start: row.start, end: row.end}]->(e)
  ON CREATE SET r.extractor = row.extractor, r.confidence = row.confidence
RETURN count(r) AS mentions
