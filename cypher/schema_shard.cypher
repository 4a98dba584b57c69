// One index partition (service/store/index_shards.py): vector and full-text indexes over the
// memories of the users whose id falls in partition {shard}. {shard} and {dimensions} are
// checked integers.
CREATE VECTOR INDEX memory_embedding_shard_{shard} IF NOT EXISTS
  FOR (m:MemoryShard_{shard}) ON m.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: {dimensions}, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX memory_text_shard_{shard} IF NOT EXISTS
  FOR (m:MemoryShard_{shard}) ON EACH [m.text, m.source_text, m.context_text];
