# mlkata: `make run` serves the app, `make test` runs every test. Both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint check unit redteam browser install system-packages bench clean

run: install
	$(BIN)/mlkata serve --host $(HOST) --port $(PORT)

test: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mlkata check
	$(BIN)/python -m pytest

install: system-packages $(STAMP)

system-packages:
	@scripts/ensure-system-packages bwrap=bubblewrap prlimit=util-linux setpriv=util-linux

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "mlkata needs Python 3.11 or newer"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

check: install
	$(BIN)/mlkata check

unit: install
	$(BIN)/python -m pytest -m "not browser and not redteam"

redteam: install
	$(BIN)/python -m pytest -m redteam

clean:
	rm -rf $(VENV) node_modules static/dist .pytest_cache .ruff_cache

bench: install
	$(BIN)/python bench/grading_latency.py
