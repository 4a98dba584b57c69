// forget(scope): the scope's read events go with it; they hold its ids and query hashes.
MATCH (n:ReadEvent)
WHERE {{in_scope}}
DELETE n
RETURN count(*) AS deleted
