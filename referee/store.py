"""The event log in SQLite: one database, many games, one transaction per action.

The store knows nothing of the rules: it loads a game, lets the engine check and apply the new
events, and commits them all or nothing. Beside the events it keeps a snapshot of each game's
state, tied to the game's last event by a digest, so a command resumes a game instead of replaying
it, a summary per game for listing, and (schema 5) the words of the game's last few actions, so a
reader such as the board says them without a replay. A file that is not a uw-referee database, or that is
damaged, is never written to.
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone

from dictionaries.i18n import Message, message_from_json, message_of, msg, nmsg
from referee.paths import default_db_path, temporary_db_path
from referee.values import value

try:  # the BLAKE2 module alone: hashlib would load OpenSSL, which costs more than a status command
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

TYPE_CHECKING = False  # typing and the engine are loaded only when a command needs them
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

    from referee.engine import Event, Game, Seen, Setup, State

APPLICATION_ID = 0x55575246  # "UWRF": marks the file as ours
SCHEMA_VERSION = 5
#: How many of a game's last actions the store keeps in words beside its snapshot (schema 5): a bounded window,
#: so that a reader (the board) says the last actions without replaying the game. The board shows 5.
#: Why words and not a second snapshot some events back for the reader to replay from: the words are what the
#: reader needs, made once by the applies the writer does anyway (``Game.said``), a few hundred bytes that the
#: snapshot's digest covers and ``verify`` compares with a replay; a second state would double what each write
#: keeps and still leave each reader replaying a window whose length in events no bound fixes.
KEPT_ACTIONS = 8
BUSY_TIMEOUT_S = 10.0
#: Suffix of the file beside the database that records the file as last verified (see ``Store._verify``).
STAMP_SUFFIX = "-verified"
#: A stamp is a few dozen bytes; anything longer is not one of ours and is not read further.
STAMP_MAX_BYTES = 256

#: Migrations: MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE INDEX games_by_activity ON games(updated_at, id);
    """,
    # Version 2: a snapshot of each game's state (tied to its last event by a digest) and a summary
    # for listing. Games written by version 1 get both at their next write; until then they replay.
    """
    CREATE TABLE snapshots (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        view TEXT NOT NULL,
        digest TEXT NOT NULL
    );
    ALTER TABLE games ADD COLUMN summary TEXT;
    """,
    # Version 3: the corrections a table made (undo, redo, amend), for log and export and for new
    # virtual rolls after an undo; and each game's redo stack (undone events, most recent first).
    """
    CREATE TABLE corrections (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE redo (
        game_id INTEGER NOT NULL REFERENCES games(id),
        pos INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, pos)
    );
    """,
    # Version 4: each event carries the running digest of its game's events up to it (``chain_start``,
    # ``chain_record``), and snapshot digests cover the chain and the summary. Filled in by ``_fill_chains``.
    """
    ALTER TABLE events ADD COLUMN chain BLOB;
    """,
    # Version 5: beside each snapshot, the words of the game's last actions (``KEPT_ACTIONS``, as ``log`` says
    # them), made by the same applies that make the snapshot and covered by its digest. Filled in by ``_fill_recent``.
    """
    ALTER TABLE snapshots ADD COLUMN recent TEXT;
    """,
]


class StoreError(Exception):
    """The database cannot be used (names the file and says why)."""


class NoGame(StoreError):
    """No game to act on."""


@value(frozen=True)
class GameSummary:
    """One game as ``games`` lists it."""

    id: int
    players: tuple[str, ...]
    created_at: str
    updated_at: str
    phase: str
    turn: str | None
    winner: str | None
    scores: tuple[int, ...]


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite ends some on its own after an I/O or disk-full error)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the original error is the one worth reporting


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def snapshot_digest(seq: int, last_event: str, state: str, view: str) -> str:
    """Ties a snapshot to the event it follows: a changed event or snapshot no longer matches."""
    return blake2b(f"{seq}\n{last_event}\n{state}\n{view}".encode(), digest_size=16).hexdigest()


def chain_start(game_id: int) -> Any:
    """The running digest of a game's events before its first (a BLAKE2b hasher), tied to the game's id so
    that rows cannot move between games unseen. Each event row carries this digest updated with every
    event up to and including it (``chain_record``): a changed byte anywhere breaks every digest after it."""
    return blake2b(b"uw-referee game %d\n" % game_id, digest_size=16)


def chain_record(seq: int, at: str | bytes, data: str | bytes) -> bytes:
    """One event as the chain hashes it: its time and its data, after a record separator from the second event
    on, the bytes ``CHAIN_SQL`` joins in SQLite, so both agree. (The seq is not hashed: the chain is checked
    with the count and the last seq, and ``verify`` checks every seq.)"""
    return b"%s%s%s" % (b"\x1e" if seq else b"", at.encode() if isinstance(at, str) else at,
                        data.encode() if isinstance(data, str) else data)


#: A game's events before seq ``?`` as one byte string of ``chain_record``s, with their count and last seq:
#: one query and one hash call check thousands of events (the rows are read in the primary key's order).
CHAIN_SQL = ("SELECT CAST(group_concat(at || data, '\x1e') AS BLOB), count(*), max(seq) FROM (SELECT seq, at, data "
             "FROM events WHERE game_id = ? AND seq < ? ORDER BY seq)")


def game_digest(seq: int, head: bytes, state: str, view: str, summary: str | None, recent: str | None = None) -> str:
    """Ties a snapshot and the game's summary to the chain of events they follow (schema 4), and the words of
    its last actions kept with it (schema 5; None: none kept, the digest schema 4 gave): a changed byte in
    any of them, or in any event, no longer matches."""
    text = f"{seq}\n{head.hex()}\n{state}\n{view}\n{summary}" + ("" if recent is None else f"\n{recent}")
    return blake2b(text.encode(errors="surrogateescape"), digest_size=16).hexdigest()


def summary_of(state: State) -> dict[str, Any]:
    """What ``games`` shows of a game, kept beside it so listing never replays."""
    return {
        "players": list(state.setup.players), "phase": state.phase.value,
        "turn": None if state.current is None or state.is_over() else state.current.name,
        "winner": state.winner, "scores": [p.score for p in state.players],
    }


_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _note_json(note: str) -> dict[str, Any]:
    """One note as the window keeps it: a Message's JSON (translatable later), a plain string as a bare template."""
    if isinstance(note, Message):
        return note.to_json()
    return {"message": str(note).replace("{", "{{").replace("}", "}}"), "params": {}}


