// The entities some memories mention (before they are relinked: those left unmentioned go).
UNWIND $ids AS id
MATCH (:Memory {id: id})-[:MENTIONS]->(e:Entity)
RETURN collect(DISTINCT e.key) AS keys
