// One vector index partition (service/store/vector_shards.py): the memories of the users whose
// id falls in partition {shard}. {shard} and {dimensions} are checked integers.
CREATE VECTOR INDEX memory_embedding_shard_{shard} IF NOT EXISTS
  FOR (m:MemoryShard_{shard}) ON m.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: {dimensions}, `vector.similarity_function`: 'cosine'}}
