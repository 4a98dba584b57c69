// Memories linked by another linker version than $version (service/relink.py), every scope:
// written before entities were linked as they are now.
MATCH (m:Memory)
WHERE m.linker_version IS NULL OR m.linker_version <> $version
RETURN count(m) AS unlinked
