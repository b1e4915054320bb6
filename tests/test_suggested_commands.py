"""The commands a refusal inside the library suggests (the store's damage, verify's hints) name the database
given with ``--db`` when it is not the default, on both backends: typed as said, they act on that database."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner
from postgres_support import Backend

from referee.cli import cli


def _quoted_commands(text: str) -> list[list[str]]:
    """Every ``uw-referee`` command the text holds between its quotes (double when it holds a single one)."""
    return [shlex.split(found[1:-1]) for found in re.findall(r"'uw-referee [^']*'|\"uw-referee [^\"]*\"", text)]


def test_damage_suggests_commands_that_check_the_damaged_database(backend: Backend, tmp_path: Path) -> None:
    runner = CliRunner(env={"UW_REFEREE_DB": str(tmp_path / "default.sqlite3")})
    assert runner.invoke(cli, ["new", "Cy", "Dee", "--first", "Cy"]).exit_code == 0  # the default's own game 1
    db = ["--db", backend.url]
    assert runner.invoke(cli, [*db, "new", "Ann", "Bob", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(cli, [*db, "discard", "columns"]).exit_code == 0
    backend.sql("UPDATE events SET data = replace(data, 'Ann', 'Ana') WHERE game_id = 1 AND seq = 1")

    status = runner.invoke(cli, [*db, "status"])
    suggested = {args[-1]: args for args in _quoted_commands(status.output)}
    assert set(suggested) == {"export", "verify"}, status.output
    assert all(args[:3] == ["uw-referee", "--db", backend.url] for args in suggested.values())
    verify = runner.invoke(cli, suggested["verify"][1:])
    assert verify.exit_code == 1 and "event 1 was changed" in verify.output
    hints = _quoted_commands(verify.output)
    assert [args[3:] for args in hints] == [["export"], ["export", "--game", "N"]], verify.output
    assert all(args[:3] == ["uw-referee", "--db", backend.url] for args in hints)
    assert runner.invoke(cli, ["verify"]).exit_code == 0  # the default database was never the damaged one
