"""The persistence contract of the referee's games, over SQLite: one database, many games, one transaction per action.

The store persists and verifies; it knows no rule. It loads a game, lets the engine check and apply the new
events, and commits them all or nothing. What it keeps (``referee.store_format``): each game's events, each
carrying a digest that covers every event up to it (the chain; linked from schema 7, so a write checks and carries
it on from its last link); a snapshot of the game's state tied to the chain by a digest, so a command resumes a game
instead of replaying it; a summary per game for listing; the words of the game's last few actions, so a reader such
as the board says them without a replay; the corrections the table made (``Correction``s, typed by the engine) and
the redo stack. Every read gives the game's version (its event count and chain digest: ``Game.version``). The
contract callers use: ``create``, ``act`` and ``rewrite`` (with ``expect=``, a ``Seen``: the turn guard refuses a
write decided on another version of the game; and ``seat=``: a phone's seat, its rights checked and its own-undo
right kept in the same transaction), and the readers ``view``, ``checked_view``, ``seat_look``, ``setup``,
``phase``, ``history``, ``stored``, ``records``, ``corrections``, ``games``, ``tail`` and ``resumed``; ``verify``
names all damage; ``purge`` deletes the games a caller's choice (``referee.retention``) picks, in one transaction.
Undo and redo are the library's (``Referee.undo``, the engine's ``undo_events``), written through ``rewrite``; a
game's generation is the engine's ``generation_of`` the kinds of its corrections.

File safety is ``referee.store_file`` (the file is ours, opened without harm, SQLite's errors in words, the
stamp of the last verification) and the schema and its migrations ``referee.store_schema``: SQLite's alone.

The dialect seam, for a second backend (PostgreSQL through psycopg 3) implementing the same contract: the
methods under "connection" (``_connect``, ``_transaction``, ``close``, ``exists``), ``_new_game``, and the statements
that differ between backends, which the store names (``_sql``) and each backend writes in its own text
(``referee.store_sql``). Every other statement is plain SQL with ``?`` placeholders (psycopg wants ``%s``: the
second backend's connection turns them) over the tables ``store_schema`` creates; the bytes written and the digests
over them are ``store_format``'s, the same for both. ``self._version`` is the schema version: a new backend starts
at ``SCHEMA_VERSION`` and never runs SQLite's migrations.

Why this module is over 500 lines: the contract's readers and writers share the chain, snapshot and window
helpers, and each reader is a dozen lines; the write's guard (the version seen, the seat's rights, what happened
meanwhile) runs inside the same transaction on the same helpers. Split further, each part would reach into the
others' private helpers.
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager

from dictionaries.i18n import Message, message_from_json, message_of, msg
from referee.commits import Written
from referee.paths import default_db_path
from referee.store_file import BUSY_TIMEOUT_S, STAMP_SUFFIX, SQLiteFile
from referee.store_format import (
    KEPT_ACTIONS,
    Damaged,
    GameSummary,
    Linked,
    NoGame,
    SeatKey,
    SeatRefused,
    StoreError,
    add_actions,
    chain_record,
    chain_start,
    dumps,
    game_digest,
    no_games_yet,
    now,
    snapshot_digest,
    summary_of,
    told_tail,
    version_count,
    version_of,
)
from referee.store_schema import SCHEMA_VERSION, rollback
from referee.store_sql import SQLITE

TYPE_CHECKING = False  # typing and the engine are loaded only when a command needs them
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from referee.events import Correction, Event, Setup
    from referee.rules import Game, Seen
    from referee.state import State

#: The schema from which a game's chain is linked (``store_format.Linked``: each event's digest covers the one before
#: it, so that a write checks and extends the chain from its last link); schemas 4 to 6 kept one running digest.
LINKED_SCHEMA = 7


class Store:
    """A referee database at ``path``; created on first write, never overwritten if foreign or damaged.

    ``read_only=True`` opens an existing file without ever writing it (read-only media, the board).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = BUSY_TIMEOUT_S,
                 read_only: bool = False) -> None:
        self.path = os.fspath(path) if path is not None else default_db_path()
        self.timeout = timeout
        self.read_only = read_only
        self.file = SQLiteFile(self.path, timeout, read_only)  # file safety: opening, errors in words, the stamp
        self._conn: sqlite3.Connection | None = None
        self._version = SCHEMA_VERSION
        self._verified = False  # the whole file was checked (or known unchanged) on this connection
        self._resumed: tuple[int, int, Any] | None = None  # (game, events, running digest) checked before a write

    #: This backend's text of each statement that differs between backends (``referee.store_sql``).
    _statements: dict[str, str] = SQLITE

    def _sql(self, name: str) -> str:
        """This backend's statement ``name`` (``referee.store_sql``)."""
        return self._statements[name]

    # -- connection (the dialect seam: SQLite) ----------------------------------------------------

    def exists(self) -> bool:
        return self.file.exists()

    def _connect(self, create: bool) -> sqlite3.Connection:
        if self._conn is None:
            self._conn, self._version = self.file.connect(create, self._verify_before_migration)
        return self._conn

    def _verify_before_migration(self, conn: sqlite3.Connection, version: int) -> None:
        """A file written by an older version is verified at its own version before it is migrated."""
        self._version = version
        self._verify(conn)

    # -- verification -----------------------------------------------------------------------------

    def _verify(self, conn: sqlite3.Connection) -> None:
        """Before the first write: make sure the file is whole, without reading it all every time.

        When the file is exactly as the last uw-referee write left it (the stamp beside it matches
        its size, time and identity), it was verified then. Otherwise (first use, another program
        wrote it, a crash between commit and stamp) the whole file is checked once: SQLite's
        quick_check, then every game's events are read and replayed and its snapshot compared.
        """
        if self._verified:
            return
        if self.file.stamp_matches():
            self._verified = True
            return
        try:
            conn.execute("BEGIN")  # one consistent view while other processes may be writing
            try:
                self._check_whole(conn)
            finally:
                rollback(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(self.file.explain(exc)) from None
        except Damaged as exc:
            raise Damaged(msg("{problem}. No command will write to this file", problem=message_of(exc))) from None
        self._verified = True

    def _check_whole(self, conn: sqlite3.Connection) -> None:
        """SQLite's quick_check, then every game replayed and compared with its kept state."""
        self.file.check_pages(conn)
        version = self._version
        for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall():
            if version >= 4:
                problems = self._game_problems(conn, gid)
                if problems:
                    raise self._damaged(gid, problems[0])
                continue
            game = self._replay(conn, gid)
            if version >= 2 and self._snapshot(conn, gid) not in (None, json.loads(dumps(game.state.to_snapshot()))):
                raise Damaged(msg("game {game} in {path} is damaged (its saved state does not match its events); "
                                     "the file was left untouched. Stop any board serving it, then restore a backup, or "
                                     "export the other games and "
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
        replayed = json.loads(dumps([game.state.to_snapshot(), game.state.view(), summary_of(game.state), window]))
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
                problems.extend(self.file.integrity_problems(conn))
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
                rollback(conn)
        except sqlite3.DatabaseError as exc:
            self._check_unchanged()
            problems.append(self.file.explain(exc))
            return 0, 0, problems
        self._check_unchanged()
        return len(ids), events, problems

    def checked_view(self, game_id: int | None = None) -> tuple[int, dict[str, Any], Message | None]:
        """``status``: what ``view`` gives with the game's ``version``, and what is damaged in the game if anything
        (its chain of events, its snapshot or summary), so the scoreboard is shown and the damage said after it."""
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
                    problem = self._damage(gid, found, reading=True)
            kept = self._kept(conn, gid, "view")
            if kept and "waiting" in kept[1]:
                view = kept[1]
            else:  # replays, which a damaged chain stops
                view = self._game(conn, gid).state.view()
            view = {**view, "version": self._version_now(conn, gid)}  # what a write from this reader sends
        return gid, view, problem

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
            raise StoreError(self.file.explain(exc)) from None
        # A row ``act`` keeps, and the chain ``_check_game`` keeps, are read in this transaction, never before it:
        # ``_verify``'s whole check reads in a view of its own, which another process's commit may have passed while
        # this one waited for the lock (as PostgreSQL's ``_transaction`` forgets them too).
        self._row_kept = self._resumed = None
        try:
            yield conn
            self._check_unchanged()
        except sqlite3.DatabaseError as exc:
            # Damage SQLite only finds when it reads a page (a corrupt table or index) surfaces here.
            rollback(conn)
            self._check_unchanged()
            raise StoreError(self.file.explain(exc)) from None
        except BaseException:
            rollback(conn)
            raise
        else:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                rollback(conn)
                raise StoreError(self.file.explain(exc)) from None
            if write:
                self.close()
                self.file.write_stamp()

    def _check_unchanged(self) -> None:
        """A file read as it is (``SQLiteFile.open``) must not have been written meanwhile: else what was read may be
        torn."""
        if self.file.changed_while_read():
            self.close()
            raise StoreError(msg("{path} was written by another program while it was read: nothing was changed; try "
                                 "again", path=self.path))

    # -- reading games ----------------------------------------------------------------------------

    def _resolve(self, conn: sqlite3.Connection, game_id: int | None) -> int:
        if game_id is None:
            row = conn.execute(self._sql("latest_game")).fetchone()
            if row is None:
                raise no_games_yet(self.path, self.named())
            return int(row[0])
        # a number past SQLite's integers (a page's address can hold any) names no game rather than overflowing
        row = conn.execute(self._sql("one_game"), (game_id,)).fetchone() if 0 < game_id < 2**63 else None
        if row is None:
            raise NoGame(msg("there is no game {game} in {path}; {command} lists them", game=game_id,
                             path=self.path, command=self.command("games")))
        return game_id

    def _events(self, conn: sqlite3.Connection, game_id: int, check: bool = True) -> tuple[list[Event], list[str]]:
        """The game's events and their times; ``check=False`` skips the chain (``verify`` reports it itself)."""
        from referee.events import event_from_dict

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
        return Damaged(msg("game {game} in {path} cannot be replayed ({why}); it was left untouched", game=game_id,
                              path=self.path, why=message_of(exc)))

    def _replay(self, conn: sqlite3.Connection, game_id: int, events: list[Event] | None = None) -> Game:
        from referee.rules import Game

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
            row = conn.execute("SELECT seq, state, view, digest FROM snapshots WHERE game_id = ?",
                               (game_id,)).fetchone()
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
        kept = self._row_kept
        if kept is not None and kept[0] == game_id:
            return kept[1]
        found = self._snapshot_row_read(conn, game_id)
        if self._keeping_rows:
            self._row_kept = (game_id, found)
        return found

    #: Within one ``act``: the game's snapshot row as read once (its check, its resumption and its window of words
    #: read it; ``_keep_state`` forgets it).
    _keeping_rows = False
    _uncorrected: int | None = None  # the game whose snapshot row was read last, when it had no corrections then
    _row_kept: tuple[int, tuple[int, str, str, str | None, bytes, bool, str | None] | None] | None = None

    def _snapshot_row_read(self, conn: sqlite3.Connection, game_id: int
                           ) -> tuple[int, str, str, str | None, bytes, bool, str | None] | None:
        column = "s.recent" if self._version >= 5 else "NULL"
        newest = "FROM events e WHERE e.game_id = s.game_id ORDER BY e.seq DESC LIMIT 1"  # the game's last event
        self._uncorrected = None
        row = conn.execute(f"SELECT s.seq, s.state, s.view, s.digest, g.summary, {column}, (SELECT e.seq {newest}), "
                           f"(SELECT e.chain {newest}), (SELECT count(*) FROM corrections c WHERE c.game_id = s.game_id) "
                           "FROM snapshots s JOIN games g ON g.id = s.game_id WHERE s.game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        seq, state, view, digest, summary, recent, last_seq, last_chain, corrections = row
        if not corrections:  # its generation is 0 (``_game`` reads no corrections)
            self._uncorrected = game_id
        last = None if last_seq is None else (last_seq, last_chain)
        head = last[1] if last is not None and isinstance(last[1], bytes) else b""
        good = (last is not None and last[0] + 1 == seq and isinstance(state, str) and isinstance(view, str)
                and (recent is None or isinstance(recent, str))
                and game_digest(seq, head, state, view, summary, recent) == digest)
        return seq, state, view, summary, head, good, recent

    # -- the chain of events ----------------------------------------------------------------------

    def _linked(self) -> bool:
        """Whether this database's chains are linked (``LINKED_SCHEMA``), else one running digest."""
        return self._version >= LINKED_SCHEMA

    def _chain_begin(self, game_id: int) -> Any:
        """The chain of a game before its first event, as this database's schema builds it."""
        start = chain_start(game_id)
        return Linked(start.digest()) if self._linked() else start

    def _chain(self, conn: sqlite3.Connection, game_id: int, end: int | None = None) -> tuple[Any, int]:
        """The chain of the game's events before seq ``end`` (all when None) and their count, checked against the
        digest each carries: the whole history, read and hashed (no replay). Damage raises ``StoreError`` naming
        the game and the event. (A write checks only from its snapshot on: ``_check_game``.)"""
        if self._linked():
            chain, count, problem = self._walk(conn, game_id, 0, end)
            if problem is not None:
                raise self._damaged(game_id, problem)
            return chain, count
        blob, count, last = conn.execute(self._sql("chain_aggregate"),
                                         (game_id, 2**62 if end is None else end)).fetchone()
        chain = chain_start(game_id)
        if count == 0:
            return chain, 0
        chain.update(blob if isinstance(blob, bytes) else b"")
        row = conn.execute("SELECT chain FROM events WHERE game_id = ? AND seq = ?", (game_id, last)).fetchone()
        if last + 1 != count or row is None or row[0] != chain.digest():
            raise self._damaged(game_id, self._chain_problem(conn, game_id) or msg("its events were changed"))
        return chain, count

    def _walk(self, conn: sqlite3.Connection, game_id: int, start: int, end: int | None,
              chain: Any = None, linked: bool = False) -> tuple[Any, int, Message | None]:
        """The chain over the game's events from seq ``start`` (after ``chain``, the chain before it; from the
        beginning when None) to ``end``, event by event: the chain, the count of events up to the last one read,
        and what is wrong (None: each event's digest matches). ``linked``: the event at ``start`` is only the link
        the walk starts from (the digest it carries; linked chains), read in the same statement."""
        chain = self._chain_begin(game_id) if chain is None else chain
        rows = conn.execute(self._sql("chain_rows"), (game_id, start, 2**62 if end is None else end)).fetchall()
        if linked:
            if not rows or rows[0][0] != start or not isinstance(rows[0][3], bytes):
                return chain, start, msg("its events were changed")
            chain, rows, start = Linked(rows[0][3]), rows[1:], start + 1
        for i, (seq, at, data, digest) in enumerate(rows, start):
            if seq != i:
                return chain, i, msg("event {event} is missing", event=i)
            if not isinstance(at, bytes) or not isinstance(data, bytes):
                return chain, i, msg("event {event} was changed after it was written (its digest no longer matches)",
                                     event=i)
            chain.update(chain_record(seq, at, data))
            if digest != chain.digest():
                return chain, i, msg("event {event} was changed after it was written (its digest no longer matches)",
                                     event=i)
        return chain, start + len(rows), None

    def _chain_problem(self, conn: sqlite3.Connection, game_id: int) -> Message | None:
        """What is wrong with the game's chain, event by event (only run once damage is known or looked for)."""
        return self._walk(conn, game_id, 0, None)[2]

    def _damaged(self, game_id: int, problem: Message) -> StoreError:
        return Damaged(self._damage(game_id, problem))

    def _damage(self, game_id: int, problem: Message, reading: bool = False) -> Message:
        """The game's damage in words, with the commands to export and verify this database (``reading``: as
        ``status`` finds it, which writes nothing anyway)."""
        commands = {"game": game_id, "path": self.path, "problem": problem, "export": self.command("export"),
                    "verify": self.command("verify")}
        if reading:
            return msg("game {game} in {path} is damaged: {problem}. Stop any board serving the file, then restore "
                       "it from a backup, or start again from an earlier {export}; {verify} lists all the damage",
                       **commands)
        return msg("game {game} in {path} is damaged: {problem}. Nothing was written. Stop any board serving the "
                   "file, then restore it from a backup, or start again from an earlier {export}; {verify} lists all "
                   "the damage", **commands)

    def named(self) -> str:
        """The database as ``--db`` names it (a PostgreSQL store's address, password and all: ``suggested`` drops
        it)."""
        return str(getattr(self, "url", self.path))

    def command(self, args: str, game_id: int | None = None) -> str:
        """A command the referee suggests, in its quotes, naming this database unless it is the default one."""
        from referee.paths import suggested_quoted

        return suggested_quoted(args, self.named(), game_id)

    def _check_game(self, conn: sqlite3.Connection, game_id: int) -> None:
        """Before a write to the game (schema 4): its chain of events whole, its snapshot and summary matching
        them. Keeps the chain for ``_save``.

        With linked chains (``LINKED_SCHEMA``) at a cost that does not grow with the game: the snapshot's digest
        covers the digest of the event it follows; the chain is checked from the event before that one forward
        (the last link, and any event after it). Damage further back is ``verify``'s and ``status``'s to find; a
        game without a matching snapshot is checked whole."""
        self._resumed = None
        row = self._snapshot_row(conn, game_id)
        if self._linked() and row is not None and row[5] and row[0] >= 1:
            seq = row[0]  # the events the snapshot follows
            if seq >= 2:  # from the link before the last event (the digest it carries), read with the rest
                chain, count, problem = self._walk(conn, game_id, seq - 2, None, linked=True)
            else:
                chain, count, problem = self._walk(conn, game_id, seq - 1, None, Linked(chain_start(game_id).digest()))
            if problem is not None or count != seq:
                raise self._damaged(game_id, self._chain_problem(conn, game_id) or msg("its events were changed"))
            self._resumed = (game_id, count, chain)
            return
        chain, count = self._chain(conn, game_id)
        if row is not None and not row[5]:
            raise self._damaged(game_id, msg("its saved state or summary was changed after it was written"))
        self._resumed = (game_id, count, chain)

    def _chain_before(self, conn: sqlite3.Connection, game_id: int, first_seq: int) -> Any:
        """The chain before ``first_seq``: the one ``_check_game`` kept; else, linked, the digest of the event before
        it (the writes that get here, ``rewrite``'s, read and checked the whole chain in their transaction), or
        the running digest read and checked again."""
        kept = self._resumed
        self._resumed = None
        if kept is not None and kept[:2] == (game_id, first_seq):
            return kept[2]
        if self._linked():
            if first_seq == 0:
                return self._chain_begin(game_id)
            row = conn.execute("SELECT chain FROM events WHERE game_id = ? AND seq = ?",
                               (game_id, first_seq - 1)).fetchone()
            if row is not None and isinstance(row[0], bytes):
                return Linked(row[0])
        return self._chain(conn, game_id, first_seq)[0]

    def _game(self, conn: sqlite3.Connection, game_id: int) -> Game:
        """The game, resumed from its snapshot when it matches, else replayed from its events."""
        from referee.rules import Game
        from referee.state import State

        row = self._snapshot_row(conn, game_id) if self._version >= 4 else None
        data = self._snapshot(conn, game_id) if row is None else self._kept_state(row)
        game = None
        if data is not None:
            try:
                game = Game.resume(State.from_snapshot(data))
            except (ValueError, KeyError, TypeError):
                pass  # a snapshot this version cannot read: replay
        if game is None:
            game = self._replay(conn, game_id)
            game.version = self._version_now(conn, game_id)
        else:
            game.version = version_of(game_id, game.count, row[4]) if row is not None else \
                self._version_now(conn, game_id)
            game.recent = self._recent_of(row) if row is not None else None
        game.generation = 0 if row is not None and self._uncorrected == game_id else self._generation(conn, game_id)
        return game

    @staticmethod
    def _kept_state(row: tuple[int, str, str, str | None, bytes, bool, str | None]) -> dict[str, Any] | None:
        """The state a snapshot row keeps, when its digest matches (``_snapshot_row``)."""
        if not row[5]:
            return None
        try:
            data = json.loads(row[1])
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    @staticmethod
    def _recent_of(row: tuple[int, str, str, str | None, bytes, bool, str | None]) -> list[list[Any]] | None:
        """The words of the last actions a whole snapshot row keeps (each action a list of notes as JSON)."""
        if not row[5] or row[6] is None:
            return None
        try:
            window = json.loads(row[6])
        except ValueError:
            return None
        return window if isinstance(window, list) and all(isinstance(a, list) for a in window) else None

    def _seat_name(self, conn: sqlite3.Connection, game_id: int, seat: str | SeatKey | None) -> str | None:
        """The player's name of the seat that acts: given, or found by its token in this transaction (``SeatKey``;
        ``SeatRefused`` when it opens no seat of the game, or a cookie's request lacks its CSRF token)."""
        if not isinstance(seat, SeatKey):
            return seat
        import hmac

        row = conn.execute("SELECT game_id, name, csrf_sha256 FROM seats WHERE token_sha256 = ?",
                           (seat.token_sha256,)).fetchone() if self._version >= 6 else None
        if row is None or int(row[0]) != game_id:
            raise SeatRefused("bad-token")
        if seat.csrf_sha256 is not None and not hmac.compare_digest(seat.csrf_sha256, str(row[2])):
            raise SeatRefused("csrf")
        seat.name = str(row[1])
        return seat.name

    def seat_look(self, game_id: int, seat: SeatKey) -> tuple[Game, bool]:
        """What a phone reads, in one transaction: the game (with its version and the words of its last actions)
        as ``seat`` sees it, and whether that seat may undo the last action on its own (``SeatRefused`` when the
        seat is not the game's; ``seat.name`` is set)."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            name = self._seat_name(conn, gid, seat)
            game = self._game(conn, gid)
            own = False
            if name is not None and self._version >= 6:
                row = conn.execute("SELECT events, seat FROM phone_actions WHERE game_id = ?", (gid,)).fetchone()
                player = next((p for p in game.state.players if p.name.casefold() == name.casefold()), None)
                own = (row is not None and int(row[0]) == game.count and str(row[1]).casefold() == name.casefold()
                       and player is not None and not player.out and not player.left)
        return game, own

    def _version_now(self, conn: sqlite3.Connection, game_id: int) -> str:
        """The game's version (``version_of``): its event count and the chain digest of its last event (none in a
        file before schema 4, read as it is)."""
        column = "chain" if self._version >= 4 else "NULL"
        row = conn.execute(f"SELECT seq, {column} FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                           (game_id,)).fetchone()
        if row is None:
            return version_of(game_id, 0, None)
        return version_of(game_id, int(row[0]) + 1, row[1] if isinstance(row[1], bytes) else None)

    def _generation(self, conn: sqlite3.Connection, game_id: int) -> int:
        """The game's generation (``generation_of`` the kinds of its corrections: virtual rolls after an undo are new
        rolls), without making the events they carry. A record this version cannot read counts for nothing."""
        from referee.events import Correction, generation_of

        if self._version < 3:
            return 0
        kinds = []
        for (data,) in conn.execute("SELECT data FROM corrections WHERE game_id = ? ORDER BY n", (game_id,)):
            try:
                kinds.append(Correction.kind_of(json.loads(data)))
            except (ValueError, AttributeError):
                continue
        return generation_of(kinds)

    def _corrections(self, conn: sqlite3.Connection, game_id: int, internal: bool = False
                     ) -> list[tuple[str, dict[str, Any]]]:
        """The game's corrections as recorded, each with its time; without the versions and the maker each keeps
        (``on``, ``made``, ``by``: the turn guard's, not the table's record) unless ``internal``."""
        if self._version < 3:
            return []
        rows = conn.execute("SELECT at, data FROM corrections WHERE game_id = ? ORDER BY n", (game_id,)).fetchall()
        found = [(at, json.loads(data)) for at, data in rows]
        if not internal:
            for _at, record in found:
                for key in ("on", "made", "by"):
                    record.pop(key, None)
        return found

    def _typed_corrections(self, conn: sqlite3.Connection, game_id: int) -> list[Correction]:
        """The game's corrections as the engine's values, each with who made it (``Correction.by``)."""
        from referee.events import Correction

        return [Correction.from_dict(record) for _, record in self._corrections(conn, game_id, internal=True)]

    def _record(self, conn: sqlite3.Connection, game_id: int, correction: Correction, on: str | None = None,
                made: str | None = None, by: str = "") -> None:
        """Record a correction (undo, redo, amend) with the time, the game's versions before and after it, and who
        made it (``by``: a seat's player, '' the host or the terminal): what a refusal says happened since a
        version (``_meanwhile``)."""
        self._uncorrected = None
        row = conn.execute("SELECT coalesce(max(n), -1) + 1 FROM corrections WHERE game_id = ?", (game_id,)).fetchone()
        data = correction.to_dict()
        if on is not None and made is not None:
            data.update(on=on, made=made, by=by)
        conn.execute("INSERT INTO corrections (game_id, n, at, data) VALUES (?, ?, ?, ?)",
                     (game_id, row[0], now(), dumps(data)))

    def _redo_stack(self, conn: sqlite3.Connection, game_id: int) -> list[Event]:
        from referee.events import event_from_dict

        rows = conn.execute("SELECT data FROM redo WHERE game_id = ? ORDER BY pos", (game_id,)).fetchall()
        try:
            return [event_from_dict(json.loads(data)) for (data,) in rows]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None

    def _set_redo(self, conn: sqlite3.Connection, game_id: int, events: list[Event]) -> None:
        conn.execute("DELETE FROM redo WHERE game_id = ?", (game_id,))
        conn.executemany("INSERT INTO redo (game_id, pos, data) VALUES (?, ?, ?)",
                         [(game_id, i, dumps(e.to_dict())) for i, e in enumerate(events)])

    def load(self, game_id: int | None = None) -> tuple[int, Game]:
        """The game (the most recently active one when ``game_id`` is None), without its past events."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            game = self._game(conn, gid)
        return gid, game

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
        from referee.events import Created, event_from_dict

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

    def history(self, game_id: int | None = None) -> tuple[int, Game, list[tuple[str, Event]]]:
        """The game, replayed, and each event with the time it was recorded."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            events, stamps = self._events(conn, gid)
            game = self._replay(conn, gid, events)
        return gid, game, list(zip(stamps, game.events, strict=True))

    def tail(self, game_id: int | None, start: int, same: int | None = None
             ) -> tuple[int, str, list[tuple[int, str, Event, bytes | None]]]:
        """The game (the most recently active one when ``game_id`` is None), when it last changed, and its events
        from seq ``start`` on, each with its seq, time and running digest (None before schema 4), without a replay.

        For a reader that keeps its own copy of a game (the board) and carries it forward by the new events only:
        asking from one before the first new event tells whether its copy is still the game's beginning (the
        digest covers every event up to it, so an undo or an amend changes it). ``same``: the game the reader
        keeps; when the game found is another (a new current game), no event is read (the reader starts again)."""
        from referee.events import event_from_dict

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
        from referee.rules import Game
        from referee.state import State

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
            game.generation = self._generation(conn, gid)
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
        return gid, game, list(zip(stamps, events, strict=True))

    def records(self, game_id: int | None = None) -> tuple[int, Game, list[tuple[str, dict[str, Any]]]]:
        """``stored`` without making the events: each as the JSON object stored (``Event.to_dict()`` when it
        was written), with its time; what ``export`` prints."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            records, stamps = self._records(conn, gid)
            game = self._game(conn, gid)
            if game.count != len(records):  # a snapshot out of step with the events: replay them
                game = self._replay(conn, gid)
        return gid, game, list(zip(stamps, records, strict=True))

    def corrections(self, game_id: int | None = None) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
        """The corrections recorded for the game (undo, redo, amend), each with its time, in order."""
        with self._transaction(write=False) as conn:
            gid = self._resolve(conn, game_id)
            return gid, self._corrections(conn, gid)

    def games(self) -> list[GameSummary]:
        """Every game, most recently active first, from the summaries kept beside them."""
        self.file.refuse_temporary()
        if not self.exists() and not os.path.isdir(self.path):  # a directory gets the store's error, not "no games"
            return []
        if self.read_only:
            try:
                self._connect(create=False)
            except NoGame:  # an SQLite file uw-referee never wrote: no games in it
                return []
        with self._transaction(write=False) as conn:
            return self._summaries(conn)

    def _summaries(self, conn: sqlite3.Connection, purge: bool = False) -> list[GameSummary]:
        """Every game's summary, most recently active first; for ``purge``, in their ids' order (with PostgreSQL,
        their rows locked: ``store_sql``)."""
        column = "summary" if self._version >= 2 else "NULL"
        sql = self._sql("purge_summaries") if purge else \
            f"SELECT id, created_at, updated_at, {column} FROM games ORDER BY updated_at DESC, id DESC"
        rows = conn.execute(sql).fetchall()
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

    def purge(self, choose: Callable[[list[GameSummary]], list[int]]) -> list[int]:
        """Delete the games ``choose`` picks from every game's summary (``referee.retention``: the finished games
        past their keep time), all their rows, in one write transaction: the summaries are read under the write's
        lock (PostgreSQL: the games' rows locked), so a game written meanwhile is judged as it is now. Each game
        picked is checked as a write checks it (its chain whole, its snapshot and summary matching their digest) and
        deleted only when that verified game is over: a damaged one refuses the whole purge (``Damaged``: nothing
        deleted, the evidence kept for ``verify``), as damage refuses every write. Returns the ids deleted, in
        order."""
        if not self.exists():
            return []
        with self._transaction() as conn:
            found = self._summaries(conn, purge=True)
            ids = [gid for gid in sorted(set(choose(found)) & {s.id for s in found}) if self._over(conn, gid)]
            for table in ("events", "snapshots", "corrections", "redo"):  # a write migrated the file: all there
                conn.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(gid,) for gid in ids])
            conn.executemany("DELETE FROM games WHERE id = ?", [(gid,) for gid in ids])
            self._purged(conn, ids)
        return ids

    def _over(self, conn: sqlite3.Connection, game_id: int) -> bool:
        """Whether the game is over, judged from its verified state (``_check_game``: damage raises), not from its
        summary alone."""
        self._check_game(conn, game_id)
        self._resumed = None
        return self._game(conn, game_id).state.is_over()

    def _purged(self, conn: sqlite3.Connection, ids: list[int]) -> None:
        """dialect: tell the readers which games ``purge`` deleted (SQLite's readers see the file change)."""

    # -- writing games ----------------------------------------------------------------------------

    def _save(self, conn: sqlite3.Connection, game_id: int, game: Game, first_seq: int, new: list[Event],
              recent: list[list[Any]] | None = None) -> None:
        """Insert the new events, then the snapshot and summary of the state they give, and the window of the last
        actions in words (``recent``, else carried forward from the one kept: ``_window``)."""
        from referee.events import Created

        said = game.said  # (``_window`` takes them)
        if recent is None:
            recent = self._window(conn, game_id, game, first_seq, new)
        stamp = now()
        chain = self._chain_before(conn, game_id, first_seq)
        rows = []
        for i, e in enumerate(new):
            data = dumps(e.to_dict())
            chain.update(chain_record(first_seq + i, stamp, data))
            rows.append((game_id, first_seq + i, stamp, data, chain.digest()))
        conn.executemany("INSERT INTO events (game_id, seq, at, data, chain) VALUES (?, ?, ?, ?, ?)", rows)
        self._keep_state(conn, game_id, game.state, first_seq + len(new) - 1, chain.digest(), stamp, dumps(recent))
        game.version = version_of(game_id, first_seq + len(new), chain.digest())
        game.recent = recent
        applied = [e for e in new if not isinstance(e, Created)]
        heard = list(zip(applied, said, strict=True)) if said is not None and len(said) == len(applied) else None
        self._wrote(Written(game_id, game, stamp, chain.digest(), heard))

    def _wrote(self, written: Written) -> None:
        """dialect: a game this transaction wrote (PostgreSQL tells this process's boards after the commit:
        ``referee.commits``)."""

    def _window(self, conn: sqlite3.Connection, game_id: int, game: Game, first_seq: int, new: list[Event]
                ) -> list[list[Any]]:
        """The last actions in words after ``new``: the window kept with the snapshot they follow, carried forward by
        the notes their ``apply`` returned (``Game.said``, set by the writer before applying them); without
        either (a game kept without words, or events applied unheard), the game's events told again."""
        from referee.events import Created

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
        self._row_kept = None
        text = dumps(state.to_snapshot())
        view = dumps(state.view())
        summary = dumps(summary_of(state))
        seq = last_seq + 1
        if self._version >= 5:
            conn.execute(self._sql("snapshot_upsert"), (game_id, seq, text, view,
                                                        game_digest(seq, head, text, view, summary, recent), recent))
        else:
            conn.execute(self._sql("snapshot_upsert_4"),
                         (game_id, seq, text, view, game_digest(seq, head, text, view, summary)))
        conn.execute("UPDATE games SET updated_at = ?, summary = ? WHERE id = ?", (stamp, summary, game_id))

    def create(self, setup: Setup, build: Callable[[Game], Any] | None = None) -> tuple[int, Game, Any]:
        """A new game; ``build`` may apply its first events (the roll-off) in the same transaction."""
        from referee.rules import Game

        game = Game(setup)
        game.said = []  # the words of the roll-off, for the window of last actions
        result = build(game) if build is not None else None
        with self._transaction(create=True) as conn:
            stamp = now()
            game_id = self._new_game(conn, stamp)
            self._save(conn, game_id, game, 0, game.events)
        return game_id, game, result

    def _new_game(self, conn: sqlite3.Connection, stamp: str) -> int:
        """The new game's row, and its id (SQLite's rowid; PostgreSQL's ``RETURNING id``)."""
        cursor = conn.execute(self._sql("new_game"), (stamp, stamp))
        return int(cursor.lastrowid)  # type: ignore[arg-type]  # never None after an INSERT

    def _check_seen(self, conn: sqlite3.Connection, game_id: int, game: Game, expect: Seen | None,
                    seat: str | None = None, own: bool = False) -> None:
        """Refuse a write decided on a state the game has left (``Seen.check``), with what happened meanwhile
        (read only when it moved: ``_meanwhile``). ``seat``: a player's seat makes the write (a phone); with
        ``own`` it undoes its own last action, which it may only while that action made the game's version
        (``phone_actions``, which every other write ends) and its player is still in the game (``NotYours``)."""
        if seat is not None and own:
            self._check_own(conn, game_id, game, seat)
        if expect is None:
            return
        meanwhile = None
        if expect.moved(game):
            if expect.version is not None and expect.version != game.version:
                meanwhile = self._meanwhile(conn, game_id, expect.version)
            else:
                meanwhile = expect.unseen(self._events(conn, game_id)[0], self._typed_corrections(conn, game_id))
        expect.check(game, meanwhile)

    def _check_own(self, conn: sqlite3.Connection, game_id: int, game: Game, seat: str) -> None:
        """A seat's own undo: its action must have made the game as it is, and its player still be in the game."""
        from referee.events import NotYours

        row = conn.execute("SELECT events, seat FROM phone_actions WHERE game_id = ?", (game_id,)).fetchone() \
            if self._version >= 6 else None
        player = next((p for p in game.state.players if p.name.casefold() == seat.casefold()), None)
        if player is not None and player.out:  # (its own last action may be what put it out: that is the host's now)
            raise NotYours(msg("{seat} is out of the game and can no longer undo; ask the host for any undo",
                               seat=player.name), seat)
        if (row is None or int(row[0]) != game.count or str(row[1]).casefold() != seat.casefold() or player is None
                or player.left):
            raise NotYours(msg("{seat} can only undo their own last action, until the next player acts; ask the "
                               "host for any other undo", seat=seat), seat)

    def _seat_wrote(self, conn: sqlite3.Connection, game_id: int, game: Game, seat: str | None) -> None:
        """After a write, in its transaction: the phone's own-undo right. A seat's action gets it (for the version
        it made); any other write (the terminal's, the host's, an undo) ends whichever seat had it. The corrections
        seats asked the host for were asked on the game as it was: they go too."""
        if self._version < 6:
            return
        if seat is None:
            conn.execute("DELETE FROM phone_actions WHERE game_id = ?", (game_id,))
        else:
            conn.execute("INSERT INTO phone_actions (game_id, events, seat) VALUES (?, ?, ?) ON CONFLICT (game_id) "
                         "DO UPDATE SET events = excluded.events, seat = excluded.seat", (game_id, game.count, seat))
        conn.execute("DELETE FROM seat_requests WHERE game_id = ?", (game_id,))

    def _meanwhile(self, conn: sqlite3.Connection, game_id: int, seen: str
                   ) -> tuple[list[Event], list[Correction]]:
        """What happened to the game since the table saw version ``seen``: the corrections recorded since (each
        correction keeps the versions it was made ``on`` and ``made``) and the actions taken after them, read from
        where they start (never the whole game)."""
        from referee.events import Correction, event_from_dict

        records = self._corrections(conn, game_id, internal=True)
        count = version_count(seen) or 0
        since: list[tuple[str, dict[str, Any]]] = []
        made = [i for i, (_at, r) in enumerate(records) if r.get("made") == seen]
        on = [i for i, (_at, r) in enumerate(records) if r.get("on") == seen]
        if made:
            since = records[made[-1] + 1:]
        elif on:
            since = records[on[0]:]
        else:
            row = conn.execute("SELECT at, chain FROM events WHERE game_id = ? AND seq = ?",
                               (game_id, count - 1)).fetchone()
            if row is not None and version_of(game_id, count, row[1] if isinstance(row[1], bytes) else None) == seen:
                since = [(at, r) for at, r in records if at > row[0]]  # the events seen are still the game's
            else:
                since = records[-1:]  # (a version no record names: the last correction at least)
        start = count
        if since:
            start = version_count(str(since[-1][1].get("made", ""))) or count
        rows = conn.execute("SELECT data FROM events WHERE game_id = ? AND seq >= ? ORDER BY seq",
                            (game_id, start)).fetchall()
        try:
            events = [event_from_dict(json.loads(data)) for (data,) in rows]
            corrections = [Correction.from_dict(r) for _at, r in since]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._unreplayable(game_id, exc) from None
        return events, corrections

    def act(self, game_id: int | None, action: Callable[[Game], Any], expect: Seen | None = None,
            seat: str | SeatKey | None = None, turn: bool = False) -> tuple[int, Game, Any]:
        """Run ``action`` on the game and commit the events it applied, all in one transaction.

        The game is resumed once, inside the write lock. A RulesError from the action rolls
        everything back: a refused action changes nothing. ``expect``: what the table saw when it
        decided the action; if the game has moved on since, it is refused (``GameChanged``). ``seat``: the
        player's seat that acts (a phone, its name or ``SeatKey``), which may then undo it on its own until another
        write (``_seat_wrote``); with ``turn`` the action is its turn's (refused unless it is that seat's turn).
        """
        self._keeping_rows, self._row_kept = True, None
        try:
            return self._act(game_id, action, expect, seat, turn)
        finally:
            self._keeping_rows, self._row_kept = False, None

    def _act(self, game_id: int | None, action: Callable[[Game], Any], expect: Seen | None,
             seat: str | SeatKey | None, turn: bool) -> tuple[int, Game, Any]:
        from referee.rules import Seen

        with self._transaction() as conn:
            gid = self._resolve(conn, game_id)
            name = self._seat_name(conn, gid, seat)
            if name is not None and turn:
                expect = Seen(expect.events, name, expect.undos, expect.version) if expect else Seen(player=name)
            self._check_game(conn, gid)  # damage in its snapshot or last link stops the write
            game = self._game(conn, gid)
            self._check_seen(conn, gid, game, expect)
            before = game.count
            game.said = []  # the words of the new events, for the window of last actions (``_window``)
            result = action(game)
            if game.count > before:
                self._save(conn, gid, game, before, game.events[before - game.base:])
                if self._version >= 3:
                    conn.execute("DELETE FROM redo WHERE game_id = ?", (gid,))  # a new action: redo is gone
                self._seat_wrote(conn, gid, game, name)
        return gid, game, result

    def rewrite(self, game_id: int | None,
                change: Callable[[list[Event], list[Event]], tuple[list[Event], list[Event] | None, Any]],
                correction: Callable[[Any], Correction | None] | None = None, expect: Seen | None = None,
                seat: str | SeatKey | None = None) -> tuple[int, Game, list[Event], Any]:
        """Replace a game's events by ``change(events, redo)``'s, replayed, in one transaction (undo, redo, amend).

        ``change`` gets the events and the redo stack, and returns the new list of events, the new
        redo stack (None: unchanged) and a result; the new list is replayed in full (a RulesError
        rolls back). ``correction(result)`` is recorded. Returns the game, the events it had
        before, and the result. ``expect``: what the table saw (as for ``act``); ``seat``: a player's seat undoes
        its own last action (refused with ``NotYours`` unless that action made the game as it is).
        """

        with self._transaction() as conn:
            gid = self._resolve(conn, game_id)
            name = self._seat_name(conn, gid, seat)
            self._check_game(conn, gid)
            if expect is not None or name is not None:  # the game as the snapshot keeps it: no replay
                now_game = self._game(conn, gid)
                on = now_game.version
                self._check_seen(conn, gid, now_game, expect, name, own=True)  # refused before the history is read
            else:
                on = self._version_now(conn, gid)
            events, _ = self._events(conn, gid)
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
                    self._record(conn, gid, record, on, game.version, name or "")
                game.generation = self._generation(conn, gid)
            self._seat_wrote(conn, gid, game, None)
            self._wrote(Written(gid))  # a correction: a board reads it again (its words, the correction's)
        return gid, game, events, result

#: The contract's names, with those of its parts that callers and tests name through this module.
__all__ = ["Store", "StoreError", "NoGame", "Damaged", "GameSummary", "KEPT_ACTIONS", "SCHEMA_VERSION", "STAMP_SUFFIX",
           "chain_record", "chain_start", "default_db_path", "game_digest"]
