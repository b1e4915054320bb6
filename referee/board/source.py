"""The board's one door to the games: a read-only view of the referee's database, and the change signal.

Everything the board reads goes through here, so that following the referee library (its game-flow
values, issue 8) is a change in this module only. Nothing here ever writes the game database: the
store is opened with ``read_only=True`` (SQLite's ``mode=ro``), and so is the watcher's connection.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dictionaries.i18n import Message, message_of, msg, say
from referee.actions import history_notes
from referee.board.wording import action_words, ending_text, sentence, waiting_text  # offered here too (views)
from referee.commits import Written
from referee.engine import Created, Event, Game, Phase, State
from referee.store import GameSummary, NoGame, Store, StoreError
from referee.store_format import version_of
from referee.store_pg import is_database_url, open_store, shown_address

#: How often the watcher asks SQLite whether another connection committed (seconds).
POLL_S = 0.1
#: How many of the last actions the board shows.
RECENT = 5

log = logging.getLogger("referee.board")


class BoardError(ValueError):
    """A game or database the board cannot show; ``status`` is the HTTP status that fits."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Shown:
    """One game as the board shows it."""

    id: int
    game: Game
    actions: list[list[str]]   # the last actions, oldest first: each one's notes, in the engine's words
    updated_at: str
    version: str | None = None  # the game's version (``referee.store_format.version_of``), None before schema 4

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def recent(self) -> list[str]:
        """The last actions in words, oldest first, in the language in use."""
        return [action_words(notes) for notes in self.actions]


def _fail(exc: StoreError, game_id: int | None = None) -> BoardError:
    """The store's refusal in words for a visitor: the game's number, never the database's path (the
    store's own message, which names the file, goes to the operator's log: ``_logged``)."""
    if isinstance(exc, NoGame):
        if game_id is None:
            return BoardError(msg("no game has started yet"), 404)
        return BoardError(msg("there is no game {game}", game=game_id), 404)
    # The file is there but unusable: not the visitor's fault, not a crash.
    return BoardError(msg("the games cannot be read at the moment; the board's operator can see why in its "
                          "log or with 'uw-referee verify'"), 503)


def _logged(problem: BoardError, exc: StoreError, path: Path | str) -> BoardError:
    """The problem, after telling the operator's log what the store said (with the path) unless it is a 404."""
    if problem.status != 404:
        log.warning("the board cannot read %s: %s", shown(path), say(message_of(exc)))
    return problem


def shown(path: Path | str) -> Path | str:
    """The database as the operator's log names it: a PostgreSQL address without its password."""
    return shown_address(path) if isinstance(path, str) and is_database_url(path) else path


def where(db: str | os.PathLike[str]) -> Path | str:
    """The database as the board keeps it: a PostgreSQL address as it is, a file as a Path."""
    return str(db) if is_database_url(str(db)) else Path(db)


class Source:
    """Reads games from the database at ``path`` for one request (open, read, close)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = where(path)

    def _store(self) -> Store:
        return open_store(self.path, read_only=True)

    def game(self, game_id: int | None, recent: int = RECENT) -> Shown:
        """The game (the most recently active one when ``game_id`` is None) with its last actions in words: a
        ``Feed``'s first look (the snapshot and the words kept with it, no replay)."""
        feed = Feed(self.path, game_id, recent)
        feed.refresh()
        return feed.shown()

    def games(self) -> list[GameSummary]:
        store = self._store()
        try:
            return store.games() if isinstance(self.path, str) or self.path.exists() else []
        except StoreError as exc:
            raise _logged(_fail(exc), exc, self.path) from None
        finally:
            store.close()


