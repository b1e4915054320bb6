"""File safety for a referee database in SQLite: the file is ours and of a version this one reads, it is opened
without harm (read-only media, a reader that cannot write, a throw-away path refused), SQLite's errors are said in
plain words, the whole file is checked page by page, and a stamp beside it records the file as last verified so a
write checks the whole file only when someone else changed it. What a game's rows mean is ``referee.store``'s."""
from __future__ import annotations

import os
import sqlite3

from dictionaries.i18n import Message, msg
from referee.paths import temporary_db_path
from referee.store_format import Damaged, StoreError, dumps, no_games_yet
from referee.store_schema import APPLICATION_ID, SCHEMA_VERSION, migrate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BUSY_TIMEOUT_S = 10.0
#: Suffix of the file beside the database that records the file as last verified (see ``Store._verify``).
STAMP_SUFFIX = "-verified"
#: A stamp is a few dozen bytes; anything longer is not one of ours and is not read further.
STAMP_MAX_BYTES = 256


class SQLiteFile:
    """The database file at ``path`` as SQLite opens it: never written if foreign, newer or damaged, and never at
    all when ``read_only``."""

    def __init__(self, path: str, timeout: float, read_only: bool) -> None:
        self.path = path
        self.timeout = timeout
        self.read_only = read_only
        self._unchanged: list[Any] | None = None  # read as it is: the file's state when opened (see ``open``)

    def exists(self) -> bool:
        return os.path.isfile(self.path) and os.path.getsize(self.path) > 0

    def connect(self, create: bool, verify: Callable[[sqlite3.Connection, int], None]
                ) -> tuple[sqlite3.Connection, int]:
        """A connection to the file (created when ``create``), checked as ours, migrated (after ``verify``) unless
        read-only, and its schema version."""
        self.refuse_temporary()
        if os.path.isdir(self.path):
            raise StoreError(msg("{path} is a directory, not a database file", path=self.path))
        if not self.exists():
            if not create or self.read_only:
                raise no_games_yet(self.path, self.path)
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            except OSError as exc:
                raise StoreError(msg("cannot create {path}: {why}", path=self.path, why=exc.strerror or exc)) from None
        try:
            conn = self.open()
        except sqlite3.DatabaseError as exc:
            raise StoreError(self.explain(exc)) from None
        except sqlite3.Error as exc:
            raise StoreError(msg("cannot open {path}: {why}", path=self.path, why=exc)) from None
        try:
            # Known to be ours and of a version this one can write before any PRAGMA that changes the file.
            self.check_ours(conn)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(msg("{path} was written by a newer uw-referee (schema {found}; this one reads up to "
                                     "{version})", path=self.path, found=version, version=SCHEMA_VERSION))
            if not self.read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("PRAGMA foreign_keys=ON")
                migrate(conn, verify)
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:  # an empty SQLite file, never written by uw-referee (read-only: left so)
                raise no_games_yet(self.path, self.path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(self.explain(exc)) from None
        except StoreError:
            conn.close()
            raise
        return conn, version

    def refuse_temporary(self) -> None:
        """SQLite would keep '', ':memory:' or a ``file:`` URI in a throw-away database: the game would be lost."""
        if temporary_db_path(self.path):
            raise StoreError(msg("{path!r} is not a file SQLite would keep: the games would be lost when the command "
                                 "ends. Give --db (or UW_REFEREE_DB) the path of a file", path=self.path))

    def open(self) -> sqlite3.Connection:
        """A connection; read-only ones fall back to SQLite's ``immutable`` mode on read-only media."""
        if not self.read_only:
            return sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None)
        from urllib.parse import quote  # read-only opening needs a file: URI

        uri = "file:" + quote(os.path.abspath(self.path))
        if not os.access(self.path, os.W_OK) and not os.path.exists(self.path + "-wal"):
            # A reader that cannot write the file would leave -wal and -shm files of its own, with the file's
            # mode, that block the owner's next write: the file is read as it is, and a change during the read
            # is noticed (``_transaction``).
            self._unchanged = self.file_state()
            return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=self.timeout, isolation_level=None)
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=self.timeout, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if not (getattr(exc, "sqlite_errorname", None) or "").startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
                raise
        # A WAL database on read-only media: nothing can change it, so read it as it is.
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=self.timeout, isolation_level=None)

    def explain(self, exc: sqlite3.Error) -> Message:
        """SQLite's error in plain words, chosen by its result code (``sqlite_errorname``), never by its text."""
        text = str(exc)
        code = getattr(exc, "sqlite_errorname", None) or ""
        if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            seconds = f"{self.timeout:g}"
            return msg("{path} is busy: another uw-referee kept it locked for {seconds} s. Nothing was changed; try "
                       "again.", path=self.path, seconds=seconds)
        if code == "SQLITE_NOTADB":
            return msg("{path} is not a readable uw-referee database ({why}); it was left untouched", path=self.path,
                       why=text)
        if code.startswith("SQLITE_CORRUPT"):
            return msg("{path} is damaged and cannot be read ({why}); it was left untouched. Stop any board "
                       "serving it, then restore a backup, or move it aside and start a new file", path=self.path, why=text)
        if code == "SQLITE_FULL" or (code.startswith("SQLITE_IOERR") and self.disk_full()):
            return msg("the disk holding {path} is full: nothing was changed; free some space and try again",
                       path=self.path)
        folder = os.path.dirname(os.path.abspath(self.path))
        blocking = self.blocking_files() if code.startswith("SQLITE_READONLY") else []
        if blocking:
            return msg("{path} cannot be written: {files} beside it cannot be written (left so by a program that could "
                       "only read the database). Nothing was changed. Make them writable as the database is (chmod "
                       "u+w {files}), or delete them while no uw-referee is using {path} (an empty -wal file holds "
                       "nothing)", path=self.path, files=" ".join(blocking))
        if code.startswith("SQLITE_READONLY") or (code.startswith("SQLITE_CANTOPEN")
                                                  and not os.access(folder, os.W_OK)):
            return msg("{path} cannot be written (a read-only file, folder or medium): nothing was changed; it can "
                       "still be read (status, log, export)", path=self.path)
        return msg("{path}: {why}", path=self.path, why=text)

    def blocking_files(self) -> list[str]:
        """The -wal and -shm files that cannot be written beside a database that can (they block every write)."""
        if not os.access(self.path, os.W_OK):
            return []
        return [f"{self.path}{suffix}" for suffix in ("-wal", "-shm")
                if os.path.exists(f"{self.path}{suffix}") and not os.access(f"{self.path}{suffix}", os.W_OK)]

    def disk_full(self) -> bool:
        import shutil

        try:
            return shutil.disk_usage(os.path.dirname(os.path.abspath(self.path))).free < 1024 * 1024
        except OSError:
            return False

    def check_ours(self, conn: sqlite3.Connection) -> None:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != APPLICATION_ID and (app_id != 0 or tables):
            raise StoreError(msg("{path} is an SQLite database of another program, not uw-referee's; it was left "
                                 "untouched (use --db to choose another file)", path=self.path))

    def stamp_path(self) -> str:
        return self.path + STAMP_SUFFIX

    def file_state(self) -> list[Any]:
        """What changes whenever anyone writes the file: size, time and identity of it and its WAL.

        An empty WAL counts as none: opening a WAL database creates one.
        """
        marks: list[Any] = []
        for path in (self.path, self.path + "-wal"):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                marks.append(None)
                continue
            marks.append([st.st_size, st.st_mtime_ns, st.st_ino] if st.st_size else None)
        return marks

    def write_stamp(self) -> None:
        """Record the file as this write left it (after the connection is closed, so SQLite is done with it)."""
        stamp = self.stamp_path()
        temp = f"{stamp}.{os.getpid()}"
        try:
            with open(temp, "w", encoding="utf-8") as file:
                file.write(dumps(self.file_state()))
            os.replace(temp, stamp)
        except OSError:
            try:
                os.unlink(temp)
            except OSError:
                pass  # no stamp: the next write checks the whole file, which is only slower


    def changed_while_read(self) -> bool:
        """True when a file read as it is (``open``) was written meanwhile: what was read may be torn."""
        if self._unchanged is not None and self.file_state() != self._unchanged:
            self._unchanged = None
            return True
        return False

    def stamp_matches(self) -> bool:
        """The file is exactly as the last uw-referee write left it (the stamp beside it matches its size, time and
        identity): it was verified then. Data, not code: only exactly what ``write_stamp`` writes counts."""
        try:
            with open(self.stamp_path(), "rb") as file:
                stamp = file.read(STAMP_MAX_BYTES + 1)
        except OSError:
            return False
        return stamp == dumps(self.file_state()).encode()

    def check_pages(self, conn: sqlite3.Connection) -> None:
        """SQLite's quick_check: ``Damaged`` when a page of the file is."""
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        if rows != [("ok",)]:
            detail = " ".join(str(rows[0][0] if rows else "no answer").split())
            raise Damaged(msg("{path} is damaged (SQLite's quick_check: {detail}); it was left untouched. Stop any "
                              "board serving it, then restore a backup, or move it aside and start a new file", path=self.path, detail=detail))

    def integrity_problems(self, conn: sqlite3.Connection) -> list[Message]:
        """SQLite's integrity check, each problem in words (none when the file is whole)."""
        rows = [" ".join(str(r[0]).split()) for r in conn.execute("PRAGMA integrity_check(20)").fetchall()]
        return [] if rows == ["ok"] else [msg("SQLite's integrity check: {detail}", detail=row) for row in rows]


__all__ = ["BUSY_TIMEOUT_S", "STAMP_SUFFIX", "SQLiteFile"]
