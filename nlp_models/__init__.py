"""The NLP tables (patterns, relations, lexicons); shipped in the wheel as service.nlp_models."""
