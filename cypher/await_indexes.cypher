// Block until every index is online (after the schema is applied).
CALL db.awaitIndexes($seconds)
