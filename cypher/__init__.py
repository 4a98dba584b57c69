"""The Cypher statements, one per file; shipped in the wheel as service.cypher."""
