// Memories with said_at (every memory the write path makes) and memories with happened_end
// (the HAPPENED window's bound, from this version on), each counted from its range index:
// fewer bounds than said_at means memories written before the bound existed.
CALL () { MATCH (m:Memory) WHERE m.said_at IS NOT NULL RETURN count(m) AS said }
CALL () { MATCH (m:Memory) WHERE m.happened_end IS NOT NULL RETURN count(m) AS bounded }
RETURN said, bounded
