# Two commands on a fresh machine: `make run` (the word service) and `make test` (the tests).
# Each creates its own virtual environment in .venv and installs the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test quick smoke bench dictionary clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

run: $(BIN)/.installed  ## serve the word API with gunicorn on 127.0.0.1:$(PORT)
	$(BIN)/gunicorn --config service/gunicorn_conf.py --bind 127.0.0.1:$(PORT) 'service.app:create_app()'

test: $(BIN)/.installed  ## lint and types, the whole test suite, the real server over HTTP, and a non-editable install
	$(BIN)/ruff check .
	$(BIN)/mypy
	bash tests/setup_browser.sh  # the board's browser tests: Debian's chromium + chromedriver
	bash tests/setup_nginx.sh  # the deploy tests run deploy/nginx.conf: Debian's nginx-light (+ wrk)
	$(BIN)/python -m pytest -q
	bash examples/setup.sh  # Node for the JavaScript example client
	bash tests/smoke_server.sh
	bash tests/smoke_install.sh

quick: $(BIN)/.installed  ## the fast loop while working: lint, types, and the tests not marked slow
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -m "not slow"

dictionary: $(BIN)/.installed  ## rebuild dictionaries/data (apt-get install scowl wordnet-base; wordfreq from the [build] extra)
	$(BIN)/pip install -q -e '.[build]'
	$(BIN)/python -m tools.build_dictionary

bench: $(BIN)/.installed  ## the benchmarks (figures go into BENCHMARKS.md)
	$(BIN)/python benchmarks/bench_referee.py
	$(BIN)/python benchmarks/bench_words.py
	$(BIN)/python benchmarks/bench_service.py

clean:
	rm -rf $(VENV) build *.egg-info
