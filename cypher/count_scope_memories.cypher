// How large the caller's scope is beside what its vector index holds: how many memories the
// index's top-k must hold for this scope to get its share. /*index_label*/ is :Memory (the
// global index) or the user's partition label (service/store/index_shards.py), so that `total`
// comes from the count store; `scoped` through the scope property indexes (once bind_optional
// has resolved the filters).
CALL () { MATCH (every/*index_label*/) RETURN count(every) AS total }
RETURN total, COUNT { MATCH (n:Memory) WHERE {{in_scope}} } AS scoped
