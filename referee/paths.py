"""Where the games database lives by default: one home for the rule, cheap to import (os and sys only),
so ``--help``, ``games`` and the store all name the same file."""
from __future__ import annotations

import os
import sys


def default_db_path() -> str:
    """``UW_REFEREE_DB``, else games.sqlite3 in the user's data directory.

    On Linux and other XDG systems the directory is platformdirs' ``user_data_dir`` rule written
    out (importing platformdirs costs more than a status command; tests/test_store.py holds the
    two equal); elsewhere platformdirs answers.
    """
    env = os.environ.get("UW_REFEREE_DB")
    if env:
        return env
    if os.name == "posix" and not sys.platform.startswith("darwin"):
        base = os.environ.get("XDG_DATA_HOME", "")
        if not base.strip():
            base = os.path.expanduser("~/.local/share")
        return os.path.join(base, "uw-referee", "games.sqlite3")
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("uw-referee", appauthor=False), "games.sqlite3")


def temporary_db_path(path: str) -> bool:
    """True for what SQLite keeps in memory or in a throw-away temporary file instead of at ``path``:
    '' (a temporary database), ':memory:', and ``file:`` URIs (which can name either)."""
    return path in ("", ":memory:") or path[:5].lower() == "file:"


__all__ = ["default_db_path", "temporary_db_path"]
