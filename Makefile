# Two commands on a fresh machine: `make run` (the word service) and `make test` (the tests).
# Each creates its own virtual environment in .venv and installs the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
SHELL := /bin/bash

.PHONY: help run test quick fresh bench dictionary docs clean
# `make` alone lists the targets (help, below), rather than only creating the virtual environment.
.DEFAULT_GOAL := help

# $(call timed,NAME,COMMAND): run one phase of `make test` or `make quick`, then print its wall time.
timed = echo '== $(1): $(2)'; t0=$$(date +%s%N); $(2); rc=$$?; ms=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
	printf '== %s: %d.%d s wall%s\n' "$(1)" $$((ms / 1000)) $$((ms % 1000 / 100)) "$$( ((rc)) && echo ", FAILED ($$rc)")"; exit $$rc

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,postgres]'
	touch $@

help:  ## list the targets, each with what it does (from its ## comment)
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-z][a-z-]*:.*## / { printf "  %-11s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

run: $(BIN)/.installed  ## serve the word API with gunicorn on 127.0.0.1:PORT (PORT=8000 unless given)
	$(BIN)/gunicorn --config service/gunicorn_conf.py --bind 127.0.0.1:$(PORT) 'service.app:create_app()'

# Each phase prints its wall time. The browser tests use Debian's chromium + chromedriver (setup_browser.sh);
# the deploy tests run deploy/nginx.conf with Debian's nginx-light and wrk (setup_nginx.sh); the JavaScript
# example client needs Node (examples/setup.sh), before the tests, which run it too.
test: $(BIN)/.installed  ## lint, types and dead code, the whole test suite, the real server over HTTP, and a non-editable install
	@$(call timed,lint,$(BIN)/ruff check .)
	@$(call timed,types,$(BIN)/mypy)
	@$(call timed,dead code,$(BIN)/vulture)
	@$(call timed,browser setup,bash tests/setup_browser.sh)
	@$(call timed,nginx setup,bash tests/setup_nginx.sh)
	@$(call timed,node setup,bash examples/setup.sh)
	@$(call timed,tests,$(BIN)/python -m pytest -q)
	@$(call timed,server smoke,bash tests/smoke_server.sh)
	@$(call timed,install smoke,bash tests/smoke_install.sh)

quick: $(BIN)/.installed  ## the fast loop while working: lint, types, dead code, and the tests not marked slow
	@$(call timed,lint,$(BIN)/ruff check .)
	@$(call timed,types,$(BIN)/mypy)
	@$(call timed,dead code,$(BIN)/vulture)
	@$(call timed,quick tests,$(BIN)/python -m pytest -q -m "not slow")

# Needs root: debootstrap makes a Debian root, and the check chroots into it (tools/fresh.sh says what it does).
fresh:  ## make run and make test from a clean clone on a new Debian root (debootstrap); prints the result
	bash tools/fresh.sh

dictionary: $(BIN)/.installed  ## rebuild dictionaries/data (apt-get install scowl wordnet-base dict-gcide; wordfreq from the [build] extra)
	$(BIN)/pip install -q -e '.[build]'
	$(BIN)/python -m tools.build_dictionary

bench: $(BIN)/.installed  ## the benchmarks (figures go into BENCHMARKS.md)
	$(BIN)/python benchmarks/bench_referee.py
	$(BIN)/python benchmarks/bench_words.py
	$(BIN)/python benchmarks/bench_service.py

docs: $(BIN)/.installed  ## run every documented command again and rewrite its output in README.md and docs/*.md
	$(BIN)/python tools/docs.py

clean:  ## remove the virtual environment and the build's leftovers
	rm -rf $(VENV) build *.egg-info
