// How many memories the caller may see in the query's time window, counted up to $cap: the
// search ranks a window of at most exact_scan_max memories exactly, a larger one by the index.
CALL () {
  MATCH (m:Memory)
  WHERE {{memory_visible}}
  WITH m LIMIT $cap
  RETURN count(m) AS in_window
}
RETURN in_window