class Feed:
    """One game as the board keeps it between commits: its state and its last actions, carried forward by
    the new events only.

    The first look resumes the game from the store's snapshot and the words of its last actions kept
    with it (``Store.resumed``, schema 5: made by the writer's own applies, covered by the snapshot's
    digest), so it costs the same at any length of game; after that each commit costs one read of the
    new events (the store's ``tail``) and their application. An undo, an amend or another game becoming
    current is noticed by the digest of the last event kept (it covers every event before it) and starts
    again from the snapshot the store then keeps, which an undo or an amend rewrote with its words.
    Only a game without such a snapshot (a file before schema 5 opened read-only, or a snapshot
    damaged after it was written) is replayed from its events, as before. ``game_id`` None follows the
    current game. It shows at most the store's ``KEPT_ACTIONS`` last actions.
    """

    def __init__(self, path: str | os.PathLike[str], game_id: int | None, recent: int = RECENT) -> None:
        self.path = where(path)
        self.asked = game_id
        self.recent = recent
        self.id: int | None = None
        self.game: Game | None = None
        self.updated = ""
        self.actions: deque[list[str]] = deque(maxlen=max(1, recent))
        self.problem: BoardError | None = None
        self.corrections = 0  # how many corrections the game had when it was last read: the table was told them
        self._last: tuple[int, Event | None, bytes | None] | None = None  # seq, event, digest of the last event kept
        self._shared = False  # ``game`` is a writer's object (``take``): never changed in place
        self.replays = 0  # how many times it started from the creation (the tests count them)

    def shown(self) -> Shown:
        """The game as it was at the last ``refresh`` (raises the BoardError it met instead)."""
        if self.problem is not None:
            raise self.problem
        assert self.game is not None and self.id is not None
        actions = list(self.actions)[-self.recent:] if self.recent > 0 else []
        digest = self._last[2] if self._last is not None else None
        version = version_of(self.id, self.game.count, digest) if digest is not None else None
        return Shown(self.id, self.game, actions, self.updated, version)

    def version(self) -> str | None:
        """The version of the game as shown (None: none shown, or a game kept without digests)."""
        if self._last is None or self._last[2] is None or self.id is None or self.game is None:
            return None
        return version_of(self.id, self.game.count, self._last[2])

    def take(self, written: Written) -> bool:
        """The game as this process just wrote it (``referee.commits``), with nothing read, when the write played on
        from the game shown: its state as written, and what its events did added to the last actions as ``_apply``
        adds them. Else (a correction, a game deleted, another write between, no digest) ``refresh``. True when
        what it shows changed."""
        game, said = written.game, written.said
        if game is not None and game.version is not None and game.version == self.version():
            return False
        if (game is None or said is None or written.head is None or self.problem is not None
                or self.id != written.game_id or self.game is None or self._last is None
                or self.game.count != game.count - len(said)):
            return self.refresh()
        over = game.state.is_over()
        for i, (event, notes) in enumerate(said):
            notes = notes if over and i == len(said) - 1 else notes[:-1]  # as ``log`` says them (history_notes)
            if notes:
                if self.actions and not event.starts_action:
                    self.actions[-1] = [*self.actions[-1], *notes]
                else:
                    self.actions.append(list(notes))
        self.game, self._shared = game, True  # the writer's own object: copied before this feed changes it
        self._last = (game.count - 1, said[-1][0] if said else None, written.head)
        self.updated = written.at
        return True

    def head(self) -> str | None:
        """What tells the game as shown from any other: its number and the chain digest of its last event (which
        covers every event before it); None for a game kept without digests (a file before schema 4)."""
        if self._last is None or self._last[2] is None or self.id is None:
            return None
        return f"{self.id}:{self._last[2].hex()}"

    def refresh(self) -> bool:
        """Catch up with the database; True when what it shows changed."""
        store = open_store(self.path, read_only=True)
        kept, told = None, list[Message]()
        try:
            target = self.asked
            if self._last is not None:
                gid, updated, rows = store.tail(self.asked, self._last[0], same=self.id)
                if gid != self.id or not rows or not self._same(rows[0]):
                    self._last, target = None, gid  # another game, or this one undone or amended: start again
                else:
                    if updated != self.updated:  # the corrections made since it last looked (an undo, a redo)
                        told, self.corrections = _told(store, gid, "", self.corrections)
                    rows = rows[1:]
            if self._last is None:
                kept, last_at = _resumed(store, target)
                if kept is None:  # no snapshot with words to start from: the events, from the creation
                    gid, updated, rows = store.tail(target, 0)
                    last_at = rows[-1][1] if rows else ""
                else:
                    gid, updated, rows = kept[0], kept[1], []
                told, self.corrections = _told(store, gid, last_at)
        except StoreError as exc:
            problem = _fail(exc, self.asked)
            changed = self.problem is None or message_of(self.problem) != message_of(problem)
            if changed:
                _logged(problem, exc, self.path)
            self.problem, self.game, self.id, self._last = problem, None, None, None
            return changed
        finally:
            store.close()
        if self._last is not None and not rows and updated == self.updated and self.problem is None:
            return False
        try:
            if kept is not None:
                self._resume(kept[2], kept[3], kept[4], kept[5])
            else:
                self._apply(rows)
            self.actions.extend([line] for line in told)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("the board cannot replay game %s of %s: %s", gid, shown(self.path), exc)
            self.problem = _fail(StoreError(str(exc)), self.asked)
            self.game, self.id, self._last = None, None, None
            return True
        self.problem, self.id, self.updated = None, gid, updated
        return True

    def _same(self, row: tuple[int, str, Event, bytes | None]) -> bool:
        assert self._last is not None
        seq, event, digest = self._last
        return row[0] == seq and (row[3] == digest if digest is not None or row[3] is not None else row[2] == event)

    def _resume(self, game: Game, recent: list[list[Message]], seq: int, digest: bytes) -> None:
        """Start from the store's snapshot and the words of the last actions kept with it (no replay)."""
        self._shared = False
        self.game = game
        self.actions.clear()
        self.actions.extend(list(action) for action in recent)
        self._last = (seq, None, digest)

    def _apply(self, rows: list[tuple[int, str, Event, bytes | None]]) -> None:
        """Apply the new events (all of them, from the creation, when starting again), noting what each did."""
        if self._last is None:
            if not rows or not isinstance(rows[0][2], Created):
                raise ValueError("a game's first event must be its creation")
            self.replays += 1
            self.game = Game(rows[0][2].setup)
            self.actions.clear()
            self._last = (rows[0][0], rows[0][2], rows[0][3])
            rows = rows[1:]
        if self._shared and rows and self.game is not None:  # the writer's object (``take``): its answer may
            self.game = _copied(self.game)                        # still be reading it
        self._shared = False
        game = self.game
        assert game is not None
        for seq, _at, event, digest in rows:
            notes = game.apply(event)
            notes = notes if game.state.is_over() else notes[:-1]  # as ``log`` says them (history_notes)
            if notes:
                if self.actions and not event.starts_action:
                    self.actions[-1] = [*self.actions[-1], *notes]
                else:
                    self.actions.append(list(notes))
            self._last = (seq, event, digest)


