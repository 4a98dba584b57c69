// Erase the texts of the given events of the scope; the op, memory id, actor and time stay.
UNWIND $ids AS id
MATCH (n:MemoryEvent {id: id})
WHERE {{in_scope}}
SET n.old_text = null, n.new_text = null, n.redacted_at = datetime($now)
RETURN collect(id) AS redacted
