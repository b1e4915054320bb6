"""A real PostgreSQL for the tests, and the store's fixtures over both backends.

The server is ``UW_TEST_POSTGRES`` (default postgresql://postgres@127.0.0.1:5432/test, what the project's machines
and CI run). Without one, a throw-away cluster is started from the PostgreSQL binaries when they are installed
(initdb and pg_ctl in a temporary folder, on a Unix socket, stopped at the end); without those either, the
PostgreSQL tests are skipped with one loud line, so that ``make test`` passes on a fresh laptop. Each test gets its
own schema (``search_path`` in the address), dropped after it.
"""
from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.store import Store

DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"
_told: list[str] = []


def _loud_skip(why: str) -> None:
    if not _told:
        _told.append(why)
        print(f"\nSKIPPED LOUDLY: the PostgreSQL tests: {why}", file=sys.stderr)
    pytest.skip(f"no PostgreSQL: {why}")


def _reachable(url: str) -> bool:
    try:
        import psycopg
    except ImportError:
        return False
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error:
        return False
    return True


def _binaries() -> str | None:
    """The folder of initdb and pg_ctl (on PATH, or Debian's /usr/lib/postgresql/N/bin), if installed."""
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(folders[-1]) if folders else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The address of a PostgreSQL server for this run (see the module)."""
    try:
        import psycopg  # the driver is a dependency; a broken install says so here
    except ImportError:
        _loud_skip("psycopg is not installed")
    url = os.environ.get("UW_TEST_POSTGRES", DEFAULT)
    if _reachable(url):
        yield url
        return
    bindir = _binaries()
    if bindir is None:
        _loud_skip(f"no server at {url} and no PostgreSQL binaries (initdb, pg_ctl) to start one")
    folder = tempfile.mkdtemp(prefix="uw-pg-")
    data = os.path.join(folder, "data")
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to nobody
        os.chmod(folder, 0o777)
        run_as = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    try:
        subprocess.run([*run_as, f"{bindir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"],
                       check=True, capture_output=True, timeout=120)
        subprocess.run([*run_as, f"{bindir}/pg_ctl", "-D", data, "-w", "-l", os.path.join(folder, "log"), "-o",
                        f"-k {folder} -c listen_addresses=''", "start"], check=True, capture_output=True, timeout=120)
        with psycopg.connect(f"postgresql://postgres@/postgres?host={quote(folder)}", autocommit=True) as conn:
            conn.execute("CREATE DATABASE test")
    except (OSError, subprocess.SubprocessError, psycopg.Error) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        _loud_skip(f"no server at {url}, and a throw-away cluster did not start ({exc})")
    try:
        yield f"postgresql://postgres@/test?host={quote(folder)}"
    finally:
        subprocess.run([*run_as, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections use ``schema`` (psycopg reads ``options`` from the address)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def postgres_db(postgres_url: str) -> Iterator[str]:
    """The address of a schema of its own for this test (dropped after it, with the store's pools closed)."""
    import psycopg

    from referee.store_pg import close_pools

    schema = f"uw_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}".encode())
    try:
        yield with_schema(postgres_url, schema)
    finally:
        close_pools()
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())


class Backend:
    """One database for a store test, SQLite or PostgreSQL: its address, its stores, and raw SQL for the test
    that plays another program changing rows behind the store's back (``?`` placeholders on both)."""

    def __init__(self, kind: str, url: str) -> None:
        self.kind = kind
        self.url = url

    def store(self, read_only: bool = False) -> Store:
        from referee.store_pg import open_store

        return open_store(self.url, read_only=read_only)

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement outside the store, committed; its rows."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.url) as con:
                rows = con.execute(statement, params).fetchall()
            con.close()
            return rows
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            cursor = conn.execute(statement.replace("?", "%s").encode(), params)
            return list(cursor.fetchall()) if cursor.description else []

    def contents(self) -> Any:
        """Everything the database holds (to show that a refused write changed nothing)."""
        if self.kind == "sqlite":
            return Path(self.url).read_bytes()
        return {table: self.sql(f"SELECT * FROM {table} ORDER BY 1, 2")
                for table in ("games", "events", "snapshots", "corrections", "redo")}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """The store's tests run over both backends (the PostgreSQL ones skip loudly without a server)."""
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "g.sqlite3"))
    return Backend("postgresql", request.getfixturevalue("postgres_db"))


__all__ = ["Backend", "backend", "postgres_db", "postgres_url", "with_schema"]
