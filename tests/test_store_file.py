"""File safety (referee.store_file): SQLite's errors are said by their result code, never by their text; a file
that is not a database is named as such; the whole-file checks name a damaged file."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.store import Store
from referee.store_file import SQLiteFile
from referee.store_format import Damaged, StoreError


def error(text: str, code: str | None) -> sqlite3.Error:
    exc = sqlite3.OperationalError(text)
    if code is not None:
        exc.sqlite_errorname = code  # as SQLite's own errors carry it (Python 3.11)
    return exc


@pytest.mark.parametrize(("code", "said"), [
    ("SQLITE_BUSY", "is busy"), ("SQLITE_LOCKED", "is busy"), ("SQLITE_NOTADB", "not a readable uw-referee database"),
    ("SQLITE_CORRUPT", "is damaged and cannot be read"), ("SQLITE_CORRUPT_INDEX", "is damaged and cannot be read"),
    ("SQLITE_FULL", "is full"), ("SQLITE_READONLY", "cannot be written (a read-only"),
])
def test_an_error_is_said_by_its_code(tmp_path: Path, code: str, said: str) -> None:
    file = SQLiteFile(str(tmp_path / "g.sqlite3"), 10.0, False)
    assert said in str(file.explain(error("whatever SQLite said", code)))


def test_the_text_of_an_error_decides_nothing(tmp_path: Path) -> None:
    file = SQLiteFile(str(tmp_path / "g.sqlite3"), 10.0, False)
    assert str(file.explain(error("database is locked", None))) == f"{tmp_path / 'g.sqlite3'}: database is locked"


def test_a_real_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite3"
    db.write_bytes(b"these are my notes, not a database" * 200)
    with pytest.raises(StoreError, match="not a readable uw-referee database"):
        Store(db).games()


def test_a_damaged_page_is_damage(tmp_path: Path) -> None:
    """quick_check's finding is a ``Damaged``: the store refuses to write on its type, not its words."""
    db = tmp_path / "g.sqlite3"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE t (x TEXT);" + "".join(f"INSERT INTO t VALUES ('{i:04}' || hex(randomblob(40)));"
                                                            for i in range(500)))
    conn.close()
    with open(db, "r+b") as f:  # the third page, a leaf of the table, overwritten
        f.seek(2 * 4096)
        f.write(b"\xde\xad\xbe\xef" * 1024)
    check = sqlite3.connect(db)
    try:
        with pytest.raises(Damaged, match="quick_check"):
            SQLiteFile(str(db), 10.0, True).check_pages(check)
    finally:
        check.close()
