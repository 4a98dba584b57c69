// Whether a typed relation (variable `r`) stands for the read: current ones, or those that
// stood at $as_of (said by then, not yet closed by a superseding memory). Included as
// {{relation_visible}}.
CASE WHEN $as_of IS NULL THEN r.invalidated_at IS NULL
     ELSE r.since <= $as_of AND (r.invalidated_at IS NULL OR r.invalidated_at > $as_of) END
