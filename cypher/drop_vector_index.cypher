// Drop the memory vector index before it is rebuilt for another vector size (engram reembed);
// schema.cypher creates it again.
DROP INDEX memory_embedding IF EXISTS
