// Drop one memory full-text index by name; {name} is checked against MEMORY_TEXT_INDEX first
// (service/store/schema.py).
DROP INDEX {name} IF EXISTS
