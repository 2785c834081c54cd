# The README's two commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest chromium bench clean-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/streamlit run app.py

# The browser tests drive Debian's Chromium (Playwright's own browser download is not used).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "warning: chromium is missing; run 'sudo apt-get install chromium' for the browser tests"; fi; }

lint: $(STAMP)
	$(BIN)/ruff check explorer tests app.py pages
	$(BIN)/ruff format --check explorer tests app.py pages

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) chromium
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python -m explorer.bench

clean-venv:
	rm -rf $(VENV)
