// How large the caller's scope is beside the whole store: how many memories the vector index's
// global top-k must hold for this scope to get its share. `total` comes from the count store;
// `scoped` through the scope property indexes (once bind_optional has resolved the filters).
CALL () { MATCH (every:Memory) RETURN count(every) AS total }
RETURN total, COUNT { MATCH (n:Memory) WHERE {{in_scope}} } AS scoped
