// The end of an embedding ranking (search_vector, search_time_window): from rows of `m` and
// `score`, best first, it returns `hits`, the first $limit, and `voiced`, the first $limit of
// the named $cover.speakers (their ranking is taken from the same answer: retrieval.hybrid).
// Each row is {id, score, speaker, hit}, `hit` being {{memory_hit}} for the hits fusion can
// keep, except those in $cover.loaded (another answer loaded them): the first $cover.first of
// each list and those another ranking also holds ($cover.known). Any other memory is outranked
// by $cover.first memories on every list it is on (retrieval.hybrid.cover). $cover is one map
// so that its lists being empty or not makes no other plan: Neo4j keys its plans by the
// parameters' types too, and plans this statement in ~300 ms. Included as {{ranked_hits}} on a
// line of its own.
WITH collect({m: m, score: score}) AS ranked
WITH ranked[..$limit] AS rows,
     [r IN ranked WHERE r.m.speaker IN $cover.speakers][..$limit] AS voiced
WITH rows, voiced, [r IN voiced[..$cover.first] | r.m] AS voiced_first,
     [r IN rows | r.m] AS nodes
CALL (rows, voiced_first) {
  UNWIND range(0, size(rows) - 1) AS i
  WITH rows[i].m AS m, rows[i].score AS score,
       i < $cover.first OR rows[i].m IN voiced_first OR rows[i].m.id IN $cover.known AS load
  RETURN collect({id: m.id, score: score, speaker: m.speaker,
                  hit: CASE WHEN load AND NOT m.id IN $cover.loaded THEN {{memory_hit}} END})
    AS hits
}
CALL (voiced, nodes) {
  UNWIND range(0, size(voiced) - 1) AS i
  WITH voiced[i].m AS m, voiced[i].score AS score,
       (i < $cover.first OR voiced[i].m.id IN $cover.known) AND NOT voiced[i].m IN nodes AS load
  RETURN collect({id: m.id, score: score, speaker: m.speaker,
                  hit: CASE WHEN load AND NOT m.id IN $cover.loaded THEN {{memory_hit}} END})
    AS voiced_hits
}
// One row holding both lists: the driver's cost is per row (GraphStore.retrieve).
RETURN hits, voiced_hits AS voiced
