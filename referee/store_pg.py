"""The event log in PostgreSQL: the store's contract (``referee.store.Store``) on a shared database server, through
the store's dialect seam (its "connection" methods and its ``# dialect:`` statements).

``--db postgresql://...`` (or ``UW_REFEREE_DB``) selects it; a path keeps SQLite (``open_store``). The rows are
the SQLite store's, table for table (events with their digest chain, snapshots with the words of the last actions,
summaries, corrections, the redo stack), and so are the promises: one transaction per action; the turn guard
(``expect=``); damage in a game's snapshot or last link stops every write to that game. Concurrency is the
database's: a write locks its game's row (``SELECT ... FOR UPDATE``) before it reads the game, so two replicas
acting on one game take turns and the second sees the first's events; no lock lives in a process. Every write
that commits sends ``NOTIFY uw_referee, '<schema>:<game id>'`` in its transaction, so that each board process, listening
on one connection (``referee.notify``), hears of it once the commit is visible.

The store's logic exists once: the statements that differ between the backends are named, each backend running its
own text (``referee.store_sql``: ``PgStore._sql``), and ``PgConnection`` turns the ``?`` placeholders of the others
into psycopg's ``%s``. Connections come from one
``psycopg_pool`` pool per database address and process, made in the process that uses it: a pool made before a
fork is left alone in the child, whose copy has no worker threads to grow it and shares the parent's sockets.
psycopg is imported only to connect (``shown_address`` parses an address itself): in a board's worker its first import
comes after gevent's patch, so it waits on gevent's loop (docs/development.md, "Concurrency").
"""
from __future__ import annotations

import os
import re
import threading
from contextlib import contextmanager

from dictionaries.i18n import msg
from referee.commits import Told
from referee.settings import env_float, env_int
from referee.store import Store
from referee.store_format import NoGame, StoreError, no_games_yet, require_postgres
from referee.store_schema import APPLICATION_ID, PG_SCHEMA_8, SCHEMA_VERSION, SEATS_SCHEMA, link_chains
from referee.store_sql import POSTGRESQL, POSTGRESQL_WRITE

TYPE_CHECKING = False  # typing is not loaded on the quick path (``uw-referee status`` chooses its store here)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from psycopg import Connection
    from psycopg_pool import ConnectionPool

#: The channel every commit notifies, with ``schema:game`` as the payload: a channel is the whole database's, so a
#: listener keeps only its own schema's (two sites, or two test runs, in one database do not wake each other).
CHANNEL = "uw_referee"
#: Connections each process keeps open to the database at most (``UW_PG_POOL_MAX`` changes it). A board
#: replica serves its pages from its feeds in memory: its pool is for the actions and the feeds' catch-up reads.
POOL_MAX = env_int("UW_PG_POOL_MAX", 8, low=1, high=1000)
#: How long a statement may run before the server cancels it, in ms (``UW_PG_STATEMENT_TIMEOUT``): a stuck lock
#: or a lost replica's transaction becomes a clear refusal instead of a request that never answers.
STATEMENT_TIMEOUT_MS = env_int("UW_PG_STATEMENT_TIMEOUT", 10000)
#: How long a statement waits for a lock (a game's row held by a replica killed mid-transaction), in ms
#: (``UW_PG_LOCK_TIMEOUT``), before it is refused as busy: 503 with Retry-After, nothing changed.
LOCK_TIMEOUT_MS = env_int("UW_PG_LOCK_TIMEOUT", 2000)
#: How long a request waits for a connection from the pool (seconds, ``UW_PG_POOL_TIMEOUT``) before the store says
#: it cannot reach the server: a replica whose database is down answers 503 within it.
POOL_TIMEOUT_S = env_float("UW_PG_POOL_TIMEOUT", 5.0, low=0.1, high=3600)

#: libpq's options for every connection: give up connecting after 5 s, and notice a server that went silent (a
#: network cut sends nothing) within about 10 s instead of TCP's minutes, so that a replica answers 503 and
#: reconnects instead of hanging. (TCP options: a Unix socket ignores them.)
CONNECT_OPTIONS: dict[str, Any] = {"connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5,
                                   "keepalives_interval": 2, "keepalives_count": 2, "tcp_user_timeout": 10000}

