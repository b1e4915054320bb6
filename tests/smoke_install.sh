#!/usr/bin/env bash
# `pip install .` (not editable) into a fresh virtual environment, then use the installed
# uw-referee from another working directory: the dictionary must ship as package data.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$root"
cd "$work"
out=$("$work/venv/bin/uw-referee" check taps)
echo "$out" | grep -q "TAPS: legal, 10 points" || { echo "installed check failed: $out"; exit 1; }
"$work/venv/bin/uw-referee" words oofmakl --limit 1 | grep -q FLAK || { echo "installed words failed"; exit 1; }
if "$work/venv/bin/uw-referee" check apts >/dev/null; then echo "APTS should be refused"; exit 1; fi
UW_REFEREE_DB="$work/g.sqlite3" "$work/venv/bin/uw-referee" new Ann Bob --first Ann >/dev/null
# The shipped rules, the definitions and the board's pages are package data too.
"$work/venv/bin/uw-referee" rules | grep -q "Unspellable Oath" || { echo "installed rules failed"; exit 1; }
"$work/venv/bin/uw-referee" define qat | grep -q "noun: " || { echo "installed define failed"; exit 1; }
# The compiled Spanish catalogs and rules ship too (no Babel installed here).
out=$(UW_LANG=es "$work/venv/bin/uw-referee" check london || true)
echo "$out" | grep -q "LONDON es un nombre propio" || { echo "installed Spanish check failed: $out"; exit 1; }
"$work/venv/bin/uw-referee" --lang es rules | grep -q "prueba de cordura" || { echo "installed Spanish rules failed"; exit 1; }
"$work/venv/bin/python" - <<'PY' || { echo "installed Spanish catalogs failed"; exit 1; }
import os
import referee, referee.board, service, unspeakable_words.click_i18n  # each registers its catalog
from dictionaries.i18n import catalog_path, catalogs, say_in, msg
assert {d for d, _ in catalogs()} == {"dictionaries", "referee", "board", "service", "click"}, catalogs()
missing = [d for d, p in catalogs() if not os.path.isfile(catalog_path("es", d, p))]
assert not missing, missing
assert say_in(msg("Waiting for the roll-off."), "es") != "Waiting for the roll-off."
PY
"$work/venv/bin/python" -c "import importlib.resources as r; assert r.files('referee.board').joinpath('templates').is_dir()" \
    || { echo "the board's templates are not installed"; exit 1; }
"$work/venv/bin/python" - <<'PY'
import sys
import referee.cli  # the CLI must not pull in Flask
assert "flask" not in sys.modules, "the CLI imported Flask"
PY
echo "install smoke: ok (pip install . in a fresh venv; uw-referee works from $work)"
