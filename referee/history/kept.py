"""Each game's figures kept between commands, so that ``uw-referee stats`` replays only the games written since it
last ran: a small SQLite file in the user's cache directory (beside the dictionary's verification stamps), one row
per (database, game) with the game's summary as the key (its last write's time, phase, turn, winner and scores:
any write changes it) and its figures exactly (``GameFigures.record``).

A cache, never a source: a row whose key or version differs is counted again from the game's events, and a
cache that cannot be opened, read or written (a read-only home, a damaged file) is passed by: the figures are then
counted every time, which is only slower. The games database itself is only read.
"""
from __future__ import annotations

import json
import os
import sqlite3

from referee.history.stats import GameFigures
from unspeakable_words import __version__

TYPE_CHECKING = False  # typing costs a tenth of a quick stats: its names are for the checkers
if TYPE_CHECKING:
    from typing import Any

#: Changes when what a record holds or how a figure is counted changes: older rows are then counted again.
FORMAT = f"2/{__version__}"
FILE = "history.sqlite3"


def summary_key(summary: Any) -> str:
    """What changes whenever the game is written (``GameSummary``: the time to the millisecond, and the phase,
    turn, winner and scores, which two writes in one millisecond do not leave all alike)."""
    return f"{FORMAT} {summary.updated_at} {summary.phase} {summary.turn!r} {summary.winner!r} {summary.scores!r}"


def database_key(db: Any) -> str:
    """The database as the cache names it: a file by its real path, PostgreSQL by its address without password."""
    from referee.store_pg import is_database_url, shown_address

    text = str(db)
    return shown_address(text) if is_database_url(text) else os.path.realpath(text)


def cache_directory() -> str:
    """The user's cache directory for uw-referee, as ``dictionaries.dictionary.stamp_directory`` finds it (the same
    rule written out: importing the dictionary's module costs a tenth of ``stats``; tests/test_history.py holds the
    two equal)."""
    import sys

    if os.name == "posix" and not sys.platform.startswith("darwin"):
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not base.strip():
            base = os.path.expanduser("~/.cache")
        return os.path.join(base, "uw-referee")
    from dictionaries.dictionary import stamp_directory

    return stamp_directory()


class Kept:
    """The kept figures of one database's games (see the module)."""

    def __init__(self, db: Any, directory: str | None = None) -> None:
        self.db = database_key(db)
        self.path = os.path.join(directory or cache_directory(), FILE)
        self.conn: sqlite3.Connection | None = None
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self.conn = sqlite3.connect(self.path, timeout=1.0, isolation_level=None)
            self.conn.execute("CREATE TABLE IF NOT EXISTS figures (db TEXT NOT NULL, game INTEGER NOT NULL, "
                              "key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (db, game))")
        except (OSError, sqlite3.Error):
            self.close()

    def load(self) -> dict[int, tuple[str, str]]:
        """Every kept game of this database: its key and its record (JSON), by its number."""
        if self.conn is None:
            return {}
        try:
            rows = self.conn.execute("SELECT game, key, record FROM figures WHERE db = ?", (self.db,)).fetchall()
        except sqlite3.Error:
            self.close()
            return {}
        return {game: (key, record) for game, key, record in rows}

    def save(self, fresh: list[tuple[int, str, GameFigures]], gone: list[int]) -> None:
        """Keep the games counted afresh, and forget the games no longer in the database, in one transaction."""
        if self.conn is None or not (fresh or gone):
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany("INSERT OR REPLACE INTO figures (db, game, key, record) VALUES (?, ?, ?, ?)",
                                  [(self.db, game, key, json.dumps(figures.record(), separators=(",", ":")))
                                   for game, key, figures in fresh])
            self.conn.executemany("DELETE FROM figures WHERE db = ? AND game = ?", [(self.db, g) for g in gone])
            self.conn.execute("COMMIT")
        except sqlite3.Error:
            self.close()

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except sqlite3.Error:
                pass
        self.conn = None


def read_records(records: list[str]) -> list[GameFigures | None]:
    """Kept records as figures, in one parse; None for a record that cannot be read (it is then counted again)."""
    try:
        data = json.loads("[" + ",".join(records) + "]")
    except ValueError:  # one of them is damaged: each alone
        return [_read(record) for record in records]
    found: list[GameFigures | None] = []
    for item in data:
        try:
            found.append(GameFigures.of_record(item))
        except (ValueError, TypeError, IndexError, KeyError, AttributeError):
            found.append(None)
    return found


def _read(record: str) -> GameFigures | None:
    try:
        return GameFigures.of_record(json.loads(record))
    except (ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None


__all__ = ["FORMAT", "Kept", "cache_directory", "database_key", "read_records", "summary_key"]
