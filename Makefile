# The two commands a fresh machine needs: `make demo` and `make test`.
# Both create the virtual environment in .venv on first use (Python 3.11+ with venv is required).

VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

.PHONY: install demo test bench bench-service
install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(VENV)/bin/typhoon demo

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/engine_selfplay.py

# a call to typhoon serve against a no-op gRPC server and a no-op ASGI app, same client, same run
bench-service: $(VENV)/.installed
	$(PY) benchmarks/service_floor.py
