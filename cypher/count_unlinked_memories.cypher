// Memories linked by another linker version than $version (service/lifecycle/relink.py), every scope:
// written before entities were linked as they are now. All memories (the count store) less
// those of this version (the memory_linker_version index), so start-up reads no memory.
CALL () {
  MATCH (m:Memory)
  RETURN count(m) AS total
}
CALL () {
  MATCH (m:Memory)
  WHERE m.linker_version = $version
  RETURN count(m) AS linked
}
RETURN total - linked AS unlinked
