// One dashboard page of memories with the size of the whole filtered set. The markers are
// filled only by service.retrieval.filters (see service.store.dashboard_queries.fill_markers):
// /*where*/ the caller's filter, /*keys*/ the sort key list, /*after*/ the cursor predicate,
// /*order*/ the ORDER BY items (the id last, so that pages never overlap or skip).
CALL () {
  MATCH (m:Memory)
  WHERE {{memory_in_scope}} /*where*/
  RETURN count(m) AS total
}
CALL () {
  MATCH (m:Memory)
  WHERE {{memory_in_scope}} /*where*/
  WITH m, /*keys*/ AS sort_key
  WHERE true /*after*/
  WITH m, sort_key
  ORDER BY /*order*/
  LIMIT $limit
  RETURN collect({node: {{memory_fields}}, sort_key: sort_key, id: m.id}) AS rows
}
RETURN total, rows
