# The README's two commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest fuzz chromium bench clean-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# `make run ARGS="-- --docs DIR"` opens the Corpus page's folder on DIR.
run: $(STAMP)
	$(BIN)/streamlit run app.py $(ARGS)

# The browser tests drive Debian's Chromium (Playwright's own browser download is not used).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "warning: chromium is missing; run 'sudo apt-get install chromium' for the browser tests"; fi; }

lint: $(STAMP)
	$(BIN)/ruff check explorer ui benchmarks tests app.py app_pages
	$(BIN)/ruff format --check explorer ui benchmarks tests app.py app_pages

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) chromium
	$(BIN)/python -m pytest

test: lint typecheck pytest

# On demand, not in CI: the property tests at 10,000 examples each (hypothesis profile "large")
# and the loader mutation fuzzing at 20,000 mutants, when its test file is present.
FUZZ_TESTS := tests/test_splitters.py tests/test_properties_eval.py $(wildcard tests/test_fuzz_loaders.py)
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=large FUZZ_EXAMPLES=20000 $(BIN)/python -m pytest -q $(FUZZ_TESTS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench

clean-venv:
	rm -rf $(VENV)
