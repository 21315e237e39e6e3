# The two commands a fresh machine needs: `make demo` and `make test`.
# Both create the virtual environment in .venv on first use (Python 3.11+ with venv is required).

VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

# Installs come from the lock (every package pinned, with its hashes), then the project itself without
# its dependencies, built with the locked setuptools: two checkouts of one commit get the same packages.
$(VENV)/.installed: pyproject.toml requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

.PHONY: install lock demo test bench bench-service engine
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

demo: $(VENV)/.installed
	$(VENV)/bin/typhoon demo

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
