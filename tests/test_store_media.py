"""The store on real media: a read-only filesystem can be read, not written; a full disk is named.

Each test mounts a small tmpfs (root only, as in CI); elsewhere they are skipped, not faked.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def referee(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UW_")}
    env["UW_REFEREE_DB"] = str(db)
    return subprocess.run([sys.executable, "-c", "from referee.quick import main; main()", *args],
                          capture_output=True, text=True, env=env)


@pytest.fixture()
def mount(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "medium"
    point.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(point)],
                                            capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def test_a_game_on_read_only_media_can_be_read_not_written(mount: Path) -> None:
    db = mount / "games.sqlite3"
    assert referee(db, "new", "Ann", "Bob", "--first", "Ann").returncode == 0
    assert referee(db, "play", "taps", "--roll", "12").returncode == 0
    before = db.read_bytes()
    assert subprocess.run(["mount", "-o", "remount,ro", str(mount)], capture_output=True).returncode == 0
    for args in (["status"], ["status", "--json"], ["games"], ["log"], ["export"]):
        done = referee(db, *args)
        assert done.returncode == 0 and "Error" not in done.stderr, (args, done.stderr)
    assert "TAPS" in referee(db, "status").stdout
    for args in (["discard"], ["undo"], ["new", "Cy", "Di", "--first", "Cy"]):
        done = referee(db, *args)
        assert done.returncode == 1 and "cannot be written" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert db.read_bytes() == before


def test_a_full_disk_is_named_and_nothing_is_lost(mount: Path) -> None:
    db = mount / "games.sqlite3"
    assert referee(db, "new", "Ann", "Bob", "--first", "Ann").returncode == 0
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the medium to the last block
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    results = [referee(db, "discard") for _ in range(3)]
    failed = [r for r in results if r.returncode != 0]
    assert failed, "the disk was not full enough to refuse a write"
    for done in failed:
        assert done.returncode == 1 and "is full" in done.stderr and "Traceback" not in done.stderr, done.stderr
    filler.unlink()
    status = referee(db, "status", "--json")
    assert status.returncode == 0  # the game is still readable, whole
    assert referee(db, "discard").returncode == 0


def test_an_empty_sqlite_file_read_only_has_no_games(tmp_path: Path) -> None:
    """An SQLite file with a header and no tables (schema version 0): no games, and it stays as it is."""
    import sqlite3

    from referee.store import NoGame, Store

    db = tmp_path / "empty.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA page_size = 4096")
    con.execute("VACUUM")  # writes the header: a valid database file with no tables
    con.close()
    before = db.read_bytes()
    assert len(before) > 0
    with pytest.raises(NoGame, match="no games yet"):
        Store(db, read_only=True).load()
    assert Store(db, read_only=True).games() == []
    assert db.read_bytes() == before
