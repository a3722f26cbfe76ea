# make build: venv + install + render everything in cards/ into output/
# make test:  venv + install + the whole test suite (pytest-xdist, work-stealing: see tests/conftest.py)
# make dist:  the sdist and wheel a user installs, into dist/
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: build test check lint bench dist clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

build: $(STAMP)
	$(VENV)/bin/pnp check
	$(VENV)/bin/pnp build

test: $(STAMP)
	@# The gallery test drives Debian's headless chromium; install it when missing (as root, with apt-get).
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium and chromium-driver for the gallery browser test"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	        chromium chromium-driver >/dev/null; } \
	      || echo "warning: could not install chromium; the gallery browser test will be skipped" >&2; \
	  else \
	    echo "warning: no /usr/bin/chromium and no root apt-get to install it; the gallery browser test will be skipped" >&2; \
	  fi; \
	fi
	$(PY) -m pytest -n auto --dist worksteal

check: $(STAMP)
	$(VENV)/bin/pnp check

lint: $(STAMP)
	$(VENV)/bin/ruff check pnp tests bench
	$(VENV)/bin/mypy pnp

bench: $(STAMP)
	$(PY) bench/check_bench.py
	$(PY) bench/build_bench.py
	$(PY) bench/table_bench.py

dist: $(STAMP)
	$(PY) -m build --outdir dist .

clean:
	rm -rf output dist build $(VENV)