def _copied(game: Game) -> Game:
    """A game of its own with ``game``'s state (its state kept and read back, as a snapshot is)."""
    copy = Game.resume(State.from_snapshot(json.loads(json.dumps(game.state.to_snapshot()))))
    copy.generation = game.generation
    return copy


def _resumed(store: Store, target: int | None) -> tuple[tuple[int, str, Game, list[list[Message]], int, bytes] | None, str]:
    """The store's snapshot of the game to start from, with the time of its last event (read after it, in another
    transaction); None when there is none, or when corrections keep taking that event away between the two reads
    (an undo just after the snapshot was read): the caller then reads the events from the creation."""
    for _ in range(3):
        kept = store.resumed(target)
        if kept is None:
            return None, ""
        rows = store.tail(kept[0], kept[4])[2]
        if rows:
            return kept, rows[0][1]
    return None, ""


def _told(store: Store, game_id: int, since: str, known: int | None = None) -> tuple[list[Message], int]:
    """The corrections the table is told among the last actions, where the undone action was, in words, and how
    many the game has: those after the first ``known`` (as the board carries a game forward), else those made
    since ``since``, its last event's time (when the board starts again). Read only when the game was written
    since the board last looked."""
    from referee.events import Correction
    from referee.words import correction_message

    _gid, records = store.corrections(game_id)
    new = records[known:] if known is not None else [(at, r) for at, r in records if since and at >= since]
    return [correction_message(Correction.from_dict(record)) for _at, record in new], len(records)


def recent_notes(events: list[Event], count: int) -> list[list[str]]:
    """What the last ``count`` actions did: each one's notes, in the referee's own words (as
    ``uw-referee log`` says them); a roll joins the play it belongs to, as the table sees one action."""
    actions: list[list[str]] = []
    for event, notes in zip(events, history_notes(events), strict=True):
        if not notes:
            continue
        if actions and not event.starts_action:
            actions[-1] = [*actions[-1], *notes]
        else:
            actions.append(list(notes))
    return actions[-count:] if count > 0 else []


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


