// The current LIKES, DISLIKES, USES and DOES relations of some subjects, for a batch's changes of
// mind and inferred preferences (service/ingest/preferences.py): all of a subject's when
// ask.target_keys is null, else only those to these things. Entity keys hold the scope, so a
// subject's relations are its scope's. day: the day a DOES happened.
UNWIND $asks AS ask
MATCH (s:Entity {key: ask.subject_key})-[r:LIKES|DISLIKES|USES|DOES]->(t:Entity)
WHERE r.invalidated_at IS NULL AND (ask.target_keys IS NULL OR t.key IN ask.target_keys)
RETURN s.key AS subject_key, type(r) AS type, t.key AS target_key, t.name AS target_name,
       r.memory_id AS memory_id, coalesce(r.inferred, false) AS inferred, r.since AS said_at,
       r.day AS day