#: The schema, step by step: PostgreSQL databases start at the SQLite store's schema 5 (there were never older
#: ones); ``PG_MIGRATIONS[n]`` takes a schema at version ``PG_FIRST_SCHEMA - 1 + n`` (none, for n = 0) one version
#: on, as SQLite's ``MIGRATIONS`` do. ``uw_referee_meta`` marks the schema as ours and holds its version (SQLite's
#: ``application_id`` and ``user_version``).
PG_MIGRATIONS: list[str | Callable[[Any], None]] = [
    f"""
    CREATE TABLE uw_referee_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO uw_referee_meta (key, value) VALUES ('application_id', '{APPLICATION_ID}');
    INSERT INTO uw_referee_meta (key, value) VALUES ('schema', '0');
    CREATE TABLE games (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        summary TEXT
    );
    CREATE TABLE events (
        game_id BIGINT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        chain BYTEA,
        PRIMARY KEY (game_id, seq)
    );
    CREATE INDEX games_by_activity ON games(updated_at, id);
    CREATE TABLE snapshots (
        game_id BIGINT PRIMARY KEY REFERENCES games(id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        view TEXT NOT NULL,
        digest TEXT NOT NULL,
        recent TEXT
    );
    CREATE TABLE corrections (
        game_id BIGINT NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE redo (
        game_id BIGINT NOT NULL REFERENCES games(id),
        pos INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, pos)
    )
    """,
    # Version 6: the players' seats, as SQLite's version 6 (the same statements).
    SEATS_SCHEMA,
    # Version 7: linked chains, as SQLite's version 7 (``link_chains``, the same step).
    link_chains,
    PG_SCHEMA_8,  # version 8: a salt per game, one waiting request per seat and kind, the shared limits
]
#: PostgreSQL schemas at version 5 of the SQLite store's numbering (PG_MIGRATIONS[0] reaches it).
PG_FIRST_SCHEMA = 5
#: The version of a schema with no tables of ours yet.
PG_NO_SCHEMA = PG_FIRST_SCHEMA - 1

def is_database_url(db: str | os.PathLike[str] | None) -> bool:
    """True for a PostgreSQL address (``postgresql://`` or ``postgres://``), False for a path (SQLite)."""
    return isinstance(db, str) and db.lower().startswith(("postgresql://", "postgres://"))


