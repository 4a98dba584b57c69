// Entities per scope, MERGEd on their key (scope + normalised name; the type is not part of
// it). The type is what the strongest evidence says (service/nlp/linking.py weighs it): a
// stored type changes only for a stronger one. Aliases collect every surface form seen, and
// alias_keys their normalised forms with the short forms (what entity lookups match).
UNWIND $entities AS row
MERGE (e:Entity {key: row.key})
  ON CREATE SET e.name = row.name, e.type = row.type, e.type_confidence = row.type_confidence,
                e.aliases = row.aliases, e.alias_keys = row.alias_keys,
                e.first_seen = datetime(row.first_seen), e.last_seen = datetime(row.last_seen),
                e += $scope
  ON MATCH SET e.first_seen = CASE WHEN datetime(row.first_seen) < e.first_seen
                                   THEN datetime(row.first_seen) ELSE e.first_seen END,
               e.last_seen = CASE WHEN datetime(row.last_seen) > e.last_seen
                                  THEN datetime(row.last_seen) ELSE e.last_seen END,
               e.aliases = e.aliases + [a IN row.aliases WHERE NOT a IN e.aliases],
               e.alias_keys = coalesce(e.alias_keys, [])
                              + [k IN row.alias_keys WHERE NOT k IN coalesce(e.alias_keys, [])],
               e.type = CASE WHEN row.type_confidence > coalesce(e.type_confidence, 0.0)
                             THEN row.type ELSE e.type END,
               e.type_confidence = CASE WHEN row.type_confidence > coalesce(e.type_confidence, 0.0)
                                        THEN row.type_confidence ELSE e.type_confidence END
SET e.aliases_text = reduce(s = '', a IN e.aliases | s + ' ' + a)
RETURN count(e) AS entities
