// Health check: the database answers a read.
RETURN 1 AS ok
