# make build: venv + install + render everything in cards/ into output/
# make test:  venv + install + the whole test suite
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: build test check lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

build: $(STAMP)
	$(VENV)/bin/pnp check
	$(VENV)/bin/pnp build

test: $(STAMP)
	$(PY) -m pytest

check: $(STAMP)
	$(VENV)/bin/pnp check

lint: $(STAMP)
	$(VENV)/bin/ruff check pnp tests bench
	$(VENV)/bin/mypy pnp

bench: $(STAMP)
	$(PY) bench/check_bench.py
	$(PY) bench/build_bench.py

clean:
	rm -rf output $(VENV)
