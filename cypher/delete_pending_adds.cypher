// The caller's scope's deferred adds, waiting or failed (delete_all and forget: nothing
// received before them may write to the scope afterwards).
MATCH (n:PendingAdd)
WHERE {{in_scope}}
DETACH DELETE n
RETURN count(*) AS deleted
