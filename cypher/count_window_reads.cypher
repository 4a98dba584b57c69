// How many memories an exact ranking of a user's time window reads, counted from the index
// alone (memory_user_said_at, memory_user_happened_end): those said in a SAID window, or those
// whose HAPPENED interval ends after the window starts (the rest of the window test is made on
// each of them). Routes a window before the vector index is asked (retrieval/hybrid.py).
MATCH (m:Memory)
WHERE m.user_id = $user_id
  AND ($said_from IS NULL OR m.said_at >= $said_from)
  AND ($said_to IS NULL OR m.said_at < $said_to)
  AND ($happened_from IS NULL OR m.happened_end > $happened_from)
// `within` also tests where the window ends: an upper bound of the memories in the window
// (superseded ones included), the share the vector index's answer will be filtered to.
RETURN count(m) AS reads,
       count(CASE WHEN $happened_to IS NULL OR m.happened_start < $happened_to THEN 1 END)
         AS within