def add_actions(window: list[list[Any]], told: list[tuple[Event, list[str]]], over: bool,
                keep: int = KEPT_ACTIONS) -> list[list[Any]]:
    """The window of last actions (each a list of notes as JSON) after the events ``told`` with the notes their
    ``apply`` returned: as ``log`` says them (without the closing sentence of what the game waits for, unless
    the game ended on the last one); a roll joins the play it belongs to, as the table sees one action. The
    same grouping as the board's ``recent_notes``, so a window carried forward equals one made by a replay."""
    actions = [list(action) for action in window]
    for i, (event, notes) in enumerate(told):
        said = notes if over and i == len(told) - 1 else notes[:-1]
        if not said:
            continue
        if actions and not event.starts_action:
            actions[-1].extend(_note_json(note) for note in said)
        else:
            actions.append([_note_json(note) for note in said])
    return actions[-keep:] if keep > 0 else []


def told_tail(events: list[Event], keep: int = KEPT_ACTIONS) -> tuple[Game, list[list[Any]]]:
    """The game those events give and the window of its last ``keep`` actions in words (``add_actions``): the
    events before the last ``keep`` + 1 actions are replayed without words (``Game.replay(words=False)``), the
    rest with them, so it costs a quiet replay. A refused event raises as ``Game.replay`` does. (Should actions
    that say nothing leave fewer than ``keep`` whole ones in the worded part, it starts further back.)"""
    from referee.engine import Game

    starts = [i for i, e in enumerate(events) if i and e.starts_action]
    back = keep + 1
    while True:
        start = starts[-back] if back <= len(starts) else 1
        game = Game.replay(events[:start], words=False)
        said: list[list[str]] = []
        game.said = said
        try:
            for event in events[start:]:
                game.apply(event)
        finally:
            game.said = None
        window = add_actions([], list(zip(events[start:], said, strict=True)), game.state.is_over(), keep + 1)
        if start <= 1:
            return game, window[-keep:] if keep > 0 else []
        if len(window) > keep:  # the first may lack events that an earlier, silent start would join to it
            return game, window[-keep:]
        back *= 2


