"""The local Neo4j server's Maven file, conf template and Neo4j Browser files.

Shipped in the wheel as service.neo4j_server (pyproject's package-dir); neo4j/ itself has no
__init__.py, so a checkout on sys.path never hides the neo4j driver.
"""
