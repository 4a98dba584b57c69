// How many memories need `engram reembed` under the current embedding model.
MATCH (m:Memory)
WHERE {{memory_stale}}
RETURN count(m) AS stale
