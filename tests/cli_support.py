"""The referee's command line, run in this process as the tests run it (Click's CliRunner)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from referee.cli import cli


def run(db: Path, *args: str, input: str | None = None, check: bool = False) -> Result:
    """``uw-referee --db DB ARGS`` (``input`` typed in); with ``check``, anything but exit 0 fails the test."""
    result = CliRunner().invoke(cli, ["--db", str(db), *args], input=input, catch_exceptions=False)
    if check:
        assert result.exit_code == 0, result.output
    return result
