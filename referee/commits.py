"""This process's own writes, told to this process's boards without the database (issue 33).

A PostgreSQL write wakes the boards with a NOTIFY, and each listening connection then spends a transaction of the
server's reading it (PostgreSQL's ``ProcessIncomingNotify``), and its board a read of the game it already knows when
the write was its own. So a board process's listener registers here (``listening``: its backend's pid, under the
database address it follows) with a callback (``follow``: the board's runtime). A store that commits a write then
(``Told``, PostgreSQL's store):

* tells every callback on its address in this process what it wrote (``tell``): the game as written (its state,
  version and words, so the board shows it without reading it again), or None (a correction or a purge: read it);
* sends its NOTIFY only when a board outside this process may listen (``others_sql``: a listening connection that is
  not this process's on the same address, named ``LISTENER_NAME`` in ``pg_stat_activity``), in the write's own
  transaction, naming this process (``origin``): this process's listeners leave their own process's alone.

A board that starts listening after a write looked for listeners but before it committed would miss that write;
the listener closes the gap by catching its games up once the write transactions in flight when it connected have
ended (``referee.notify``). Loaded on the quick path (``store_pg`` imports it): no ``typing``, no ``dataclasses``.
"""
from __future__ import annotations

import os
import threading

TYPE_CHECKING = False  # typing is not loaded on the quick path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from referee.engine import Event, Game

#: The ``application_name`` of a board's listening connection: how a writer finds listeners in ``pg_stat_activity``.
LISTENER_NAME = "uw-referee board"


class Written:
    """A game one transaction wrote: the game as written (None: its history was rewritten, or it was deleted, and a
    board reads it again), the time of the write (its events' and the game's ``updated_at``), the chain digest of
    its last event, and ``said``: each event it added and what that event did, when the writer heard them."""

    __slots__ = ("at", "game", "game_id", "head", "said")

    def __init__(self, game_id: int, game: Game | None = None, at: str = "", head: bytes | None = None,
                 said: list[tuple[Event, list[str]]] | None = None) -> None:
        self.game_id, self.game, self.at, self.head, self.said = game_id, game, at, head, said


_lock = threading.Lock()
_followers: dict[str, list[Callable[[list[Written]], None]]] = {}
_listeners: dict[int, str] = {}  # the backend pid of each listening connection of this process: its address
_origin: list[Any] = [0, ""]  # (the pid it was made in, the mark)


def follow(url: str, callback: Callable[[list[Written]], None]) -> Callable[[], None]:
    """Call ``callback`` after each commit of this process's stores on ``url``; the function returned ends it."""
    with _lock:
        _followers.setdefault(url, []).append(callback)

    def end() -> None:
        with _lock:
            found = _followers.get(url, [])
            if callback in found:
                found.remove(callback)
            if not found:
                _followers.pop(url, None)

    return end


def listening(pid: int, url: str | None) -> None:
    """This process's connection of backend ``pid`` listens on ``url`` for a board told by ``tell`` (None: no more)."""
    with _lock:
        if url is None:
            _listeners.pop(pid, None)
        else:
            _listeners[pid] = url


def ours(url: str) -> list[int]:
    """The backend pids of this process's listening connections whose boards ``tell`` reaches (``url``'s)."""
    with _lock:
        return [pid for pid, heard in _listeners.items() if heard == url and _followers.get(url)]


def tell(url: str, written: list[Written]) -> None:
    """After a commit: hand what it wrote to this process's boards on ``url`` (a failing board does not fail the
    write, which is made: it is logged)."""
    with _lock:
        callbacks = list(_followers.get(url, ()))
    for callback in callbacks:
        try:
            callback(written)
        except Exception:  # pragma: no cover - a bug of the board's; the write stands
            import logging

            logging.getLogger("referee.board").exception("the board could not take its own write")


def origin() -> str:
    """This process's mark in the NOTIFY payloads it sends (made anew in a forked child): a board that hears its own
    process's notification knows the write was told to it already (``tell``), or is about to be."""
    if _origin[0] != os.getpid():
        _origin[:] = [os.getpid(), f"{os.getpid()}.{os.urandom(4).hex()}"]
    return str(_origin[1])


def others_sql(placeholder: str = "%s") -> str:
    """The condition, in a write's transaction, that a board outside this process may listen on its database."""
    return (f"EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = "
            f"'{LISTENER_NAME}' AND pid <> ALL({placeholder}::int[]))")


class Told:
    """A PostgreSQL store's side: the games a transaction wrote (``_wrote``, reset at its start), their NOTIFY before
    its commit (``_notice``) and, after it, this process's boards told (``_tell``)."""

    url: str
    _told: dict[int, Written] = {}  # (each transaction sets its own)

    def _wrote(self, written: Written) -> None:
        self._told[written.game_id] = written

    def _gone(self, game_id: int) -> None:
        """A game deleted (``purge``): boards read it again, and find it gone."""
        self._wrote(Written(game_id))

    def _notice(self, channel: str, game_id: int) -> tuple[str, tuple[Any, ...]]:
        """The NOTIFY of ``game_id``'s write, for boards outside this process only: the statement and its values."""
        return (f"SELECT pg_notify(%s, current_schema() || ':' || %s) WHERE {others_sql()}",
                (channel, f"{game_id}:{origin()}", ours(self.url)))

    def _tell(self) -> None:
        told, self._told = list(self._told.values()), {}
        if told:
            tell(self.url, told)


__all__ = ["LISTENER_NAME", "Told", "Written", "follow", "listening", "origin", "ours", "others_sql", "tell"]
