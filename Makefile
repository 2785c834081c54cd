# The README's two commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest fuzz chromium bench lock clean-venv

# Everything (the library, the app, every library splitter, the test tools) at the versions of
# constraints.txt, the ones CI passed with. `pip install chunk-explorer` alone is the library.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
	  -c constraints.txt -e '.[all,dev]'
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

# Remake constraints.txt: the newest releases that fit pyproject.toml, installed into a fresh
# venv and frozen (torch without its local "+cpu" label, so the file is not this machine's).
# Commit the result once `make test` passes with it.
LOCK_VENV := $(or $(TMPDIR),/tmp)/chunk-explorer-lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PY) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[all,dev]'
	{ sed -n '/^#/p' constraints.txt; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable --disable-pip-version-check \
	    | sed -E 's/^(torch==[^+]*)\+.*/\1/'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

clean-venv:
	rm -rf $(VENV)
