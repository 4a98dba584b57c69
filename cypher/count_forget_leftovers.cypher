// Proof of absence after forget(scope): nodes the scope still holds (read events and deferred
// adds included), its events that still hold text, and what the full-text and vector indexes
// return inside the scope for the forgotten texts ($phrases, exact Lucene phrases), entity
// names ($names) and embeddings. All zero means nothing of the scope can be found any more.
CALL () {
  MATCH (n)
  WHERE (n:Message OR n:Memory OR n:Entity OR n:ReadEvent OR n:PendingAdd) AND {{in_scope}}
  RETURN count(n) AS nodes_left
}
CALL () {
  MATCH (n:MemoryEvent)
  WHERE {{in_scope}} AND (n.old_text IS NOT NULL OR n.new_text IS NOT NULL)
  RETURN count(n) AS texts_left
}
CALL () {
  UNWIND $phrases AS phrase
  CALL db.index.fulltext.queryNodes('memory_text', phrase) YIELD node AS n
  WHERE {{in_scope}}
  RETURN count(n) AS fulltext_hits
}
CALL () {
  UNWIND $names AS name
  CALL db.index.fulltext.queryNodes('entity_name', name) YIELD node AS n
  WHERE {{in_scope}}
  RETURN count(n) AS entity_hits
}
CALL () {
  UNWIND $embeddings AS embedding
  CALL db.index.vector.queryNodes('memory_embedding', $probe_k, embedding) YIELD node AS n
  WHERE {{in_scope}}
  RETURN count(n) AS vector_hits
}
RETURN nodes_left, texts_left, fulltext_hits, entity_hits, vector_hits
