// Entities per scope, MERGEd on their key (scope + normalised name; the type is not part of
// it). The type is a vote over every mention (service/nlp/entities/linking.py), one weight per type in
// the order of $vote_types: type_votes, the context's votes, add up; label_votes, the
// extractors' labels and what a name says of itself (head word, gazetteer), keep their
// strongest. A batch's votes join the stored ones here, under
// the node's lock, and the type with the most weight in both wins (a tie goes to the earlier
// type). A node stored before votes were kept starts from its type's confidence.
// Aliases collect every surface form seen, and alias_keys their normalised forms with the
// short forms (what entity lookups match).
UNWIND $entities AS row
MERGE (e:Entity {key: row.key})
  ON CREATE SET e.name = row.name, e.aliases = row.aliases, e.alias_keys = row.alias_keys,
                e.first_seen = datetime(row.first_seen), e.last_seen = datetime(row.last_seen),
                e += $scope
  ON MATCH SET e.first_seen = CASE WHEN datetime(row.first_seen) < e.first_seen
                                   THEN datetime(row.first_seen) ELSE e.first_seen END,
               e.last_seen = CASE WHEN datetime(row.last_seen) > e.last_seen
                                  THEN datetime(row.last_seen) ELSE e.last_seen END,
               e.aliases = e.aliases + [a IN row.aliases WHERE NOT a IN e.aliases],
               e.alias_keys = coalesce(e.alias_keys, [])
                              + [k IN row.alias_keys WHERE NOT k IN coalesce(e.alias_keys, [])]
WITH e, row, coalesce(e.type_votes, [t IN $vote_types | 0.0]) AS stored,
     coalesce(e.label_votes,
              [t IN $vote_types | CASE WHEN t = e.type THEN coalesce(e.type_confidence, 0.0)
                                       ELSE 0.0 END]) AS labels
WITH e, row,
     [i IN range(0, size($vote_types) - 1)
      | coalesce(stored[i], 0.0) + coalesce(row.type_votes[i], 0.0)] AS votes,
     [i IN range(0, size($vote_types) - 1)
      | CASE WHEN coalesce(row.label_votes[i], 0.0) > coalesce(labels[i], 0.0)
             THEN row.label_votes[i] ELSE coalesce(labels[i], 0.0) END] AS labels
WITH e, row, votes, labels, [i IN range(0, size(votes) - 1) | votes[i] + labels[i]] AS totals
WITH e, row, votes, labels, totals,
     reduce(best = 0, i IN range(0, size(totals) - 1)
            | CASE WHEN totals[i] > totals[best] THEN i ELSE best END) AS best,
     reduce(total = 0.0, v IN totals | total + v) AS total
SET e.type_votes = votes,
    e.label_votes = labels,
    e.type = CASE WHEN total > 0 THEN $vote_types[best] ELSE coalesce(e.type, row.type) END,
    e.type_confidence = CASE WHEN total > 0 THEN round(totals[best] / total, 3)
                             ELSE coalesce(e.type_confidence, row.type_confidence) END,
    e.aliases_text = reduce(s = '', a IN e.aliases | s + ' ' + a)
RETURN count(e) AS entities
