# Every set-up step lives here: `make run` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install run play test lint typecheck pytest browser bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --upgrade pip
	$(PY) -m pip install -qq -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(VENV)/bin/puntobanco serve --host $(HOST) --port $(PORT)

play: install
	$(VENV)/bin/puntobanco play

lint: install
	$(VENV)/bin/ruff check src tests bench

typecheck: install
	$(VENV)/bin/mypy

pytest: install
	$(PY) -m pytest -n 2 --dist loadfile -q

# The browser end-to-end test drives Debian's Chromium (Playwright cannot download browsers here).
# The script waits for apt's locks (at most CHROMIUM_WAIT seconds); when Chromium cannot be had it
# says why and the browser tests skip with that reason, the rest of `make test` runs.
CHROMIUM_WAIT ?= 300
browser:
	@CHROMIUM_WAIT=$(CHROMIUM_WAIT) sh scripts/install-chromium.sh

test: lint typecheck browser pytest

bench: install
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) var build *.egg-info
