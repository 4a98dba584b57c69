// The scope's entities as the linker needs them (service/nlp/entities/linking.py): names, aliases and
// the type with the confidence behind it. Read once per add, while the facts are embedded:
// the $limit most recently seen, so that the linker's cost stays bounded in a large scope
// (Settings.link_known_max; an entity not seen for that long is found again by name).
MATCH (n:Entity)
WHERE {{in_scope}}
WITH n ORDER BY n.last_seen DESC LIMIT $limit
RETURN n.key AS key, n.name AS name, n.type AS type,
       coalesce(n.type_confidence, 0.0) AS type_confidence, coalesce(n.aliases, []) AS aliases,
       coalesce(n.type_votes, []) AS type_votes, coalesce(n.label_votes, []) AS label_votes
