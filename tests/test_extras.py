"""The install's extras: the core (``pip install unspeakable-words``) is the table's CLI, the board and the word
service, without psycopg; ``[postgres]`` adds psycopg and its pool; an address without them is one line naming
the pip command, in the language in use, whichever front door (the quick path, Click, the board) met it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADDRESS = "postgresql://127.0.0.1:5432/test"
LINE = {"en": "Error: PostgreSQL needs the postgres extra: pip install 'unspeakable-words[postgres]'",
        "es": "Error: PostgreSQL necesita el extra postgres: pip install 'unspeakable-words[postgres]'"}
#: uw-referee without psycopg: each module set to None in sys.modules is "not installed" to the import system
#: (``import psycopg`` raises ImportError, ``importlib.util.find_spec`` finds nothing).
WITHOUT_PSYCOPG = ("import sys; sys.modules['psycopg'] = sys.modules['psycopg_pool'] = None; "
                   "sys.argv[0] = 'uw-referee'; from referee.quick import main; main()")

#: The quick path (games, status, play), the Click CLI (log, new; UW_REFEREE_DB as --db) and the board.
COMMANDS = (["--db", ADDRESS, "games"], ["--db", ADDRESS, "status"], ["--db", ADDRESS, "play", "rum", "--roll", "3"],
            ["log"], ["new", "Ann", "Bob", "--first", "Ann"], ["board", "--db", ADDRESS, "--port", "0"],
            ["board", "--hosted"])


def run_without_psycopg(args: list[str], lang: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UW_REFEREE_DB": ADDRESS, "UW_LANG": lang, "HOME": str(tmp_path),
           "UW_BOARD_SECRET": "s" * 32}
    return subprocess.run([sys.executable, "-c", WITHOUT_PSYCOPG, *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(a for a in args if a != ADDRESS))
def test_an_address_without_the_postgres_extra_is_one_line(args: list[str], lang: str, tmp_path: Path) -> None:
    done = run_without_psycopg(args, lang, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", LINE[lang] + "\n")


def test_a_file_needs_no_psycopg(tmp_path: Path) -> None:
    """The table's own path (a SQLite file) never looks for psycopg."""
    done = run_without_psycopg(["--db", str(tmp_path / "g.sqlite3"), "new", "Ann", "Bob", "--first", "Ann"], "en",
                               tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Ann" in done.stdout


def test_every_module_imports_without_psycopg(tmp_path: Path) -> None:
    """The hosted board's and PostgreSQL's code paths import psycopg only when an address is used."""
    script = ("import sys; sys.modules['psycopg'] = sys.modules['psycopg_pool'] = None\n"
              "import importlib, pkgutil, dictionaries, referee, service, unspeakable_words\n"
              "for package in (dictionaries, referee, service, unspeakable_words):\n"
              "    for module in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
              "        importlib.import_module(module.name)\n"
              "print(len(sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


def installed(venv: Path, spec: str) -> set[str]:
    """``pip install spec`` into a new virtual environment at ``venv``: the distributions it holds then."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", spec], capture_output=True, text=True,
                          timeout=900, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    listed = subprocess.run([str(venv / "bin" / "pip"), "list", "--format=freeze"], capture_output=True, text=True,
                            check=True, timeout=120).stdout
    return {line.split("==")[0].lower() for line in listed.splitlines()}


@pytest.mark.slow
def test_the_core_install_has_no_psycopg_and_says_so_in_one_line(tmp_path: Path) -> None:
    """``pip install .`` (not editable) in a new venv: no psycopg; uw-referee, the board and uw-service are
    there; an address is the one line."""
    names = installed(tmp_path / "venv", ".")
    assert {"flask", "click", "gunicorn", "marisa-trie", "segno"} <= names
    assert not {name for name in names if name.startswith("psycopg")}, names
    assert (tmp_path / "venv" / "bin" / "uw-service").exists()
    done = subprocess.run([str(tmp_path / "venv" / "bin" / "uw-referee"), "--db", ADDRESS, "games"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "HOME": str(tmp_path), "UW_LANG": "en"})
    assert (done.returncode, done.stderr) == (1, LINE["en"] + "\n")


@pytest.mark.slow
def test_the_postgres_extra_installs_psycopg_and_its_pool(tmp_path: Path) -> None:
    names = installed(tmp_path / "venv", ".[postgres]")
    assert {"psycopg", "psycopg-binary", "psycopg-pool"} <= names, names
    done = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c",
                           "import psycopg, psycopg_pool; print(psycopg.__version__)"],
                          capture_output=True, text=True, timeout=60, check=True)
    major, minor, patch = (int(part) for part in done.stdout.strip().split(".")[:3])
    assert (major, minor, patch) >= (3, 1, 14)