# -- the change signal ----------------------------------------------------------------------------

class Watcher:
    """Notices commits to the database and wakes every stream: one thread per server process.

    It asks SQLite's ``PRAGMA data_version`` (which changes when another connection commits) every
    ``POLL_S`` seconds on one read-only connection, and the file's identity, size and time (a database created,
    replaced or restored after the board started: a backup copied over it keeps its inode, and the connection
    open on the old file would never see a change again). On any of those it opens the file anew (``reopened``
    counts them; the store checks a file it did not write before it writes) and shows it again. On a change it first calls ``on_change`` (the board renders
    each changed game there, once), then wakes the streams, which wait on a condition: an idle page
    costs nothing. A page asks ``poll`` itself, so it never shows a commit older than its request.
    """

    def __init__(self, path: str | os.PathLike[str], poll_s: float = POLL_S,
                 on_change: Callable[[], None] | None = None) -> None:
        self.path = Path(path)
        self.poll_s = poll_s
        self.on_change = on_change
        self.version = 0
        self.stopping = threading.Event()
        self._changed = threading.Condition()
        self._wakes: set[threading.Event] = set()  # the streams' own events (``subscribe``)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._identity_seen: tuple[int, ...] | None = None
        self.reopened = 0  # times the file was found replaced (or checkpointed) and opened anew
        self._data_version: int | None = None
        self._failed = False

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="board-watcher", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Wake every stream so it ends (the server is stopping)."""
        self.stopping.set()
        with self._changed:
            self._changed.notify_all()
            for wake in self._wakes:
                wake.set()

    def subscribe(self, _game: int | None, wake: threading.Event) -> Callable[[], None]:
        """Set ``wake`` after each commit (of any game: the file cannot tell them apart) and when the server stops;
        the function returned ends it."""
        self.start()
        with self._changed:
            self._wakes.add(wake)

        def unsubscribe() -> None:
            with self._changed:
                self._wakes.discard(wake)

        return unsubscribe

    def version_of(self, _game: int | None) -> int:
        """The version a stream of a game waits to see change: the file's (SQLite cannot say which game changed)."""
        return self.version

    def wait(self, seen: int, timeout: float, _game: int | None = None) -> int:
        """Block until the version differs from ``seen``, the timeout passes or the server stops (the stream's game,
        third, is the same to the file's watcher: it cannot tell games apart)."""
        self.start()
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen or self.stopping.is_set(), timeout)
            return self.version

    def _bump(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # a failed render must not stop the watcher; the next commit retries
                log.exception("the board could not render a change")
        with self._changed:
            self.version += 1
            self._changed.notify_all()
            for wake in self._wakes:
                wake.set()

    def _identity(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def poll(self) -> int:
        """Look once for a commit (the watcher's tick; a page calls it too); the version after it."""
        self.start()
        with self._poll_lock:
            self._tick()
            return self.version

    def _tick(self) -> None:
        now = self._identity()
        if now != self._identity_seen:
            if now is not None and self._identity_seen is not None and now[:2] == self._identity_seen[:2]:
                log.info("%s changed on disk (a checkpoint, or a backup copied over it): opened anew",
                         shown(self.path))
            self._close()
            self._identity_seen, self._data_version = now, None
            self.reopened += 1
            self._bump()
        if self._identity_seen is None:
            return
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                             isolation_level=None, check_same_thread=False)
                self._conn.execute("PRAGMA query_only=ON")
            value = self._conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            self._close()
            self._data_version = None  # try again on the next tick; what it then finds counts as a change
            self._failed = True
            return
        if (self._data_version is not None and value != self._data_version) or self._failed:
            self._failed = False
            self._bump()
        self._data_version = value

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _run(self) -> None:
        while not self.stopping.wait(self.poll_s):
            with self._poll_lock:
                self._tick()
        with self._poll_lock:
            self._close()


__all__ = ["BoardError", "Feed", "Shown", "Source", "Watcher", "action_words", "ending_text", "recent_notes",
           "sentence", "waiting_text"]
