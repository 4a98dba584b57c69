// Give memories written before happened_start/happened_end existed their bounds, as the write
// path sets them (service/ingest/write_plan.py). Auto-commit, in batches.
MATCH (m:Memory)
WHERE m.happened_end IS NULL AND m.said_at IS NOT NULL
CALL (m) {
  SET m.happened_start = coalesce(m.valid_from, m.said_at),
      m.happened_end = coalesce(m.valid_to, m.said_at)
} IN TRANSACTIONS OF 10000 ROWS
