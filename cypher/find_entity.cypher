// An entity by name or alias inside one scope: $key is the scope + normalised name, $form the
// normalised name alone (matched against each entity's alias_keys: surface forms and short
// forms). An exact key wins, then the most mentioned. $types narrows the types (null: any).
MATCH (n:Entity)
WHERE {{in_scope}} AND (n.key = $key OR $form IN coalesce(n.alias_keys, []))
  AND ($types IS NULL OR n.type IN $types)
WITH n, COUNT { (n)<-[:MENTIONS]-() } AS mention_count
RETURN n {.key, .name, .type, .aliases, .first_seen, .last_seen,
          mention_count: mention_count} AS entity
ORDER BY CASE WHEN n.key = $key THEN 0 ELSE 1 END, mention_count DESC, n.type
LIMIT 1
