// Store incoming messages verbatim (the episodic layer); an existing id is left untouched.
UNWIND $messages AS row
MERGE (msg:Message {id: row.id})
  ON CREATE SET msg += row.props, msg.created_at = datetime()
RETURN count(msg) AS messages
