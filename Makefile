# mlkata: `make run` serves the app, `make test` runs every test. Both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# pytest workers for `make test`: one per CPU (TEST_WORKERS=0: all in one process). Each test module goes to
# one worker whole (--dist loadfile), so what a module makes once (a server, a browser, recorded grades) is
# made once. Not loadgroup: with pytest 9.2 it no longer groups anything (pytest-xdist issue 1386).
TEST_WORKERS ?= auto

FRONTEND_DEPS := node_modules/.installed-stamp
FRONTEND := static/dist/.built-stamp

.PHONY: run test lint lint-frontend test-frontend check unit redteam browser install system-packages browser-packages frontend bench loadtest clean

run: install frontend
	$(BIN)/mlkata serve --host $(HOST) --port $(PORT)

test: install frontend browser-packages
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) --no-print-directory lint-frontend test-frontend
	$(BIN)/mlkata check --mutation
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# Not a stamp rule: a stamp cannot tell whose virtualenv it sits in. The script checks that $(VENV) was made
# here, that its Python runs and that mlkata is installed from this checkout; it makes the virtualenv again
# or reinstalls when not (a .venv copied from another checkout, an editable install of another path).
install: system-packages
	@$(PYTHON) scripts/ensure-venv $(VENV)

system-packages:
	@scripts/ensure-system-packages bwrap=bubblewrap prlimit=util-linux setpriv=util-linux

browser-packages:
	@scripts/ensure-system-packages chromium=chromium

# The front end: npm ci when the lock file changes, esbuild when a source changes.
frontend: $(FRONTEND)

$(FRONTEND_DEPS): package.json package-lock.json
	@scripts/ensure-system-packages node=nodejs npm=npm
	npm ci --no-audit --no-fund
	touch $@

$(FRONTEND): $(FRONTEND_DEPS) static/build.mjs static/favicon.svg $(wildcard static/src/*)
	node static/build.mjs
	touch $@

lint: install $(FRONTEND_DEPS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) --no-print-directory lint-frontend

# The front end's JavaScript: its JSDoc types (tsc, tsconfig.json), Biome's lint (biome.json), and the
# tests of its pure functions (tests/frontend, Node's own test runner).
lint-frontend: $(FRONTEND_DEPS)
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/biome lint --error-on-warnings

test-frontend: $(FRONTEND_DEPS)
	node --test tests/frontend/*.test.mjs

check: install
	$(BIN)/mlkata check

unit: install
	$(BIN)/python -m pytest -m "not browser and not redteam"

redteam: install
	$(BIN)/python -m pytest -m redteam

browser: install frontend browser-packages
	$(BIN)/python -m pytest -m browser

clean:
	rm -rf $(VENV) node_modules static/dist .pytest_cache .ruff_cache .mypy_cache

bench: install
	$(BIN)/python bench/grading_latency.py
	$(BIN)/python bench/exercise_latency.py

# 1,000 submissions at concurrency 50 through mlkata serve + 2 workers (fresh PostgreSQL database,
# private redis-server), then a fault run (kill -9 a worker, restart the web and Redis mid-run).
loadtest: install
	$(BIN)/python -m loadtest.run

# The Dockerfile and docker-compose.yml for real (deploy/main.py): podman (Debian's, installed when
# missing) or Docker, base-image stand-ins built from Debian packages where none can be pulled, the
# image alone and the compose stack graded through HTTP, a worker killed mid-grade, a restart, and
# everything removed again. About 5.5 minutes on a fresh machine, 2 with the cache (docs/deployment.md).
.PHONY: deploy-test
deploy-test: install
	$(BIN)/python -m deploy.main
