"""Where the games database lives by default: one home for the rule, cheap to import (os and sys only),
so ``--help``, ``games``, the store and every command the referee suggests name the same file."""
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


def is_default_db(db: str | None) -> bool:
    """Whether ``db`` (as given to ``--db``; None when it was not) is the database every command uses anyway."""
    if db is None or db == "":
        return db is None
    if "://" in db:
        return db == default_db_path()
    return os.path.abspath(os.path.expanduser(db)) == os.path.abspath(os.path.expanduser(default_db_path()))


def suggested(args: str, db: str | None = None, game: int | None = None) -> str:
    """A command the referee suggests typing: ``uw-referee`` with ``--db`` (quoted for the shell) when ``db`` is not
    the default database, so that typing it acts on the same games and never on a game of the same number in
    another database, ``--game`` when given, then ``args`` (already in the shell's words).

    A PostgreSQL address is named without its password (the server's, never printed): libpq finds it in
    ``PGPASSWORD`` or ``~/.pgpass``."""
    words = ["uw-referee"]
    if not is_default_db(db):
        import shlex

        where = str(db)
        if "://" in where:
            import re

            where = re.sub(r"(://[^/@:?#]*):[^/@?#]*@", r"\1@", where)  # the password in the address, then a parameter
            where = re.sub(r"([?&])password=[^&#]*(&|$)", lambda m: m.group(1) if m.group(2) else "", where)
            where = where.rstrip("?&")
        words += ["--db", shlex.quote(where)]
    if game is not None:
        words += ["--game", str(game)]
    return " ".join([*words, args]) if args else " ".join(words)


def quote_around(command: str) -> str:
    """The quote a message puts around ``command``: ``'`` unless the command holds one (a path quoted for the
    shell), then ``"``, so that what sits between the quotes is exactly what to type."""
    return '"' if "'" in command else "'"


def suggested_quoted(args: str, db: str | None = None, game: int | None = None) -> str:
    """``suggested``, in the quotes a sentence puts around it (``quote_around``)."""
    command = suggested(args, db, game)
    quote = quote_around(command)
    return f"{quote}{command}{quote}"


__all__ = ["default_db_path", "is_default_db", "quote_around", "suggested", "suggested_quoted", "temporary_db_path"]
