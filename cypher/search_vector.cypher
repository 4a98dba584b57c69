// Retriever 1: nearest memories by embedding, over-fetched so that a small scope among many is
// not starved, then filtered to what the caller may see. $vector_index is the global index or
// the caller's user's partition (service/store/index_shards.py).
CALL db.index.vector.queryNodes($vector_index, $fetch_k, $embedding) YIELD node AS m, score
WHERE {{memory_visible}}
WITH m, score ORDER BY score DESC LIMIT $limit
WITH collect({m: m, score: score}) AS rows
// The hits fusion can keep from this answer come loaded ({{memory_hit}}), except those in
// $loaded (the full-text and graph answer loaded them): its first $preload, the first $preload
// of the named $speakers (their ranking is taken from this answer: retrieval.hybrid.
// speaker_route), and those the other lists also hold ($known). Any other memory is outranked
// by $preload memories on every list it is on (retrieval/hybrid.py).
WITH rows, [r IN rows WHERE r.m.speaker IN $speakers][..$preload] AS voiced
UNWIND range(0, size(rows) - 1) AS i
WITH rows[i].m AS m, rows[i].score AS score, i, voiced
WITH m, score, (i < $preload OR m.id IN $known OR any(v IN voiced WHERE v.m = m))
              AND NOT m.id IN $loaded AS load
// The speaker comes along: the named speakers' ranking can be taken from the same answer.
RETURN collect({id: m.id, score: score, speaker: m.speaker,
                hit: CASE WHEN load THEN {{memory_hit}} END}) AS hits
