"""This process's own writes, told to this process's boards without the database (issue 33).

A PostgreSQL write wakes the boards with a NOTIFY, and each listening connection then spends a transaction of the
server's reading it (PostgreSQL's ``ProcessIncomingNotify``), and its board a read of the game it already knows when
the write was its own. So a board process's listener registers here (``listening``: its backend's pid, under the
database address it follows), and each board runtime a callback (``follow``). A store that commits a write then:

* tells every callback on its address in this process what it wrote (``tell``): the game as written (its state,
  version and words, so the board shows it without reading it again), or None (a correction or a purge: read it);
* sends its NOTIFY only when a board outside this process may listen (``others``: the listening connections that
  are not this process's on the same address, named ``LISTENER_NAME`` in ``pg_stat_activity``), in the write's
  own transaction.

A board that starts listening after a write looked for listeners but before it committed would miss that write;
the listener closes the gap by catching its games up once every transaction in flight when it connected has ended
(``referee.notify``).
"""
from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.engine import Event, Game

#: The ``application_name`` of a board's listening connection: how a writer finds listeners in ``pg_stat_activity``.
LISTENER_NAME = "uw-referee board"


@dataclass(frozen=True)
class Written:
    """A game one transaction wrote: the game as written (None: its history was rewritten, or it was deleted, and a
    board reads it again), the time of the write (its events' and the game's ``updated_at``) and the chain digest of
    its last event; ``said``: each event it added and what that event did, when the writer heard them."""

    game_id: int
    game: Game | None = None
    at: str = ""
    head: bytes | None = None
    said: list[tuple[Event, list[str]]] | None = None  # each new event and what it did (``Game.apply``'s notes)


_lock = threading.Lock()
_followers: dict[str, list[Callable[[list[Written]], None]]] = {}
_listeners: dict[int, str] = {}  # the backend pid of each listening connection of this process: its address


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
    """This process's connection of backend ``pid`` listens on ``url`` (None: it no longer does)."""
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
    global _origin
    if _origin[0] != os.getpid():
        _origin = (os.getpid(), f"{os.getpid()}.{secrets.token_hex(4)}")
    return _origin[1]


_origin: tuple[int, str] = (0, "")


def others_sql(placeholder: str = "%s") -> str:
    """The condition, in a write's transaction, that a board outside this process may listen on its database."""
    return (f"EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = "
            f"'{LISTENER_NAME}' AND pid <> ALL({placeholder}::int[]))")


__all__ = ["LISTENER_NAME", "Written", "follow", "listening", "origin", "ours", "others_sql", "tell"]

