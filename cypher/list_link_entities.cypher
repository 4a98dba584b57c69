// The scope's entities as the linker needs them (service/nlp/linking.py): names, aliases and
// the type with the confidence behind it. Read once per add, while the facts are embedded.
MATCH (n:Entity)
WHERE {{in_scope}}
RETURN n.key AS key, n.name AS name, n.type AS type,
       coalesce(n.type_confidence, 0.0) AS type_confidence, coalesce(n.aliases, []) AS aliases
