"""The board's one door to the games: a read-only view of the referee's database, and the change signal.

Everything the board reads goes through here, so that following the referee library (its game-flow
values, issue 8) is a change in this module only. Nothing here ever writes the game database: the
store is opened with ``read_only=True`` (SQLite's ``mode=ro``), and so is the watcher's connection.
"""
from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from dictionaries.i18n import _, message_of, ngettext, say
from dictionaries.rules import DIE
from referee.actions import history_notes, waiting
from referee.engine import Event, Game, Phase, State
from referee.store import GameSummary, NoGame, Store, StoreError

#: How often the watcher asks SQLite whether another connection committed (seconds).
POLL_S = 0.1


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

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def recent(self) -> list[str]:
        """The last actions in words, oldest first, in the language in use."""
        return [action_words(notes) for notes in self.actions]


def _fail(exc: StoreError, path: Path) -> BoardError:
    if isinstance(exc, NoGame):
        return BoardError(message_of(exc), 404)
    return BoardError(message_of(exc), 503)  # the file is there but unusable: not the visitor's fault, not a crash


class Source:
    """Reads games from the database at ``path`` for one request (open, read, close)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _store(self) -> Store:
        return Store(self.path, read_only=True)

    def game(self, game_id: int | None, recent: int = 5) -> Shown:
        """The game (the most recently active one when ``game_id`` is None) with its last actions in words."""
        store = self._store()
        try:
            gid, game, history = store.history(game_id)
        except StoreError as exc:
            raise _fail(exc, self.path) from None
        finally:
            store.close()
        return Shown(gid, game, recent_notes([e for _at, e in history], recent), history[-1][0] if history else "")

    def games(self) -> list[GameSummary]:
        store = self._store()
        try:
            return store.games() if self.path.exists() else []
        except StoreError as exc:
            raise _fail(exc, self.path) from None
        finally:
            store.close()


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


def action_words(notes: list[str]) -> str:
    """One action's notes (whole sentences each) in the language in use, one after the other."""
    return " ".join(say(note) for note in notes)


def recent_actions(game: Game, events: list[Event], count: int) -> list[str]:
    """What the last ``count`` actions did, in words, in the language in use."""
    return [action_words(notes) for notes in recent_notes(events, count)]


def waiting_text(state: State) -> str:
    """What the game waits for, in words for a room ("Sue rolls for COLUMNS: 6 or more passes")."""
    now = waiting(state)
    if now.phase is Phase.SANITY and now.word and now.needs:
        if now.needs <= 1:
            text = _("{player} rolls for {word}: any roll passes.")
        elif now.needs >= DIE:
            text = _("{player} rolls for {word}: only a 20 passes.")
        else:
            # TRANSLATORS: {needs} is the lowest roll of the 20-sided die that passes the sanity check.
            text = _("{player} rolls for {word}: {needs} or more passes.")
        return text.format(player=now.player, word=now.word, needs=now.needs)
    return say(now.text)


def sentence(text: str) -> str:
    """A store message (written to follow "Error: ") as a sentence on its own."""
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else text


def ending_text(state: State) -> str:
    """Who won and why, from the engine's Outcome, in the language in use."""
    outcome = getattr(state, "outcome", None)
    if outcome is None:
        return _("{winner} wins!").format(winner=state.winner)
    why = outcome.termination.value
    if why == "target":
        text = ngettext("{winner} wins with {n} point, reaching the target of {target}.",
                        "{winner} wins with {n} points, reaching the target of {target}.", outcome.score)
    elif why == "last_words":
        text = ngettext("{winner} wins with {n} point after Last Words.",
                        "{winner} wins with {n} points after Last Words.", outcome.score)
    elif why == "last_standing":
        text = ngettext("{winner} wins with {n} point, as the last player with pawns.",
                        "{winner} wins with {n} points, as the last player with pawns.", outcome.score)
    else:
        text = ngettext("{winner} wins with {n} point.", "{winner} wins with {n} points.", outcome.score)
    return text.format(winner=outcome.winner, n=outcome.score, target=state.setup.target)


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


# -- the change signal ----------------------------------------------------------------------------

class Watcher:
    """One thread per server process that notices commits to the database and wakes every stream.

    It asks SQLite's ``PRAGMA data_version`` (which changes when another connection commits) every
    ``POLL_S`` seconds on one read-only connection, and the file's identity (a database created or
    replaced after the board started). Streams wait on a condition: an idle page costs nothing.
    """

    def __init__(self, path: str | os.PathLike[str], poll_s: float = POLL_S) -> None:
        self.path = Path(path)
        self.poll_s = poll_s
        self.version = 0
        self.stopping = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

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

    def wait(self, seen: int, timeout: float) -> int:
        """Block until the version differs from ``seen``, the timeout passes or the server stops."""
        self.start()
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen or self.stopping.is_set(), timeout)
            return self.version

    def _bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def _identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        identity: tuple[int, int] | None = None
        data_version: int | None = None
        while not self.stopping.wait(self.poll_s):
            now = self._identity()
            if now != identity:
                if conn is not None:
                    conn.close()
                    conn = None
                identity, data_version = now, None
                self._bump()
            if identity is None:
                continue
            try:
                if conn is None:
                    conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                           isolation_level=None, check_same_thread=False)
                    conn.execute("PRAGMA query_only=ON")
                value = conn.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.Error:
                if conn is not None:
                    conn.close()
                conn, identity = None, None  # try again from scratch on the next tick
                time.sleep(self.poll_s)
                continue
            if data_version is not None and value != data_version:
                self._bump()
            data_version = value
        if conn is not None:
            conn.close()


__all__ = ["BoardError", "Shown", "Source", "Watcher", "action_words", "ending_text", "recent_actions", "recent_notes",
           "sentence", "waiting_text"]