def _fill_recent(conn: sqlite3.Connection) -> None:
    """Migration to schema 5: every snapshot that matches its events gets the words of the game's last actions
    (one replay per game, once) and its digest again with them. A game that cannot be replayed keeps none
    (readers then replay it, and ``verify`` names the damage)."""
    from referee.engine import event_from_dict

    rows = conn.execute("SELECT s.game_id, s.seq, s.state, s.view, s.digest, g.summary FROM snapshots s JOIN games g "
                        "ON g.id = s.game_id").fetchall()
    for gid, seq, state, view, digest, summary in rows:
        last = conn.execute("SELECT seq, chain FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                            (gid,)).fetchone()
        if last is None or last[0] + 1 != seq or not isinstance(last[1], bytes):
            continue
        if game_digest(seq, last[1], state, view, summary) != digest:
            continue
        try:
            events = [event_from_dict(json.loads(data)) for (data,) in conn.execute(
                "SELECT data FROM events WHERE game_id = ? ORDER BY seq", (gid,))]
            _game, window = told_tail(events)
        except (ValueError, KeyError, TypeError):
            continue
        recent = _dumps(window)
        conn.execute("UPDATE snapshots SET recent = ?, digest = ? WHERE game_id = ?",
                     (recent, game_digest(seq, last[1], state, view, summary, recent), gid))


def _fill_chains(conn: sqlite3.Connection) -> None:
    """Migration to schema 4: every event gets its running digest, every snapshot the digest of schema 4.

    A snapshot that did not match its game's last event is dropped (the game replays until its next write).
    """
    heads: dict[int, tuple[int, str, bytes]] = {}
    for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall():
        chain = chain_start(gid)
        rows = []
        last: tuple[int, str] | None = None
        for seq, at, data in conn.execute("SELECT seq, at, data FROM events WHERE game_id = ? ORDER BY seq", (gid,)):
            chain.update(chain_record(seq, at, data))
            rows.append((chain.digest(), gid, seq))
            last = (seq, data)
        conn.executemany("UPDATE events SET chain = ? WHERE game_id = ? AND seq = ?", rows)
        if last is not None:
            heads[gid] = (last[0], last[1], chain.digest())
    for gid, seq, state, view, digest, summary in conn.execute(
            "SELECT s.game_id, s.seq, s.state, s.view, s.digest, g.summary FROM snapshots s JOIN games g ON "
            "g.id = s.game_id").fetchall():
        head = heads.get(gid)
        if head is None or head[0] + 1 != seq or snapshot_digest(seq, head[1], state, view) != digest:
            conn.execute("DELETE FROM snapshots WHERE game_id = ?", (gid,))
        else:
            conn.execute("UPDATE snapshots SET digest = ? WHERE game_id = ?",
                         (game_digest(seq, head[2], state, view, summary), gid))


class Store:
    """A referee database at ``path``; created on first write, never overwritten if foreign or damaged.

    ``read_only=True`` opens an existing file without ever writing it (read-only media, the board).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = BUSY_TIMEOUT_S,
                 read_only: bool = False) -> None:
        self.path = os.fspath(path) if path is not None else default_db_path()
        self.timeout = timeout
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = None
        self._version = SCHEMA_VERSION
        self._verified = False  # the whole file was checked (or known unchanged) on this connection
        self._resumed: tuple[int, int, Any] | None = None  # (game, events, running digest) checked before a write
        self._unchanged: list[Any] | None = None  # read as it is: the file's state when opened (see ``_open``)

    # -- connection -------------------------------------------------------------------------------

    def exists(self) -> bool:
        return os.path.isfile(self.path) and os.path.getsize(self.path) > 0

    def _connect(self, create: bool) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        self._refuse_temporary()
        if os.path.isdir(self.path):
            raise StoreError(msg("{path} is a directory, not a database file", path=self.path))
        if not self.exists():
            if not create or self.read_only:
                raise NoGame(msg("no games yet in {path}: start one with 'uw-referee new NAME NAME'", path=self.path))
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            except OSError as exc:
                raise StoreError(msg("cannot create {path}: {why}", path=self.path, why=exc.strerror or exc)) from None
        try:
            conn = self._open()
        except sqlite3.DatabaseError as exc:
            raise StoreError(self._explain(exc)) from None
        except sqlite3.Error as exc:
            raise StoreError(msg("cannot open {path}: {why}", path=self.path, why=exc)) from None
        try:
            # Known to be ours and of a version this one can write before any PRAGMA that changes the file.
            self._check_ours(conn)
            self._version = conn.execute("PRAGMA user_version").fetchone()[0]
            if self._version > SCHEMA_VERSION:
                raise StoreError(msg("{path} was written by a newer uw-referee (schema {found}; this one reads up to "
                                     "{version})", path=self.path, found=self._version, version=SCHEMA_VERSION))
            if not self.read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("PRAGMA foreign_keys=ON")
                self._migrate(conn)
                self._version = conn.execute("PRAGMA user_version").fetchone()[0]
            if self._version == 0:  # an empty SQLite file, never written by uw-referee (read-only: left so)
                raise NoGame(msg("no games yet in {path}: start one with 'uw-referee new NAME NAME'", path=self.path))
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(self._explain(exc)) from None
        except StoreError:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _refuse_temporary(self) -> None:
        """SQLite would keep '', ':memory:' or a ``file:`` URI in a throw-away database: the game would be lost."""
        if temporary_db_path(self.path):
            raise StoreError(msg("{path!r} is not a file SQLite would keep: the games would be lost when the command "
                                 "ends. Give --db (or UW_REFEREE_DB) the path of a file", path=self.path))

    def _open(self) -> sqlite3.Connection:
        """A connection; read-only ones fall back to SQLite's ``immutable`` mode on read-only media."""
        if not self.read_only:
            return sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None)
        from urllib.parse import quote  # read-only opening needs a file: URI

        uri = "file:" + quote(os.path.abspath(self.path))
        if not os.access(self.path, os.W_OK) and not os.path.exists(self.path + "-wal"):
            # A reader that cannot write the file would leave -wal and -shm files of its own, with the file's
            # mode, that block the owner's next write: the file is read as it is, and a change during the read
            # is noticed (``_transaction``).
            self._unchanged = self._file_state()
            return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=self.timeout, isolation_level=None)
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=self.timeout, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if "unable to open" not in str(exc) and "readonly" not in str(exc):
                raise
        # A WAL database on read-only media: nothing can change it, so read it as it is.
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=self.timeout, isolation_level=None)

    def _explain(self, exc: sqlite3.Error) -> Message:
        text = str(exc)
        code = getattr(exc, "sqlite_errorname", "")
        if "locked" in text or "busy" in text:
            seconds = f"{self.timeout:g}"
            return msg("{path} is busy: another uw-referee kept it locked for {seconds} s. Nothing was changed; try "
                       "again.", path=self.path, seconds=seconds)
        if "not a database" in text:
            return msg("{path} is not a readable uw-referee database ({why}); it was left untouched", path=self.path,
                       why=text)
        if "malformed" in text or "disk image" in text:
            return msg("{path} is damaged and cannot be read ({why}); it was left untouched. Restore a backup, or move "
                       "it aside and start a new file", path=self.path, why=text)
        if code == "SQLITE_FULL" or "full" in text or (code.startswith("SQLITE_IOERR") and self._disk_full()):
            return msg("the disk holding {path} is full: nothing was changed; free some space and try again",
                       path=self.path)
        folder = os.path.dirname(os.path.abspath(self.path))
        blocking = self._blocking_files() if code.startswith("SQLITE_READONLY") or "readonly" in text else []
        if blocking:
            return msg("{path} cannot be written: {files} beside it cannot be written (left so by a program that could "
                       "only read the database). Nothing was changed. Make them writable as the database is (chmod "
                       "u+w {files}), or delete them while no uw-referee is using {path} (an empty -wal file holds "
                       "nothing)", path=self.path, files=" ".join(blocking))
        if code == "SQLITE_READONLY" or "readonly" in text or ("unable to open" in text and not os.access(folder, os.W_OK)):
            return msg("{path} cannot be written (a read-only file, folder or medium): nothing was changed; it can "
                       "still be read (status, log, export)", path=self.path)
        return msg("{path}: {why}", path=self.path, why=text)

    def _blocking_files(self) -> list[str]:
        """The -wal and -shm files that cannot be written beside a database that can (they block every write)."""
        if not os.access(self.path, os.W_OK):
            return []
        return [f"{self.path}{suffix}" for suffix in ("-wal", "-shm")
                if os.path.exists(f"{self.path}{suffix}") and not os.access(f"{self.path}{suffix}", os.W_OK)]

    def _disk_full(self) -> bool:
        import shutil

        try:
            return shutil.disk_usage(os.path.dirname(os.path.abspath(self.path))).free < 1024 * 1024
        except OSError:
            return False

    def _check_ours(self, conn: sqlite3.Connection) -> None:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != APPLICATION_ID and (app_id != 0 or tables):
            raise StoreError(msg("{path} is an SQLite database of another program, not uw-referee's; it was left "
                                 "untouched (use --db to choose another file)", path=self.path))

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version >= SCHEMA_VERSION:
            return
        if version:
            self._verify(conn)  # never migrate a damaged file
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                if step == 3:
                    _fill_chains(conn)
                if step == 4:
                    _fill_recent(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    # -- verification -----------------------------------------------------------------------------

    def _stamp_path(self) -> str:
        return self.path + STAMP_SUFFIX

    def _file_state(self) -> list[Any]:
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

    def _verify(self, conn: sqlite3.Connection) -> None:
        """Before the first write: make sure the file is whole, without reading it all every time.

        When the file is exactly as the last uw-referee write left it (the stamp beside it matches
        its size, time and identity), it was verified then. Otherwise (first use, another program
        wrote it, a crash between commit and stamp) the whole file is checked once: SQLite's
        quick_check, then every game's events are read and replayed and its snapshot compared.
        """
        if self._verified:
            return
        try:  # data, not code: only exactly what ``_write_stamp`` writes counts, anything else is ignored
            with open(self._stamp_path(), "rb") as file:
                stamp = file.read(STAMP_MAX_BYTES + 1)
        except OSError:
            stamp = None
        if stamp is not None and stamp == _dumps(self._file_state()).encode():
            self._verified = True
            return
        try:
            conn.execute("BEGIN")  # one consistent view while other processes may be writing
            try:
                self._check_whole(conn)
            finally:
                _rollback(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(self._explain(exc)) from None
        except StoreError as exc:
            if "damaged" in str(exc) or "cannot be replayed" in str(exc):
                raise StoreError(msg("{problem}. No command will write to this file", problem=message_of(exc))) from None
            raise
        self._verified = True

    def _check_whole(self, conn: sqlite3.Connection) -> None:
        """SQLite's quick_check, then every game replayed and compared with its kept state."""
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        if rows != [("ok",)]:
            detail = " ".join(str(rows[0][0] if rows else "no answer").split())
            raise StoreError(msg("{path} is damaged (SQLite's quick_check: {detail}); it was left untouched. Restore a "
                                 "backup, or move it aside and start a new file", path=self.path, detail=detail))
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall():
            if version >= 4:
                problems = self._game_problems(conn, gid)
                if problems:
                    raise self._damaged(gid, problems[0])
                continue
            game = self._replay(conn, gid)
            if version >= 2 and self._snapshot(conn, gid) not in (None, json.loads(_dumps(game.state.to_snapshot()))):
                raise StoreError(msg("game {game} in {path} is damaged (its saved state does not match its events); "
                                     "the file was left untouched. Restore a backup, or export the other games and "
                                     "start a new file", game=gid, path=self.path))

    def _game_problems(self, conn: sqlite3.Connection, game_id: int) -> list[Message]:
        """Everything wrong with one game (schema 4): its chain, its replay, its snapshot and summary against it."""
        problems: list[Message] = []
        chain = self._chain_problem(conn, game_id)
        if chain is not None:
            problems.append(chain)
        window: list[list[Any]] | None = None
        try:
            events = self._events(conn, game_id, check=False)[0]
            if self._version >= 5:  # the same replay, with words for the last actions, to check those kept
                try:
                    game, window = told_tail(events)
                except (ValueError, KeyError, TypeError) as exc:
                    raise self._unreplayable(game_id, exc) from None
            else:
                game = self._replay(conn, game_id, events)
        except StoreError as exc:
            if chain is None:  # a replay that fails behind a damaged chain says nothing more
                problems.append(msg("its events cannot be replayed ({why})", why=message_of(exc)))
            return problems
        row = self._snapshot_row(conn, game_id)
        if row is None:
            return problems
        seq, state, view, summary, _head, good, recent = row
        replayed = json.loads(_dumps([game.state.to_snapshot(), game.state.view(), summary_of(game.state), window]))
        parts = [(msg("saved state"), state, replayed[0]), (msg("saved view"), view, replayed[1]),
                 (msg("summary"), summary, replayed[2])]
        if recent is not None:
            parts.append((msg("saved last actions"), recent, replayed[3]))
        differ = []
        for name, text, again in parts:
            try:
                if json.loads(text or "null") != again:
                    differ.append(name)
            except ValueError:
                differ.append(name)
        if not good and differ:  # named part by part: which of them the damage hit
            problems.extend(msg("its {part} was changed after it was written (it no longer matches its digest nor its "
                                "events)", part=part) for part in differ)
        elif not good:
            problems.append(msg("its saved state or summary was changed after it was written"))
        elif differ:
            problems.append(msg("its saved state does not match its events"))
        return problems

    def verify(self, game_id: int | None = None) -> tuple[int, int, list[str]]:
        """``uw-referee verify``: SQLite's integrity check, then every game (or ``game_id``): its chain of events,
        its replay, its snapshot and summary against the replay. Returns the games and events checked and
        each problem found, in plain words. Never writes."""
        conn = self._connect(create=False)
        problems: list[str] = []
        ids: list[int] = []
        try:
            conn.execute("BEGIN")
            try:
                rows = [" ".join(str(r[0]).split()) for r in conn.execute("PRAGMA integrity_check(20)").fetchall()]
                if rows != ["ok"]:
                    problems.extend(msg("SQLite's integrity check: {detail}", detail=row) for row in rows)
                ids = [self._resolve(conn, game_id)] if game_id is not None else [
                    gid for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall()]
                events = 0
                for gid in ids:
                    events += conn.execute("SELECT count(*) FROM events WHERE game_id = ?", (gid,)).fetchone()[0]
                    found: list[str]
                    if self._version >= 4:
                        found = list(self._game_problems(conn, gid))
                    else:
                        try:
                            self._replay(conn, gid)
                            found = []
                        except StoreError as exc:
                            found = [message_of(exc)]
                    problems.extend(msg("game {game}: {problem}", game=gid, problem=p) for p in found)
            finally:
                _rollback(conn)
        except sqlite3.DatabaseError as exc:
            self._check_unchanged()
            problems.append(self._explain(exc))
            return 0, 0, problems
        self._check_unchanged()
        return len(ids), events, problems

    def checked_view(self, game_id: int | None = None) -> tuple[int, dict[str, Any], Message | None]:
        """``status``: what ``view`` gives, and what is damaged in the game if anything (its chain of events, its
        snapshot or summary), so the scoreboard is shown and the damage said after it."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            problem: Message | None = None
            if self._version >= 4:
                found: Message | None = None
                try:
                    self._chain(conn, gid)
                except StoreError:
                    found = self._chain_problem(conn, gid) or msg("its events were changed")
                row = self._snapshot_row(conn, gid)
                if found is None and row is not None and not row[5]:
                    found = msg("its saved state or summary was changed after it was written")
                if found is not None:
                    problem = msg("game {game} in {path} is damaged: {problem}. Restore the file from a backup, or "
                                  "start again from an earlier 'uw-referee export'; 'uw-referee verify' lists all the "
                                  "damage", game=gid, path=self.path, problem=found)
            kept = self._kept(conn, gid, "view")
            if kept and "waiting" in kept[1]:
                view = kept[1]
            else:  # replays, which a damaged chain stops
                view = self._game(conn, gid).state.view()
        return gid, view, problem

    def _write_stamp(self) -> None:
        """Record the file as this write left it (after the connection is closed, so SQLite is done with it)."""
        stamp = self._stamp_path()
        temp = f"{stamp}.{os.getpid()}"
        try:
            with open(temp, "w", encoding="utf-8") as file:
                file.write(_dumps(self._file_state()))
            os.replace(temp, stamp)
        except OSError:
            try:
                os.unlink(temp)
            except OSError:
                pass  # no stamp: the next write checks the whole file, which is only slower

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            self._verified = False

    @contextmanager
    def _transaction(self, create: bool = False, write: bool = True) -> Iterator[sqlite3.Connection]:
        if write and self.read_only:
            raise StoreError(msg("{path} was opened read-only", path=self.path))  # a bug, not a user's mistake
        conn = self._connect(create)
        if write:
            self._verify(conn)
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            raise StoreError(self._explain(exc)) from None
        try:
            yield conn
            self._check_unchanged()
        except sqlite3.DatabaseError as exc:
            # Damage SQLite only finds when it reads a page (a corrupt table or index) surfaces here.
            _rollback(conn)
            self._check_unchanged()
            raise StoreError(self._explain(exc)) from None
        except BaseException:
            _rollback(conn)
            raise
        else:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(conn)
                raise StoreError(self._explain(exc)) from None
            if write:
                self.close()
                self._write_stamp()

    def _check_unchanged(self) -> None:
        """A file read as it is (``_open``) must not have been written meanwhile: else what was read may be torn."""
        if self._unchanged is not None and self._file_state() != self._unchanged:
            self.close()
            self._unchanged = None
            raise StoreError(msg("{path} was written by another program while it was read: nothing was changed; try "
                                 "again", path=self.path))

    # -- reading games ----------------------------------------------------------------------------

    def _resolve(self, conn: sqlite3.Connection, game_id: int | None) -> int:
        if game_id is None:
            row = conn.execute("SELECT id FROM games ORDER BY updated_at DESC, id DESC LIMIT 1").fetchone()
            if row is None:
                raise NoGame(msg("no games yet in {path}: start one with 'uw-referee new NAME NAME'", path=self.path))
            return int(row[0])
        row = conn.execute("SELECT id FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NoGame(msg("there is no game {game} in {path}; 'uw-referee games' lists them", game=game_id, path=self.path))
        return game_id

    def _events(self, conn: sqlite3.Connection, game_id: int, check: bool = True) -> tuple[list[Event], list[str]]:
        """The game's events and their times; ``check=False`` skips the chain (``verify`` reports it itself)."""
        from referee.engine import event_from_dict

        records, stamps = self._records(conn, game_id, check)  # every replay reads events whose chain is whole
        try:
            return [event_from_dict(data) for data in records], stamps
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None

    def _records(self, conn: sqlite3.Connection, game_id: int, check: bool = True) -> tuple[list[Any], list[str]]:
        """The game's events as stored (their JSON objects) and their times. Rows whose chain was checked are
        the referee's own bytes, one object each: they are parsed in one go; any others one by one."""
        chained = check and self._version >= 4
        if chained:
            self._chain(conn, game_id)
        rows = conn.execute("SELECT data, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        try:
            if chained:
                records = json.loads(f"[{','.join(data for data, _ in rows)}]")
                if len(records) == len(rows):
                    return records, [at for _, at in rows]
            return [json.loads(data) for data, _ in rows], [at for _, at in rows]
        except (ValueError, TypeError):
            try:  # one by one: the error names the row's own fault
                return [json.loads(data) for data, _ in rows], [at for _, at in rows]
            except (ValueError, TypeError) as exc:
                raise self._unreplayable(game_id, exc) from None

    def _unreplayable(self, game_id: int, exc: Exception) -> StoreError:
        return StoreError(msg("game {game} in {path} cannot be replayed ({why}); it was left untouched", game=game_id,
                              path=self.path, why=message_of(exc)))

    def _replay(self, conn: sqlite3.Connection, game_id: int, events: list[Event] | None = None) -> Game:
        from referee.engine import Game

        if events is None:
            events, _ = self._events(conn, game_id)
        try:
            return Game.replay(events, words=False)  # what past events did in words is not kept: not made
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None

    def _snapshot(self, conn: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
        """The game's kept state if it matches the game's last event, else None (then it is replayed)."""
        if self._version < 2:
            return None
        found = self._kept(conn, game_id, "state")
        return found[1] if found else None

    def _kept(self, conn: sqlite3.Connection, game_id: int, column: str) -> tuple[int, dict[str, Any]] | None:
        """The kept ``state`` or ``view`` of the game, with the event count, if it matches the last event."""
        if self._version < 2:
            return None
        if self._version >= 4:
            row = self._snapshot_row(conn, game_id)
            if row is None or not row[5]:
                return None
            seq, state, view = row[0], row[1], row[2]
        else:
            row = conn.execute("SELECT seq, state, view, digest FROM snapshots WHERE game_id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            seq, state, view, digest = row
            last = conn.execute("SELECT seq, data FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                                (game_id,)).fetchone()
            if last is None or last[0] + 1 != seq or snapshot_digest(seq, last[1], state, view) != digest:
                return None
        try:
            data = json.loads(state if column == "state" else view)
        except ValueError:
            return None
        return (seq, data) if isinstance(data, dict) else None

    def _snapshot_row(self, conn: sqlite3.Connection, game_id: int
                      ) -> tuple[int, str, str, str | None, bytes, bool, str | None] | None:
        """Schema 4: the game's snapshot (seq, state, view, summary, chain head), whether its digest matches
        them and the digest the game's last event carries, and (schema 5) the words of its last actions kept
        with it; None when the game has no snapshot."""
        column = "s.recent" if self._version >= 5 else "NULL"
        row = conn.execute(f"SELECT s.seq, s.state, s.view, s.digest, g.summary, {column} FROM snapshots s JOIN games g "
                           "ON g.id = s.game_id WHERE s.game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        seq, state, view, digest, summary, recent = row
        last = conn.execute("SELECT seq, chain FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                            (game_id,)).fetchone()
        head = last[1] if last is not None and isinstance(last[1], bytes) else b""
        good = (last is not None and last[0] + 1 == seq and isinstance(state, str) and isinstance(view, str)
                and (recent is None or isinstance(recent, str))
                and game_digest(seq, head, state, view, summary, recent) == digest)
        return seq, state, view, summary, head, good, recent

    # -- the chain of events ----------------------------------------------------------------------

    def _chain(self, conn: sqlite3.Connection, game_id: int, end: int | None = None) -> tuple[Any, int]:
        """The running digest of the game's events before seq ``end`` (all when None) and their count, checked
        against the digest the last of them carries: the rows' bytes read and hashed in one go, no replay.
        Damage raises ``StoreError`` naming the game and the event."""
        blob, count, last = conn.execute(CHAIN_SQL, (game_id, 2**62 if end is None else end)).fetchone()
        chain = chain_start(game_id)
        if count == 0:
            return chain, 0
        chain.update(blob if isinstance(blob, bytes) else b"")
        row = conn.execute("SELECT chain FROM events WHERE game_id = ? AND seq = ?", (game_id, last)).fetchone()
        if last + 1 != count or row is None or row[0] != chain.digest():
            raise self._damaged(game_id, self._chain_problem(conn, game_id) or msg("its events were changed"))
        return chain, count

    def _chain_problem(self, conn: sqlite3.Connection, game_id: int) -> Message | None:
        """What is wrong with the game's chain, event by event (only run once damage is known or looked for)."""
        chain = chain_start(game_id)
        rows = conn.execute("SELECT seq, CAST(at AS BLOB), CAST(data AS BLOB), chain FROM events WHERE game_id = ? "
                            "ORDER BY seq", (game_id,)).fetchall()
        for i, (seq, at, data, digest) in enumerate(rows):
            if seq != i:
                return msg("event {event} is missing", event=i)
            if not isinstance(at, bytes) or not isinstance(data, bytes):
                return msg("event {event} was changed after it was written (its digest no longer matches)", event=i)
            chain.update(chain_record(seq, at, data))
            if digest != chain.digest():
                return msg("event {event} was changed after it was written (its digest no longer matches)", event=i)
        return None

    def _damaged(self, game_id: int, problem: Message) -> StoreError:
        return StoreError(msg("game {game} in {path} is damaged: {problem}. Nothing was written. Restore the file from "
                              "a backup, or start again from an earlier 'uw-referee export'; 'uw-referee verify' "
                              "lists all the damage", game=game_id, path=self.path, problem=problem))

    def _check_game(self, conn: sqlite3.Connection, game_id: int) -> None:
        """Before a write to the game (schema 4): its chain of events whole, its snapshot and summary matching
        them. Keeps the running digest for ``_save``."""
        self._resumed = None
        chain, count = self._chain(conn, game_id)
        row = self._snapshot_row(conn, game_id)
        if row is not None and not row[5]:
            raise self._damaged(game_id, msg("its saved state or summary was changed after it was written"))
        self._resumed = (game_id, count, chain)

    def _chain_before(self, conn: sqlite3.Connection, game_id: int, first_seq: int) -> Any:
        """The running digest before ``first_seq``: the one ``_check_game`` kept, or read and checked again."""
        kept = self._resumed
        self._resumed = None
        if kept is not None and kept[:2] == (game_id, first_seq):
            return kept[2]
        return self._chain(conn, game_id, first_seq)[0]

    def _game(self, conn: sqlite3.Connection, game_id: int) -> Game:
        """The game, resumed from its snapshot when it matches, else replayed from its events."""
        from referee.engine import Game, State

        data = self._snapshot(conn, game_id)
        game = None
        if data is not None:
            try:
                game = Game.resume(State.from_snapshot(data))
            except (ValueError, KeyError, TypeError):
                pass  # a snapshot this version cannot read: replay
        if game is None:
            game = self._replay(conn, game_id)
        game.generation = self._undos(conn, game_id)
        return game

    def _undos(self, conn: sqlite3.Connection, game_id: int) -> int:
        """How many undos the game has had (virtual rolls after an undo are new rolls)."""
        if self._version < 3:
            return 0
        row = conn.execute("SELECT count(*) FROM corrections WHERE game_id = ? AND substr(data, 1, 15) = ?",
                           (game_id, '{"type":"undo",')).fetchone()
        return int(row[0])

    def _corrections(self, conn: sqlite3.Connection, game_id: int) -> list[tuple[str, dict[str, Any]]]:
        if self._version < 3:
            return []
        rows = conn.execute("SELECT at, data FROM corrections WHERE game_id = ? ORDER BY n", (game_id,)).fetchall()
        return [(at, json.loads(data)) for at, data in rows]

    def _record(self, conn: sqlite3.Connection, game_id: int, correction: dict[str, Any]) -> None:
        """Record a correction (undo, redo, amend) with the time."""
        row = conn.execute("SELECT coalesce(max(n), -1) + 1 FROM corrections WHERE game_id = ?", (game_id,)).fetchone()
        conn.execute("INSERT INTO corrections (game_id, n, at, data) VALUES (?, ?, ?, ?)",
                     (game_id, row[0], now(), _dumps(correction)))

    def _redo_stack(self, conn: sqlite3.Connection, game_id: int) -> list[Event]:
        from referee.engine import event_from_dict

        rows = conn.execute("SELECT data FROM redo WHERE game_id = ? ORDER BY pos", (game_id,)).fetchall()
        try:
            return [event_from_dict(json.loads(data)) for (data,) in rows]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None

    def _set_redo(self, conn: sqlite3.Connection, game_id: int, events: list[Event]) -> None:
        conn.execute("DELETE FROM redo WHERE game_id = ?", (game_id,))
        conn.executemany("INSERT INTO redo (game_id, pos, data) VALUES (?, ?, ?)",
                         [(game_id, i, _dumps(e.to_dict())) for i, e in enumerate(events)])

    def load(self, game_id: int | None = None) -> tuple[int, Game]:
        """The game (the most recently active one when ``game_id`` is None), without its past events."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            game = self._game(conn, gid)
        return gid, game

    def check_seen(self, game_id: int, expect: Seen) -> Game:
        """The game, when what the caller saw is still what it is; else ``GameChanged`` saying what happened
        meanwhile (as a write with ``expect`` would be refused), without writing anything."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            game = self._game(conn, gid)
            self._check_seen(conn, gid, game, expect)
        return game

    def view(self, game_id: int | None = None) -> tuple[int, dict[str, Any]]:
        """What ``status`` shows of the game (``State.view()``), from what is kept, without the engine.

        A game without a matching snapshot (written by version 1, or damaged) is replayed instead.
        """
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            kept = self._kept(conn, gid, "view")
            # A view kept before views held their messages ("waiting") is made again, so it can be translated.
            view = kept[1] if kept and "waiting" in kept[1] else self._game(conn, gid).state.view()
        return gid, view

    def setup(self, game_id: int | None = None) -> tuple[int, Setup]:
        """The game's set-up alone (its level, deck and dice), read from its first event."""
        from referee.engine import Created, event_from_dict

        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            row = conn.execute("SELECT data FROM events WHERE game_id = ? AND seq = 0", (gid,)).fetchone()
            try:
                event = event_from_dict(json.loads(row[0]))
                if not isinstance(event, Created):
                    raise ValueError(msg("the first event is not the creation"))
            except (ValueError, KeyError, TypeError) as exc:
                raise self._unreplayable(gid, exc) from None
        return gid, event.setup

    def phase(self, game_id: int) -> str | None:
        """The game's phase as its summary keeps it (``"over"`` once it has ended), without replaying it."""
        with self._transaction(write=False) as conn:
            row = conn.execute("SELECT summary FROM games WHERE id = ?", (game_id,)).fetchone()
        try:
            phase = json.loads(row[0]).get("phase") if row is not None and row[0] else None
        except (ValueError, AttributeError):
            return None  # a summary this version cannot read: the action's own checks decide
        return phase if isinstance(phase, str) else None

    def history(self, game_id: int | None = None) -> tuple[int, Game, list[tuple[str, Event]]]:
        """The game, replayed, and each event with the time it was recorded."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            events, stamps = self._events(conn, gid)
            game = self._replay(conn, gid, events)
        return gid, game, list(zip(stamps, game.events))

    def tail(self, game_id: int | None, start: int, same: int | None = None
             ) -> tuple[int, str, list[tuple[int, str, Event, bytes | None]]]:
        """The game (the most recently active one when ``game_id`` is None), when it last changed, and its events
        from seq ``start`` on, each with its seq, time and running digest (None before schema 4), without a replay.

        For a reader that keeps its own copy of a game (the board) and carries it forward by the new events only:
        asking from one before the first new event tells whether its copy is still the game's beginning (the
        digest covers every event up to it, so an undo or an amend changes it). ``same``: the game the reader
        keeps; when the game found is another (a new current game), no event is read (the reader starts again)."""
        from referee.engine import event_from_dict

        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            updated = conn.execute("SELECT updated_at FROM games WHERE id = ?", (gid,)).fetchone()[0]
            if same is not None and gid != same:
                return gid, str(updated), []
            column = "chain" if self._version >= 4 else "NULL"
            rows = conn.execute(f"SELECT seq, at, data, {column} FROM events WHERE game_id = ? AND seq >= ? "
                                "ORDER BY seq", (gid, max(0, start))).fetchall()
            try:
                found = [(seq, at, event_from_dict(json.loads(data)), chain) for seq, at, data, chain in rows]
            except (ValueError, KeyError, TypeError) as exc:
                raise self._unreplayable(gid, exc) from None
        return gid, str(updated), found

    def resumed(self, game_id: int | None) -> tuple[int, str, Game, list[list[Message]], int, bytes] | None:
        """The game (the most recently active one when ``game_id`` is None) resumed from its snapshot, when it last
        changed, the words of its last actions kept with the snapshot (oldest first, each action's notes), and the
        seq and running digest of its last event: a reader's starting point that costs the same at any length of
        game (no replay). None when no snapshot with words matches the game's last event (a file before schema 5,
        a game kept without them, or a snapshot changed after it was written): the caller then replays the events.

        The snapshot's digest covers the state, the view, the summary and the words, and ties them to the digest of
        the last event, which covers every event before it: damage to any of them is never served from here."""
        from referee.engine import Game, State

        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            updated = conn.execute("SELECT updated_at FROM games WHERE id = ?", (gid,)).fetchone()[0]
            row = self._snapshot_row(conn, gid) if self._version >= 5 else None
            if row is None or not row[5] or row[6] is None:
                return None
            try:
                window = json.loads(row[6])
                recent = [[message_from_json(note) for note in action] for action in window]
                state = State.from_snapshot(json.loads(row[1]))
            except (ValueError, KeyError, TypeError, AttributeError):
                return None
            if any(note is None for action in recent for note in action):
                return None
            game = Game.resume(state)
            game.generation = self._undos(conn, gid)
        return gid, str(updated), game, recent, row[0] - 1, row[4]  # type: ignore[return-value]  # no None left

    def stored(self, game_id: int | None = None) -> tuple[int, Game, list[tuple[str, Event]]]:
        """The game as kept (resumed from its snapshot; replayed only without one) and each stored event
        with the time it was recorded, read and checked against their chain but not replayed: what
        ``log`` and ``export`` show, for the cost of reading them (``history`` replays them)."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            events, stamps = self._events(conn, gid)
            game = self._game(conn, gid)
            if game.count != len(events):  # a snapshot out of step with the events it was read with: replay them
                game = self._replay(conn, gid, events)
        return gid, game, list(zip(stamps, events))

    def records(self, game_id: int | None = None) -> tuple[int, Game, list[tuple[str, dict[str, Any]]]]:
        """``stored`` without making the events: each as the JSON object stored (``Event.to_dict()`` when it
        was written), with its time; what ``export`` prints."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            records, stamps = self._records(conn, gid)
            game = self._game(conn, gid)
            if game.count != len(records):  # a snapshot out of step with the events: replay them
                game = self._replay(conn, gid)
        return gid, game, list(zip(stamps, records))

    def corrections(self, game_id: int | None = None) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
        """The corrections recorded for the game (undo, redo, amend), each with its time, in order."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            return gid, self._corrections(conn, gid)

    def games(self) -> list[GameSummary]:
        """Every game, most recently active first, from the summaries kept beside them."""
        self._refuse_temporary()
        if not self.exists() and not os.path.isdir(self.path):  # a directory gets the store's error, not "no games"
            return []
        if self.read_only:
            try:
                self._connect(create=False)
            except NoGame:  # an SQLite file uw-referee never wrote: no games in it
                return []
        with self._transaction(write=False) as conn:
            column = "summary" if self._version >= 2 else "NULL"
            rows = conn.execute(f"SELECT id, created_at, updated_at, {column} FROM games "
                                "ORDER BY updated_at DESC, id DESC").fetchall()
            summaries = []
            for gid, created, updated, summary in rows:
                try:
                    data = json.loads(summary) if summary else summary_of(self._game(conn, gid).state)
                    summaries.append(GameSummary(gid, tuple(data["players"]), created, updated, data["phase"],
                                                 data["turn"], data["winner"], tuple(data["scores"])))
                except (ValueError, KeyError, TypeError):
                    data = summary_of(self._game(conn, gid).state)
                    summaries.append(GameSummary(gid, tuple(data["players"]), created, updated, data["phase"],
                                                 data["turn"], data["winner"], tuple(data["scores"])))
        return summaries

    # -- writing games ----------------------------------------------------------------------------

    def _save(self, conn: sqlite3.Connection, game_id: int, game: Game, first_seq: int, new: list[Event],
              recent: list[list[Any]] | None = None) -> None:
        """Insert the new events, then the snapshot and summary of the state they give, and the window of the last
        actions in words (``recent``, else carried forward from the one kept: ``_window``)."""
        if recent is None:
            recent = self._window(conn, game_id, game, first_seq, new)
        stamp = now()
        chain = self._chain_before(conn, game_id, first_seq)
        rows = []
        for i, e in enumerate(new):
            data = _dumps(e.to_dict())
            chain.update(chain_record(first_seq + i, stamp, data))
            rows.append((game_id, first_seq + i, stamp, data, chain.digest()))
        conn.executemany("INSERT INTO events (game_id, seq, at, data, chain) VALUES (?, ?, ?, ?, ?)", rows)
        self._keep_state(conn, game_id, game.state, first_seq + len(new) - 1, chain.digest(), stamp, _dumps(recent))

    def _window(self, conn: sqlite3.Connection, game_id: int, game: Game, first_seq: int, new: list[Event]
                ) -> list[list[Any]]:
        """The last actions in words after ``new``: the window kept with the snapshot they follow, carried forward by
        the notes their ``apply`` returned (``Game.said``, set by the writer before applying them); without
        either (a game kept without words, or events applied unheard), the game's events told again."""
        from referee.engine import Created

        said, game.said = game.said, None
        applied = [e for e in new if not isinstance(e, Created)]
        if said is not None and len(said) == len(applied):
            before = [] if first_seq == 0 else self._kept_recent(conn, game_id, first_seq)
            if before is not None:
                return add_actions(before, list(zip(applied, said, strict=True)), game.state.is_over())
        events = (self._events(conn, game_id)[0][:first_seq] if first_seq else []) + list(new)
        try:
            return told_tail(events)[1]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None

    def _kept_recent(self, conn: sqlite3.Connection, game_id: int, seq: int) -> list[list[Any]] | None:
        """The window kept with the game's snapshot, if it is whole and follows exactly ``seq`` events."""
        row = self._snapshot_row(conn, game_id)
        if row is None or not row[5] or row[0] != seq or row[6] is None:
            return None
        try:
            window = json.loads(row[6])
        except ValueError:
            return None
        if not isinstance(window, list) or not all(isinstance(action, list) for action in window):
            return None
        return window

    def _keep_state(self, conn: sqlite3.Connection, game_id: int, state: State, last_seq: int, head: bytes,
                    stamp: str, recent: str | None = None) -> None:
        text = _dumps(state.to_snapshot())
        view = _dumps(state.view())
        summary = _dumps(summary_of(state))
        seq = last_seq + 1
        if self._version >= 5:
            conn.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest, recent) VALUES "
                         "(?, ?, ?, ?, ?, ?)", (game_id, seq, text, view,
                                                game_digest(seq, head, text, view, summary, recent), recent))
        else:
            conn.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest) VALUES (?, ?, ?, ?, ?)",
                         (game_id, seq, text, view, game_digest(seq, head, text, view, summary)))
        conn.execute("UPDATE games SET updated_at = ?, summary = ? WHERE id = ?", (stamp, summary, game_id))

    def create(self, setup: Setup, build: Callable[[Game], Any] | None = None) -> tuple[int, Game, Any]:
        """A new game; ``build`` may apply its first events (the roll-off) in the same transaction."""
        from referee.engine import Game

        game = Game(setup)
        game.said = []  # the words of the roll-off, for the window of last actions
        result = build(game) if build is not None else None
        with self._transaction(create=True) as conn:
            stamp = now()
            cursor = conn.execute("INSERT INTO games (created_at, updated_at) VALUES (?, ?)", (stamp, stamp))
            game_id = int(cursor.lastrowid)  # type: ignore[arg-type]  # never None after an INSERT
            self._save(conn, game_id, game, 0, game.events)
        return game_id, game, result

    def _check_seen(self, conn: sqlite3.Connection, game_id: int, game: Game, expect: Seen | None) -> None:
        """Refuse a write decided on a state the game has left (``Seen.check``), saying what happened meanwhile."""
        if expect is None:
            return
        happened = None
        if expect.moved(game):
            from referee.words import meanwhile_words

            events, _ = self._events(conn, game_id)
            records = [record for _, record in self._corrections(conn, game_id)]
            undos = [i for i, record in enumerate(records) if record.get("type") == "undo"]
            seen_undos = len(undos) if expect.undos is None else expect.undos
            if seen_undos < len(undos):  # undone meanwhile: the corrections from the first undo not seen
                since, new = records[undos[seen_undos]:], []
            else:  # the actions taken (or redone) since
                since, new = [], events[expect.events or len(events):]
            from referee.engine import event_from_dict

            happened = meanwhile_words(new, [(r, [event_from_dict(e) for e in r.get("events", [])]) for r in since])
        expect.check(game, happened)

    def act(self, game_id: int | None, action: Callable[[Game], Any], expect: Seen | None = None
            ) -> tuple[int, Game, Any]:
        """Run ``action`` on the game and commit the events it applied, all in one transaction.

        The game is resumed once, inside the write lock. A RulesError from the action rolls
        everything back: a refused action changes nothing. ``expect``: what the table saw when it
        decided the action; if the game has moved on since, it is refused (``GameChanged``).
        """
        with self._transaction() as conn:
            gid = self._resolve(conn, game_id)
            self._check_game(conn, gid)  # damage anywhere in the game stops the write
            game = self._game(conn, gid)
            self._check_seen(conn, gid, game, expect)
            before = game.count
            game.said = []  # the words of the new events, for the window of last actions (``_window``)
            result = action(game)
            if game.count > before:
                self._save(conn, gid, game, before, game.events[before - game.base:])
                if self._version >= 3:
                    conn.execute("DELETE FROM redo WHERE game_id = ?", (gid,))  # a new action: redo is gone
        return gid, game, result

    def rewrite(self, game_id: int | None,
                change: Callable[[list[Event], list[Event]], tuple[list[Event], list[Event] | None, Any]],
                correction: Callable[[Any], dict[str, Any] | None] | None = None, expect: Seen | None = None
                ) -> tuple[int, Game, list[Event], Any]:
        """Replace a game's events by ``change(events, redo)``'s, replayed, in one transaction (undo, redo, amend).

        ``change`` gets the events and the redo stack, and returns the new list of events, the new
        redo stack (None: unchanged) and a result; the new list is replayed in full (a RulesError
        rolls back). ``correction(result)`` is recorded. Returns the game, the events it had
        before, and the result. ``expect``: what the table saw (as for ``act``).
        """

        with self._transaction() as conn:
            gid = self._resolve(conn, game_id)
            self._check_game(conn, gid)
            events, _ = self._events(conn, gid)
            if expect is not None:  # the game as the snapshot keeps it (generation included): no replay
                self._check_seen(conn, gid, self._game(conn, gid), expect)
            redo = self._redo_stack(conn, gid) if self._version >= 3 else []
            new_events, new_redo, result = change(list(events), redo)
            keep = 0
            while keep < min(len(events), len(new_events)) and (events[keep] is new_events[keep]
                                                                  or events[keep] == new_events[keep]):
                keep += 1  # the same objects, mostly: identity first (comparing 5,000 events costs a replay's tenth)
            # One replay at most: events only added (redo) resume from the snapshot; events only taken
            # away (undo) replay the ones kept, which also proves them replayable; a change in the
            # middle (amend) replays the stored events (a game that cannot be replayed is never
            # rewritten), then the new list.
            # The window of last actions in words: carried forward by the events redone, else told again by the
            # one replay (words for the last actions only, ``told_tail``).
            recent: list[list[Any]] | None = None
            if keep == len(events):
                game = self._game(conn, gid)
                game.said = []
                for event in new_events[keep:]:
                    game.apply(event)
                recent = self._window(conn, gid, game, keep, new_events[keep:])
            elif keep == len(new_events):
                try:
                    game, recent = told_tail(new_events)
                except (ValueError, KeyError, TypeError) as exc:
                    raise self._unreplayable(gid, exc) from None
            else:
                self._replay(conn, gid, events)
                game, recent = told_tail(new_events)
            conn.execute("DELETE FROM events WHERE game_id = ? AND seq >= ?", (gid, keep))
            self._save(conn, gid, game, keep, new_events[keep:], recent)
            if self._version >= 3:
                if new_redo is not None:
                    self._set_redo(conn, gid, new_redo)
                record = correction(result) if correction is not None else None
                if record is not None:
                    self._record(conn, gid, record)
                game.generation = self._undos(conn, gid)
        return gid, game, events, result

    def undo(self, game_id: int | None, actions: int, expect: Seen | None = None) -> tuple[int, Game, list[Event]]:
        """Remove the last ``actions`` actions (they go on the redo stack); returns the game and the events removed."""
        from referee.engine import undo_point

        def cut(events: list[Event], redo: list[Event]) -> tuple[list[Event], list[Event], list[Event]]:
            keep = undo_point(events, actions)
            return events[:keep], events[keep:] + redo, events[keep:]

        def record(removed: list[Event]) -> dict[str, Any]:
            return {"type": "undo", "actions": actions, "events": [e.to_dict() for e in removed]}

        gid, game, _, removed = self.rewrite(game_id, cut, record, expect)
        return gid, game, removed

    def redo(self, game_id: int | None, actions: int, expect: Seen | None = None) -> tuple[int, Game, list[Event]]:
        """Put back the last ``actions`` undone actions, in order; returns the game and the events put back."""
        from referee.engine import NothingToUndo, action_starts

        def put_back(events: list[Event], redo: list[Event]) -> tuple[list[Event], list[Event], list[Event]]:
            starts = action_starts([events[0], *redo])  # index 0 stands for the creation
            if actions < 1 or actions > len(starts):
                raise NothingToUndo(msg("there is nothing to redo") if not starts else
                                    nmsg("only {n} undone action can be redone, not {actions}",
                                         "only {n} undone actions can be redone, not {actions}", len(starts),
                                         actions=actions))
            end = starts[actions] - 1 if actions < len(starts) else len(redo)
            return events + redo[:end], redo[end:], redo[:end]

        def record(back: list[Event]) -> dict[str, Any]:
            return {"type": "redo", "actions": actions, "events": [e.to_dict() for e in back]}

        gid, game, _, back = self.rewrite(game_id, put_back, record, expect)
        return gid, game, back


__all__ = ["Store", "StoreError", "NoGame", "GameSummary", "KEPT_ACTIONS", "default_db_path"]
