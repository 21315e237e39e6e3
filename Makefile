# The two commands a fresh machine needs: `make demo` and `make test`.
# Both create the virtual environment in .venv on first use (Python 3.11+ with venv is required).

VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

# Installs come from the locks (every package pinned, with its hashes), then the project itself without
# its dependencies, built with the locked setuptools: two checkouts of one commit get the same packages.
# Two steps, each once: what the service and the demo run on (requirements.lock: `make demo`), then
# everything the development lock holds, for the tests, benchmarks and load tests (requirements-dev.lock,
# the same versions and more: `make test`, `make install`). Each says what it is doing: pip is quiet.
LOCKED_PACKAGES = $$(grep -c '^[A-Za-z0-9].*==' $(1))
$(VENV)/.runtime: pyproject.toml requirements.lock
	@echo "make: installing the service into $(VENV): $(call LOCKED_PACKAGES,requirements.lock) packages of requirements.lock (once; about a minute)"
	@$(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

$(VENV)/.installed: $(VENV)/.runtime requirements-dev.lock
	@echo "make: adding the tests' and tools' packages to $(VENV): all $(call LOCKED_PACKAGES,requirements-dev.lock) of requirements-dev.lock (once; a few minutes)"
	@$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.lock
	@touch $@

.PHONY: install lock demo test ladder bench bench-service engine
install: $(VENV)/.installed

# The engine's hot modules compiled by mypyc for the sources as they are (engine/builds.py), into .venv, never
# beside the sources: a no-op when that build is there, a minute or two when not, nothing without a C
# compiler. Until it is built (after any edit to engine/) the engine runs as Python, so `make demo` does not
# wait for it; `make test` builds it, then tests both builds.
engine: $(VENV)/.installed
	$(PY) -m engine.build

# After a change to the dependencies of pyproject.toml: resolve them again (uv, a few seconds), keeping
# every version already locked that still fits. requirements-dev.lock holds everything `make install`
# puts in .venv; requirements.lock, what the image installs, is the service's part of it at the same
# versions. Both for every platform (--universal), each file with its hashes. `make lock UPGRADE=1`
# moves every package to its newest release.
UV_COMPILE = $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	--quiet --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)
lock: $(VENV)/.installed
	$(UV_COMPILE) --extra dev -o requirements-dev.lock
	$(UV_COMPILE) -c requirements-dev.lock -o requirements.lock

demo: $(VENV)/.runtime
	$(VENV)/bin/typhoon demo

# The ladder on one machine: a service of its own, two bots registered (each as its own owner, from an
# address of its own) seeking until they have played MATCHES ladder matches, then the standings and a
# replay check. BOTS: strategy[:name=value...][:count],... (a package.module:callable of yours too).
MATCHES ?= 4
BOTS ?= heuristic,random
ladder: $(VENV)/.runtime
	$(PY) -m loadtests.ladder_run --matches $(MATCHES) --bots $(BOTS) --time-control 120+2 --first-action 30 --verify 1

# One test process per core (pytest-xdist; PYTEST_WORKERS=0: a single process), each with its own embedded
# Redis and service; a file's tests stay together in one process (--dist loadfile). pytest's last line
# gives the run's duration, --durations the slowest tests.
PYTEST_WORKERS ?= auto
test: $(VENV)/.installed engine
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=15

bench: $(VENV)/.installed engine
	$(PY) benchmarks/engine_selfplay.py

# a call to typhoon serve against a no-op gRPC server and a no-op ASGI app, same client, same run
bench-service: $(VENV)/.installed
	$(PY) benchmarks/service_floor.py
