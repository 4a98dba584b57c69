// Timeline for dashboards: memories per day / week (from Monday) / month, in UTC, on one clock:
// 'said' buckets by said_at, 'happened' by valid_from (or said_at when the fact has no time of
// its own). Superseded memories count: they were said, and they did hold. Empty buckets are
// not returned. $unit is 'day', 'week' or 'month'; [$start, $end) bounds the clock, each
// optional.
MATCH (m:Memory)
WHERE {{memory_in_scope}}
WITH CASE $clock WHEN 'happened' THEN coalesce(m.valid_from, m.said_at) ELSE m.said_at END AS t
WHERE t IS NOT NULL
  AND ($start IS NULL OR t >= $start)
  AND ($end IS NULL OR t < $end)
WITH date.truncate($unit, datetime({datetime: t, timezone: 'UTC'})) AS bucket_start
RETURN bucket_start, count(*) AS count
ORDER BY bucket_start
