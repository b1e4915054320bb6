"""The persistence contract of the referee's games, over SQLite: one database, many games, one transaction per action.

The store persists and verifies; it knows no rule. It loads a game, lets the engine check and apply the new
events, and commits them all or nothing. What it keeps (``referee.store_format``): each game's events, each
carrying the running digest of the events up to it (the chain); a snapshot of the game's state tied to the chain
by a digest, so a command resumes a game instead of replaying it; a summary per game for listing; the words of the
game's last few actions, so a reader such as the board says them without a replay; the corrections the table made
(``Correction``s, typed by the engine) and the redo stack. The contract callers use: ``create``, ``act`` and
``rewrite`` (with ``expect=``, a ``Seen``: the turn guard refuses a write decided on a game that has moved on, and
``check_seen`` asks the same without writing), and the readers ``view``, ``checked_view``, ``setup``, ``phase``,
``history``, ``stored``, ``records``, ``corrections``, ``games``, ``tail`` and ``resumed``; ``verify`` names all
damage; ``purge`` deletes the games a caller's choice (``referee.retention``) picks, in one transaction. Undo and redo are the library's (``Referee.undo``, the engine's ``undo_events``), written through
``rewrite``; a game's generation is the engine's ``generation_of`` the kinds of its corrections.

File safety is ``referee.store_file`` (the file is ours, opened without harm, SQLite's errors in words, the
stamp of the last verification) and the schema and its migrations ``referee.store_schema``: SQLite's alone.

The dialect seam, for a second backend (PostgreSQL through psycopg 3) implementing the same contract: the
methods under "connection" (``_connect``, ``_transaction``, ``close``, ``exists``) and the few statements marked
``# dialect:`` below (the chain's one-query aggregate ``CHAIN_SQL``, the snapshot's upsert, the new game's id, the
bytes of a row in ``_chain_problem``). Every other statement is plain SQL with ``?`` placeholders (psycopg wants
``%s``: the second backend's connection rewrites them) over the tables ``store_schema`` creates; the bytes
written and the digests over them are ``store_format``'s, the same for both. ``self._version`` is the schema
version: a new backend starts at ``SCHEMA_VERSION`` and never runs SQLite's migrations.

Why this module is over 500 lines: the contract's readers and writers share the chain, snapshot and window
helpers, and each reader is a dozen lines; split further, each part would reach into the others' private helpers.
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager

from dictionaries.i18n import Message, message_from_json, message_of, msg
from referee.paths import default_db_path
from referee.store_file import BUSY_TIMEOUT_S, STAMP_SUFFIX, SQLiteFile
from referee.store_format import (
    KEPT_ACTIONS,
    Damaged,
    GameSummary,
    NoGame,
    StoreError,
    add_actions,
    chain_record,
    chain_start,
    dumps,
    game_digest,
    now,
    snapshot_digest,
    summary_of,
    told_tail,
)
from referee.store_schema import SCHEMA_VERSION, rollback

TYPE_CHECKING = False  # typing and the engine are loaded only when a command needs them
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from referee.events import Correction, Event, Setup
    from referee.rules import Game, Seen
    from referee.state import State

#: dialect: a game's events before seq ``?`` as one byte string of ``chain_record``s, with their count and last seq:
#: one query and one hash call check thousands of events (the rows are read in the primary key's order).
CHAIN_SQL = ("SELECT CAST(group_concat(at || data, '\x1e') AS BLOB), count(*), max(seq) FROM (SELECT seq, at, data "
             "FROM events WHERE game_id = ? AND seq < ? ORDER BY seq)")
#: dialect: the order ``purge`` reads every game's summary in (PostgreSQL: with the games' rows locked).
PURGE_ORDER = "ORDER BY id"


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
                    problem = msg("game {game} in {path} is damaged: {problem}. Stop any board serving the file, "
                                  "then restore it from a backup, or "
                                  "start again from an earlier 'uw-referee export'; 'uw-referee verify' lists all the "
                                  "damage", game=gid, path=self.path, problem=found)
            kept = self._kept(conn, gid, "view")
            if kept and "waiting" in kept[1]:
                view = kept[1]
            else:  # replays, which a damaged chain stops
                view = self._game(conn, gid).state.view()
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
            row = conn.execute("SELECT id FROM games ORDER BY updated_at DESC, id DESC LIMIT 1").fetchone()
            if row is None:
                raise NoGame(msg("no games yet in {path}: start one with 'uw-referee new NAME NAME'", path=self.path))
            return int(row[0])
        # a number past SQLite's integers (a page's address can hold any) names no game rather than overflowing
        row = conn.execute("SELECT id FROM games WHERE id = ?", (game_id,)).fetchone() if 0 < game_id < 2**63 else None
        if row is None:
            raise NoGame(msg("there is no game {game} in {path}; 'uw-referee games' lists them", game=game_id,
                             path=self.path))
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
        column = "s.recent" if self._version >= 5 else "NULL"
        row = conn.execute(f"SELECT s.seq, s.state, s.view, s.digest, g.summary, {column} FROM snapshots s "
                           "JOIN games g ON g.id = s.game_id WHERE s.game_id = ?", (game_id,)).fetchone()
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
        # dialect: the rows' bytes as stored
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
        return Damaged(msg("game {game} in {path} is damaged: {problem}. Nothing was written. Stop any board "
                              "serving the file, then restore it from a backup, or start again from an earlier 'uw-referee export'; 'uw-referee verify' "
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
        from referee.rules import Game
        from referee.state import State

        data = self._snapshot(conn, game_id)
        game = None
        if data is not None:
            try:
                game = Game.resume(State.from_snapshot(data))
            except (ValueError, KeyError, TypeError):
                pass  # a snapshot this version cannot read: replay
        if game is None:
            game = self._replay(conn, game_id)
        game.generation = self._generation(conn, game_id)
        return game

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

    def _corrections(self, conn: sqlite3.Connection, game_id: int) -> list[tuple[str, dict[str, Any]]]:
        if self._version < 3:
            return []
        rows = conn.execute("SELECT at, data FROM corrections WHERE game_id = ? ORDER BY n", (game_id,)).fetchall()
        return [(at, json.loads(data)) for at, data in rows]

    def _typed_corrections(self, conn: sqlite3.Connection, game_id: int) -> list[Correction]:
        """The game's corrections as the engine's values."""
        from referee.events import Correction

        return [Correction.from_dict(record) for _, record in self._corrections(conn, game_id)]

    def _record(self, conn: sqlite3.Connection, game_id: int, correction: Correction) -> None:
        """Record a correction (undo, redo, amend) with the time."""
        row = conn.execute("SELECT coalesce(max(n), -1) + 1 FROM corrections WHERE game_id = ?", (game_id,)).fetchone()
        conn.execute("INSERT INTO corrections (game_id, n, at, data) VALUES (?, ?, ?, ?)",
                     (game_id, row[0], now(), dumps(correction.to_dict())))

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
            return self._summaries(conn, "ORDER BY updated_at DESC, id DESC")

    def _summaries(self, conn: sqlite3.Connection, order: str) -> list[GameSummary]:
        column = "summary" if self._version >= 2 else "NULL"
        rows = conn.execute(f"SELECT id, created_at, updated_at, {column} FROM games {order}").fetchall()
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
            found = self._summaries(conn, PURGE_ORDER)
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
        text = dumps(state.to_snapshot())
        view = dumps(state.view())
        summary = dumps(summary_of(state))
        seq = last_seq + 1
        if self._version >= 5:
            # dialect: an upsert (PostgreSQL: INSERT ... ON CONFLICT (game_id) DO UPDATE)
            conn.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest, recent) VALUES "
                         "(?, ?, ?, ?, ?, ?)", (game_id, seq, text, view,
                                                game_digest(seq, head, text, view, summary, recent), recent))
        else:
            conn.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest) VALUES (?, ?, ?, ?, ?)",
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
            cursor = conn.execute("INSERT INTO games (created_at, updated_at) VALUES (?, ?)", (stamp, stamp))
            game_id = int(cursor.lastrowid)  # type: ignore[arg-type]  # never None after an INSERT; dialect: RETURNING id
            self._save(conn, game_id, game, 0, game.events)
        return game_id, game, result

    def _check_seen(self, conn: sqlite3.Connection, game_id: int, game: Game, expect: Seen | None) -> None:
        """Refuse a write decided on a state the game has left (``Seen.check``), with what happened meanwhile
        (``Seen.unseen``: read from the game's events and corrections only when it moved)."""
        if expect is None:
            return
        meanwhile = None
        if expect.moved(game):
            meanwhile = expect.unseen(self._events(conn, game_id)[0], self._typed_corrections(conn, game_id))
        expect.check(game, meanwhile)

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
                correction: Callable[[Any], Correction | None] | None = None, expect: Seen | None = None
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
                game.generation = self._generation(conn, gid)
        return gid, game, events, result

#: The contract's names, with those of its parts that callers and tests name through this module.
__all__ = ["Store", "StoreError", "NoGame", "Damaged", "GameSummary", "KEPT_ACTIONS", "SCHEMA_VERSION", "STAMP_SUFFIX",
           "chain_record", "chain_start", "default_db_path", "game_digest"]
