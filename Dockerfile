# The Engram service for users who have Docker; Neo4j runs beside it (docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
ENV PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
COPY pyproject.toml README.md ./
COPY service ./service
COPY cypher ./cypher
COPY nlp_models ./nlp_models
COPY neo4j ./neo4j
RUN pip install -e .
ENV ENGRAM_API_HOST=0.0.0.0 ENGRAM_API_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=12 \
  CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)" || exit 1
CMD ["engram", "serve"]
