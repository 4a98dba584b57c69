// Which of the names a question holds speak in the caller's scope (any memory of theirs will
// do, so each name stops at its first match).
UNWIND $names AS name
WITH name
WHERE EXISTS { MATCH (n:Memory) WHERE n.speaker = name AND {{in_scope}} }
RETURN collect(name) AS speakers