def open_store(db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> Store:
    """The store at ``db`` (``UW_REFEREE_DB`` or the default file when None): PostgreSQL for an address, else
    SQLite. The one place that chooses."""
    from referee.paths import default_db_path

    where = default_db_path() if db is None else db
    if is_database_url(where):
        return PgStore(str(where), read_only=read_only)
    return Store(where, read_only=read_only)


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections keep their tables in ``schema`` (libpq's ``options`` in the address): one
    database can hold several sites, or a test run's own tables."""
    from urllib.parse import quote

    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


_shown: dict[str, str] = {}


def shown_address(url: str) -> str:
    """The address as messages and logs name it: without its password (kept: a board opens a store per read)."""
    found = _shown.get(url)
    if found is None:
        found = _shown[url] = _without_password(url)
    return found


def scrubbed(text: str, url: str) -> str:
    """A server's or libpq's error text with ``url`` (and any password in it) as ``shown_address`` names it:
    libpq repeats the address it could not parse, password and all."""
    text = " ".join(text.split()).replace(url, shown_address(url))
    text = _PASSWORD_IN_URL.sub(r"\1***@", text)
    return _PASSWORD_PARAM.sub("password=***", text)


_PASSWORD_IN_URL = re.compile(r"(postgres(?:ql)?://[^\s:/@\"']*:)[^\s@\"']*@")
_PASSWORD_PARAM = re.compile(r"password\s*=\s*(?:'[^']*'|\S+)")


def _without_password(url: str) -> str:
    """The address's user, host, port, database and schema (without psycopg: see the module)."""
    from urllib.parse import parse_qs, unquote, urlsplit

    try:
        parts, query = urlsplit(url), parse_qs(urlsplit(url).query)
        host = unquote(parts.hostname or "") or (query.get("host") or ["localhost"])[0]
        port, user, dbname = str(parts.port or "5432"), unquote(parts.username or ""), unquote(parts.path[1:])
        options = (query.get("options") or [""])[0]
    except ValueError:
        return "postgresql://?"
    user, schema = f"{user}@" if user else "", ""
    if "search_path" in options:
        schema = "?" + options.replace("-c ", "").replace("-c", "")
    return f"postgresql://{user}{host}:{port}/{dbname}{schema}"


class _Result:
    """A psycopg cursor as the store reads sqlite3's: ``fetchone``, ``fetchall``, iteration, ``rowcount``."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self.rowcount: int = cursor.rowcount  # the rows an INSERT, UPDATE or DELETE changed

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor.fetchall())


class PgConnection:
    """A psycopg connection that takes the store's statements with ``?`` placeholders (psycopg's are ``%s``). The
    statements that differ between backends are PostgreSQL's own (``PgStore._sql``, ``referee.store_sql``)."""

    def __init__(self, conn: Connection[Any], write: bool) -> None:
        self.conn = conn
        self.write = write

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        return _Result(self.conn.execute(self._sql(sql).encode(), tuple(params)))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.conn.cursor() as cursor:
                cursor.executemany(self._sql(sql).encode(), [tuple(row) for row in rows])


_pools: dict[str, ConnectionPool] = {}
_ready: set[str] = set()  # addresses whose schema this process has seen at the version it writes
_pools_lock: threading.Lock | None = None  # made on first use (``_lock``)
_making = threading.Lock()  # guards the making of ``_pools_lock`` only: held across no wait
#: The pools a forked child inherited: kept (never closed, never collected) so that no finaliser of theirs sends
#: a goodbye on the parent's connections or waits for worker threads that do not exist in the child.
_inherited: list[ConnectionPool] = []


def _lock() -> threading.Lock:
    """The process's lock of its pools, made on first use: in a board's worker, after gevent's patch (a greenlet that
    met a lock made before it, held by another greenlet while a pool opens, would stop the worker for good)."""
    global _pools_lock
    with _making:
        if _pools_lock is None:
            _pools_lock = threading.Lock()
        return _pools_lock


def _after_fork() -> None:
    """In a forked child: forget the parent's pools (the child makes its own on first use)."""
    global _pools_lock, _making
    _pools_lock, _making = None, threading.Lock()
    _inherited.extend(_pools.values())
    _pools.clear()
    _ready.clear()


os.register_at_fork(after_in_child=_after_fork)


def _configure(conn: Connection[Any]) -> None:
    """Each pooled connection's limits: a statement's run, a lock's wait (the two timeouts above)."""
    conn.execute(f"SET statement_timeout = {int(STATEMENT_TIMEOUT_MS)}".encode())
    conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_MS)}".encode())


def pool(url: str) -> ConnectionPool:
    """The process's pool of connections to ``url`` (opened on first use, closed by ``close_pools``). The first
    connection is made here, so that a server that cannot be reached is said at once with psycopg's reason
    (refused, unknown host, no such database) instead of after the pool's wait. That first connection is tried
    outside the process's lock: with a silent network, waiting requests each get their answer within the connect
    timeout instead of queueing behind each other's."""
    with _lock():
        found = _pools.get(url)
    if found is not None:
        return found
    import logging

    import psycopg
    from psycopg_pool import ConnectionPool

    # The pool's retries are the operator's business (the server's log), never lines on a command's terminal.
    logging.getLogger("psycopg").addHandler(logging.NullHandler())
    psycopg.connect(url, **CONNECT_OPTIONS).close()
    with _lock():
        found = _pools.get(url)
        if found is None:
            found = ConnectionPool(url, min_size=1, max_size=max(1, POOL_MAX), timeout=POOL_TIMEOUT_S,
                                   kwargs={"autocommit": True, **CONNECT_OPTIONS}, configure=_configure, open=False, name="uw-referee")
            found.open(wait=False)
            _pools[url] = found
        return found


def forget_pool(url: str, broken: ConnectionPool) -> None:
    """Drop a pool whose connections the server no longer answers (it restarted, the network was cut): the next
    request makes a new one, which says at once whether the server is back (``pool``'s first connection),
    instead of waiting on the old pool's reconnection, whose pauses double up to minutes."""
    with _lock():
        if _pools.get(url) is not broken:
            return
        del _pools[url]
        _ready.discard(url)
    broken.close(timeout=0)


def _unreachable(found: ConnectionPool, exc: Exception) -> bool:
    """A pool's time-out from a server it cannot reach (fewer connections than its most: it could not make them),
    not from requests queueing for connections all busy at work (under load): only the first drops the pool."""
    from psycopg_pool import PoolTimeout

    return isinstance(exc, PoolTimeout) and found.get_stats().get("pool_size", 0) < found.max_size


