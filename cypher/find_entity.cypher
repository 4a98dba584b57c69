// An entity by name inside one scope. The caller passes the candidate keys (scope + type +
// normalised name, one per entity type asked about); when a name exists under several types,
// the most mentioned one wins. mention_count counts every MENTIONS edge, superseded or not.
MATCH (n:Entity)
WHERE n.key IN $keys AND {{in_scope}}
WITH n, COUNT { (n)<-[:MENTIONS]-() } AS mention_count
RETURN n {.key, .name, .type, .aliases, .first_seen, .last_seen,
          mention_count: mention_count} AS entity
ORDER BY mention_count DESC, n.type
LIMIT 1
