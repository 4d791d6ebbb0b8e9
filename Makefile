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
browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

test: lint typecheck browser pytest

bench: install
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) var build *.egg-info