def close_pools(timeout: float = 5.0) -> None:
    """Close every pool this process opened (tests; a server that stops), waiting ``timeout`` s for each one's workers."""
    with _lock():
        for found in _pools.values():
            found.close(timeout=timeout)
        _pools.clear()
        _ready.clear()


def busy(path: object, seconds: float) -> StoreError:
    """A call refused because a lock stayed held ``seconds`` (the board answers 503, Retry-After): nothing changed."""
    return StoreError(msg("{path} is busy: another uw-referee kept it locked for {seconds} s. Nothing was changed; "
                          "try again.", path=path, seconds=format(seconds, "g")))


class PgStore(Told, Store):
    """The games in a PostgreSQL database (the schema in the address's ``search_path``; see the module)."""

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        require_postgres()
        super().__init__(url, read_only=read_only)
        self.url = url
        self.path = shown_address(url)  # what messages name: never the password
        self._version = SCHEMA_VERSION

    # -- what differs from a file -------------------------------------------------------------------

    _statements = POSTGRESQL
    _writing = False  # in a write transaction: its reads of a game lock the game's row (``POSTGRESQL_WRITE``)

    def _sql(self, name: str) -> str:
        return (POSTGRESQL_WRITE if self._writing else POSTGRESQL)[name]

    def _new_game(self, conn: Any, stamp: str) -> int:
        row = conn.execute(self._sql("new_game"), (stamp, stamp)).fetchone()
        assert row is not None  # RETURNING gives the new game's row
        return int(row[0])

    def exists(self) -> bool:
        """Whether the schema holds uw-referee's tables (``games`` lists none before the first game)."""
        try:
            self._connect(create=False)
        except NoGame:
            return False
        return True

    def close(self) -> None:
        return None  # connections go back to the pool at the end of each transaction

    def _connect(self, create: bool) -> Any:
        """Make sure the schema is there (made when ``create``), else ``NoGame``; the base store asks before it
        lists games. (Reads and writes take their connection in ``_transaction``.)"""
        import psycopg
        from psycopg_pool import PoolTimeout

        found: ConnectionPool | None = None
        try:
            found = pool(self.url)
            with found.connection() as conn:
                self._ensure_schema(conn, create and not self.read_only)
        except (psycopg.Error, PoolTimeout) as exc:
            if found is not None and (_unreachable(found, exc) or isinstance(exc, psycopg.OperationalError)):
                forget_pool(self.url, found)
            raise self._problem(exc) from None

    def _problem(self, exc: Exception) -> StoreError:
        """A database error in words (the address without its password; nothing was changed)."""
        import psycopg

        if isinstance(exc, (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable)):
            waited = LOCK_TIMEOUT_MS if isinstance(exc, psycopg.errors.LockNotAvailable) else STATEMENT_TIMEOUT_MS
            return busy(self.path, waited / 1000)
        return StoreError(msg("cannot open {path}: {why}", path=self.path, why=scrubbed(str(exc), self.url)))

    def _ensure_schema(self, conn: Connection[Any], create: bool) -> None:
        """The schema ours and at the version this store writes: made when a write needs it, migrated as soon as a
        store that may write opens it (as an SQLite file is), under an advisory lock so that replicas starting
        together do it once; a reader reads an older schema as it is. A foreign or newer one is refused."""
        if self.url in _ready:
            return
        found = conn.execute("SELECT to_regclass('uw_referee_meta') IS NOT NULL, to_regclass('games') IS NOT NULL"
                             ).fetchone()
        if found is not None and not found[0] and found[1]:
            raise self._foreign()
        version = PG_NO_SCHEMA
        if found is not None and found[0]:
            rows = dict(conn.execute("SELECT key, value FROM uw_referee_meta").fetchall())
            if rows.get("application_id") != str(APPLICATION_ID):
                raise self._foreign()
            version = int(rows.get("schema", "0"))
        if version > SCHEMA_VERSION:
            raise StoreError(msg("{path} was written by a newer uw-referee (schema {found}; this one reads up to "
                                 "{version})", path=self.path, found=version, version=SCHEMA_VERSION))
        if version < SCHEMA_VERSION:
            if version < PG_FIRST_SCHEMA and (not create or self.read_only):
                raise no_games_yet(self.path, self.url)
            if self.read_only:
                self._version = version  # read as it is, until a writer migrates it
                return
            self._migrate_pg(conn)
        self._version = SCHEMA_VERSION
        _ready.add(self.url)

    def _foreign(self) -> StoreError:
        return StoreError(msg("{path} holds the tables of another program, not uw-referee's; they were left untouched "
                              "(give --db another database, or another schema with search_path)", path=self.path))

    def _migrate_pg(self, conn: Connection[Any]) -> None:
        conn.read_only = None  # a pooled connection's last transaction may have been a read
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = 0")  # replicas starting together wait for the one that migrates
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (APPLICATION_ID,))
            exists = conn.execute("SELECT to_regclass('uw_referee_meta') IS NOT NULL").fetchone()
            version = PG_NO_SCHEMA
            if exists is not None and exists[0]:
                row = conn.execute("SELECT value FROM uw_referee_meta WHERE key = 'schema'").fetchone()
                version = int(row[0]) if row else version
            for index in range(version - PG_NO_SCHEMA, len(PG_MIGRATIONS)):
                step = PG_MIGRATIONS[index]
                if callable(step):  # a step that fills in rows, run with the store's placeholders
                    step(PgConnection(conn, write=True))
                    continue
                for statement in step.split(";"):
                    if statement.strip():
                        conn.execute(statement.encode())
            conn.execute("UPDATE uw_referee_meta SET value = %s WHERE key = 'schema'", (str(SCHEMA_VERSION),))

    @contextmanager
    def _transaction(self, create: bool = False, write: bool = True) -> Iterator[Any]:
        """One transaction on a pooled connection: a write's game row is locked by its first read (``store_sql``),
        its commit notifies the boards (``CHANNEL``); any database error rolls it all back and becomes a
        ``StoreError`` (the board answers 503)."""
        import psycopg
        from psycopg_pool import PoolTimeout

        if write and self.read_only:
            raise StoreError(msg("{path} was opened read-only", path=self.path))  # a bug, not a user's mistake
        self._resumed = None
        self._told = {}
        self._writing = write
        used: Connection[Any] | None = None
        found: ConnectionPool | None = None
        try:
            found = pool(self.url)
            with found.connection() as conn:
                used = conn
                self._ensure_schema(conn, create or write)
                # A read begins READ ONLY and REPEATABLE READ (no statement more): its statements see one snapshot, as
                # SQLite's do (``verify`` reads the events, then the saved state; ``status`` the view, then the version).
                conn.read_only = None if write else True
                conn.isolation_level = None if write else psycopg.IsolationLevel.REPEATABLE_READ
                with conn.transaction():
                    wrapped = PgConnection(conn, write)
                    yield wrapped
                    if write:
                        self._notify(conn)
            self._tell()  # committed: this process's boards take it as written (``referee.commits``)
        except (psycopg.Error, PoolTimeout) as exc:
            if found is not None and (_unreachable(found, exc) or (used is not None and used.broken)):
                forget_pool(self.url, found)
            raise self._problem(exc) from None

    def _notify(self, conn: Connection[Any]) -> None:
        """Tell every listening board outside this process which games this transaction wrote (delivered at commit,
        never before; this process's boards are told by ``referee.commits``)."""
        for game_id in self._told:
            conn.execute(*self._notice(CHANNEL, game_id))

    def _purged(self, conn: Any, ids: list[int]) -> None:  # noqa: ARG002 - the dialect hook's signature
        """Every board hears of each game ``purge`` deleted, at its commit, as of any write (its copy goes)."""
        for gid in ids:
            self._gone(gid)

    def verify(self, game_id: int | None = None) -> tuple[int, int, list[str]]:
        """``uw-referee verify``: every game (or ``game_id``): its chain, its replay, its snapshot and summary
        against the replay, in one read-only transaction (the server's own pages need no integrity check here)."""
        problems: list[str] = []
        with self._transaction(write=False) as conn:
            ids = [self._resolve(conn, game_id)] if game_id is not None else [
                gid for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall()]
            events = 0
            for gid in ids:
                events += conn.execute("SELECT count(*) FROM events WHERE game_id = ?", (gid,)).fetchone()[0]
                problems.extend(msg("game {game}: {problem}", game=gid, problem=p) for p in self._game_problems(conn, gid))
        return len(ids), events, problems


__all__ = ["CHANNEL", "LOCK_TIMEOUT_MS", "PgStore", "busy", "close_pools", "is_database_url", "open_store", "pool", "shown_address",
           "with_schema"]
