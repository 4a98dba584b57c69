// How many memories of the caller's scope each of the names a question holds speaks (0: not a
// speaker here), through the speaker index. The count sizes the speaker retriever's route
// (retrieval.hybrid.speaker_route) and is reused while fresh (store/scope_sizes.py).
UNWIND $names AS name
RETURN collect({name: name,
                memories: COUNT { MATCH (n:Memory) WHERE n.speaker = name AND {{in_scope}} }})
       AS speakers
