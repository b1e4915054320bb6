"""A real PostgreSQL for the tests, and the store's fixtures over both backends.

The server is ``UW_TEST_POSTGRES`` (default postgresql://postgres@127.0.0.1:5432/test, what the project's machines
and CI run). Without one, a throw-away cluster is started from the PostgreSQL binaries when they are installed
(initdb and pg_ctl in a temporary folder, on a Unix socket, stopped at the end); without those either, the
PostgreSQL tests are skipped with one loud line, so that ``make test`` passes on a fresh laptop. Each test gets its
own schema (``search_path`` in the address), dropped after it.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import pytest
from cluster_support import binaries

from referee.store import Store
from referee.store_pg import with_schema

DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"
_told: list[str] = []


def _loud_skip(why: str) -> NoReturn:
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


class Cluster:
    """A throw-away PostgreSQL cluster from the installed binaries, in a temporary folder: on a Unix socket
    there (``port`` None) or on 127.0.0.1:``port``. ``stop`` and ``start`` again (a server restart)."""

    def __init__(self, bindir: str, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.bindir, self.port, self.host = bindir, port, host
        self.folder = tempfile.mkdtemp(prefix="uw-pg-")
        self.data = os.path.join(self.folder, "data")
        self.run_as: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to nobody
            os.chmod(self.folder, 0o777)
            self.run_as = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        subprocess.run([*self.run_as, f"{bindir}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E",
                        "UTF8"], check=True, capture_output=True, timeout=120)
        if host != "127.0.0.1":  # initdb trusts the loopback only: trust the test's own network too
            with open(os.path.join(self.data, "pg_hba.conf"), "a", encoding="utf-8") as hba:
                hba.write("host all all 0.0.0.0/0 trust\n")  # it listens on the test's address only
        self.start()
        import psycopg

        with psycopg.connect(self.address("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE test")

    def address(self, database: str = "test") -> str:
        if self.port is None:
            return f"postgresql://postgres@/{database}?host={quote(self.folder)}"
        return f"postgresql://postgres@{self.host}:{self.port}/{database}"

    def start(self) -> None:
        listen = "-c listen_addresses=''" if self.port is None else f"-c listen_addresses={self.host} -p {self.port}"
        subprocess.run([*self.run_as, f"{self.bindir}/pg_ctl", "-D", self.data, "-w", "-l",
                        os.path.join(self.folder, "log"), "-o", f"-k {self.folder} {listen}", "start"], check=True,
                       capture_output=True, timeout=120)

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self.run_as, f"{self.bindir}/pg_ctl", "-D", self.data, "-m", mode, "stop"],
                       capture_output=True, timeout=60)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


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
    bindir = binaries()
    if bindir is None:
        _loud_skip(f"no server at {url} and no PostgreSQL binaries (initdb, pg_ctl) to start one")
    try:
        cluster = Cluster(bindir)
    except (OSError, subprocess.SubprocessError, psycopg.Error) as exc:
        _loud_skip(f"no server at {url}, and a throw-away cluster did not start ({exc})")
    try:
        yield cluster.address()
    finally:
        cluster.remove()


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


def unlink_chains(run: Any) -> None:
    """Give a database the store wrote with linked chains (schema 7) the running chains of schemas 4 to 6, and its
    snapshots' digests over them: the database as an older referee wrote it, for the tests of its migration.
    ``run(statement, params)`` runs one statement (``?`` placeholders) and returns its rows."""
    from referee.store_format import Linked, chain_record, chain_start, game_digest

    for (gid,) in run("SELECT id FROM games ORDER BY id", ()):
        running, linked = chain_start(gid), Linked(chain_start(gid).digest())
        for seq, at, data in run("SELECT seq, at, data FROM events WHERE game_id = ? ORDER BY seq", (gid,)):
            record = chain_record(seq, at, data)
            running.update(record)
            linked.update(record)
            run("UPDATE events SET chain = ? WHERE game_id = ? AND seq = ?", (running.digest(), gid, seq))
        for seq, state, view, digest, summary, recent in run(
                "SELECT s.seq, s.state, s.view, s.digest, g.summary, s.recent FROM snapshots s JOIN games g ON "
                "g.id = s.game_id WHERE s.game_id = ?", (gid,)):
            if game_digest(seq, linked.digest(), state, view, summary, recent) == digest:
                run("UPDATE snapshots SET digest = ? WHERE game_id = ?",
                    (game_digest(seq, running.digest(), state, view, summary, recent), gid))


__all__ = ["Backend", "Cluster", "binaries", "backend", "postgres_db", "postgres_url", "unlink_chains",
           "with_schema"]
