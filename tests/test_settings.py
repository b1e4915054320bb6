"""Numbers an operator sets in the environment (referee/settings.py): a malformed or out-of-range value is said in
one line and the default is used, never a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.settings import env_float, env_int


@pytest.mark.parametrize(("text", "expected"), [("", 2000), ("750", 750), ("2s", 2000), ("0", 0), ("-5", 2000),
                                                 ("9" * 30, 2000), (" 40 ", 40)])
def test_a_whole_number_setting(monkeypatch: pytest.MonkeyPatch, text: str, expected: int) -> None:
    monkeypatch.setenv("UW_TEST_SETTING", text)
    assert env_int("UW_TEST_SETTING", 2000) == expected


@pytest.mark.parametrize(("text", "expected"), [("1.5", 1.5), ("nan", 5.0), ("inf", 5.0), ("x", 5.0), ("0", 0.0)])
def test_a_number_setting(monkeypatch: pytest.MonkeyPatch, text: str, expected: float) -> None:
    monkeypatch.setenv("UW_TEST_SETTING", text)
    assert env_float("UW_TEST_SETTING", 5.0) == expected


def test_zero_stays_zero_where_it_means_no_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """``board --max-per-address 0`` (no limit) reaches the server as ``UW_BOARD_PER_ADDRESS=0``."""
    from referee.board.addresses import PER_ADDRESS
    from referee.board.app import create_app

    monkeypatch.setenv("UW_BOARD_PER_ADDRESS", "0")
    assert PER_ADDRESS != 0 and create_app({"TESTING": True}).config["BOARD_PER_ADDRESS"] == 0


def test_a_malformed_database_setting_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """``UW_PG_LOCK_TIMEOUT=2s`` (a unit where milliseconds are meant): every command still runs, and says so."""
    env = {**os.environ, "UW_PG_LOCK_TIMEOUT": "2s", "UW_LANG": "en"}
    done = subprocess.run([sys.executable, "-m", "referee.cli", "--db", str(tmp_path / "g.sqlite3"), "games"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "UW_PG_LOCK_TIMEOUT='2s' is not a whole number" in done.stderr
