# The two commands of the README: `make run` and `make test`. Both set everything up first.
# Another Python (3.11-3.13), in a venv of its own: VENV=.venv-3.13 PYTHON=python3.13 make test
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint bench neo4j-stop

setup:
	./scripts/setup.sh

# Local mode (no API keys) is chosen explicitly here; the service listens on loopback only.
run: setup
	ENGRAM_AUTH_MODE=local $(BIN)/engram serve

lint: setup
	$(BIN)/ruff check service tests bench
	$(BIN)/ruff format --check service tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python -m bench.locomo ../shared/data/locomo-dev.json

neo4j-stop:
	$(BIN)/engram neo4j stop
