// Engram's schema. Applied at start-up, statement by statement; every statement is idempotent.
// {dimensions} is the embedding model's size, checked to be a positive integer before use.
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT message_id IF NOT EXISTS FOR (m:Message) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT memory_event_id IF NOT EXISTS FOR (e:MemoryEvent) REQUIRE e.id IS UNIQUE;
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON m.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: {dimensions}, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (m:Memory) ON EACH [m.text, m.source_text, m.context_text];
CREATE FULLTEXT INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases_text];
CREATE INDEX memory_user IF NOT EXISTS FOR (m:Memory) ON (m.user_id);
CREATE INDEX memory_agent IF NOT EXISTS FOR (m:Memory) ON (m.agent_id);
CREATE INDEX memory_run IF NOT EXISTS FOR (m:Memory) ON (m.run_id);
CREATE INDEX memory_hash IF NOT EXISTS FOR (m:Memory) ON (m.hash);
CREATE INDEX memory_said_at IF NOT EXISTS FOR (m:Memory) ON (m.said_at);
// A user's time window ("what did I say last month?") is one seek: without it the planner read
// the window of every user through memory_said_at (38k rows for a year of the 100k bench store).
CREATE INDEX memory_user_said_at IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.said_at);
// A user's HAPPENED window ("what happened last week?") seeks the memories that end after its
// start; the single-property index lets start-up count the memories that have the bound.
CREATE INDEX memory_user_happened_end IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.happened_end);
CREATE INDEX memory_happened_end IF NOT EXISTS FOR (m:Memory) ON (m.happened_end);
CREATE INDEX memory_valid_from IF NOT EXISTS FOR (m:Memory) ON (m.valid_from);
CREATE INDEX memory_valid_to IF NOT EXISTS FOR (m:Memory) ON (m.valid_to);
CREATE INDEX memory_invalidated_at IF NOT EXISTS FOR (m:Memory) ON (m.invalidated_at);
CREATE INDEX message_user IF NOT EXISTS FOR (m:Message) ON (m.user_id);
CREATE INDEX message_said_at IF NOT EXISTS FOR (m:Message) ON (m.said_at);
CREATE INDEX entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id);
CREATE INDEX entity_name_range IF NOT EXISTS FOR (e:Entity) ON (e.name);
CREATE INDEX event_memory IF NOT EXISTS FOR (e:MemoryEvent) ON (e.memory_id);
CREATE INDEX memory_slot IF NOT EXISTS FOR (m:Memory) ON (m.slot, m.subject);
CREATE INDEX event_at IF NOT EXISTS FOR (e:MemoryEvent) ON (e.at);
CREATE INDEX memory_speaker IF NOT EXISTS FOR (m:Memory) ON (m.speaker);
CREATE INDEX memory_embedding_model IF NOT EXISTS FOR (m:Memory) ON (m.embedding_model);
CREATE INDEX memory_linker_version IF NOT EXISTS FOR (m:Memory) ON (m.linker_version);
CREATE INDEX read_event_user IF NOT EXISTS FOR (e:ReadEvent) ON (e.user_id);
CREATE INDEX read_event_at IF NOT EXISTS FOR (e:ReadEvent) ON (e.at);
// A restored read event (engram import of an export) is merged on its id.
CREATE INDEX read_event_id IF NOT EXISTS FOR (e:ReadEvent) ON (e.id);
CREATE CONSTRAINT pending_queue_key IF NOT EXISTS FOR (q:PendingQueue) REQUIRE q.key IS UNIQUE;
CREATE CONSTRAINT pending_add_id IF NOT EXISTS FOR (p:PendingAdd) REQUIRE p.id IS UNIQUE;
CREATE INDEX pending_add_queue IF NOT EXISTS FOR (p:PendingAdd) ON (p.queue_key, p.seq);
CREATE INDEX pending_add_user IF NOT EXISTS FOR (p:PendingAdd) ON (p.user_id);
