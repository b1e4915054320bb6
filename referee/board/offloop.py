"""The referee library as the players' views call it, under the board's concurrency model (docs/development.md,
"Concurrency"): a PostgreSQL call runs on the request's own greenlet (psycopg, imported after gevent's patch, waits
on gevent's loop), an SQLite call in a native thread of gevent's thread pool (sqlite3 waits for its lock inside C);
and one game's calls wait their turn at that game's gate, at most ``GAME_CALLS`` in flight, so a game whose lock is
held keeps a connection or two busy, never the board's whole pool.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from flask import current_app, has_app_context, has_request_context, request

from referee.board.runtime import runtime
from referee.store_pg import LOCK_TIMEOUT_MS, busy, is_database_url

T = TypeVar("T")

#: Store calls one game may have in flight at once in a board process (a phone's action beside a page's read):
#: a game's writes take turns on its lock anyway, and a game whose lock another connection holds then ties up at
#: most this many of the pool's connections while the others wait here, off the database.
GAME_CALLS = 2
#: How long a call waits for its game's turn before it is refused as busy (503, Retry-After, nothing changed):
#: the database's own lock timeout, which bounds every call ahead of it.
GAME_WAIT_S = LOCK_TIMEOUT_MS / 1000


class Gates:
    """Each game's turn: ``held(game)`` lets at most ``most`` callers in at once; a gate lives while it is used."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._lock = threading.Lock()  # may be made before gevent's patch: held across no wait, never contended
        self._games: dict[int, list[Any]] = {}  # game: [callers at the gate, its semaphore]

    @contextmanager
    def held(self, game: int, wait: float) -> Iterator[bool]:
        """True once in (within ``wait`` seconds), False when the wait ran out (the caller is refused)."""
        with self._lock:
            entry = self._games.get(game)
            if entry is None:
                entry = self._games[game] = [0, threading.Semaphore(self.most)]
            entry[0] += 1
        try:
            if not entry[1].acquire(timeout=wait):
                yield False
                return
            try:
                yield True
            finally:
                entry[1].release()
        finally:
            with self._lock:
                entry[0] -= 1
                if not entry[0]:
                    del self._games[game]


_gates = Gates(GAME_CALLS)


def _on_postgresql() -> bool:
    return has_app_context() and is_database_url(str(current_app.config.get("BOARD_DB", "")))


def blocks_the_loop() -> bool:
    """True when gevent has patched this process but psycopg waits in C all the same: psycopg chooses how it waits
    when it is first imported, so an import before the patch (in a board's master, before the fork) makes every
    PostgreSQL call of the worker block its event loop. Never true where gevent has patched nothing (the CLI)."""
    import sys

    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("select"):
        return False
    from psycopg import waiting

    return waiting.wait is getattr(waiting, "wait_c", None)


_looked: list[bool] = []  # ``blocks_the_loop`` was asked in this process (once is enough: psycopg chose at import)


def _say_if_blocking() -> None:
    """The worker's first PostgreSQL call: the operator's log says so when psycopg would block the loop."""
    _looked.append(True)
    if blocks_the_loop():
        logging.getLogger("referee.board").error(
            "psycopg was imported before gevent patched this process: each PostgreSQL call stops every other request "
            "until it returns, and one game's locked row stops every table (docs/development.md, \"Concurrency\")")


def off_the_loop(work: Callable[[], T]) -> T:
    """Run ``work`` (reads and writes of the store) as the model says: here on PostgreSQL, in gevent's thread pool
    on SQLite when the board serves on gevent (a write may wait up to SQLite's busy timeout for another uw-referee's
    lock: on the loop's own thread that would stop every page and stream). Without gevent (a plain WSGI server,
    tests) it runs here. The exception ``work`` raises is raised here (not printed by gevent's hub)."""
    if _on_postgresql():
        if not _looked:
            _say_if_blocking()
        return work()
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the board
        return work()
    if not monkey.is_module_patched("threading"):
        return work()
    import gevent

    def caught() -> tuple[bool, Any]:
        try:
            return True, work()
        except BaseException as exc:  # handed back to the greenlet that asked, which raises it
            return False, exc

    ok, value = gevent.get_hub().threadpool.apply(caught)
    if not ok:
        raise value
    answer: T = value
    return answer


class OffTheLoop:
    """The referee (or the seats' book), each of its calls made by ``off_the_loop`` on a connection of its own
    (closed after it: an SQLite connection belongs to the thread that opened it), after its game's turn at the gate
    when the request names a game (``/api/games/<game_id>/...``)."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    def call(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            try:
                return work(self.referee)
            finally:
                self.referee.store.close()

        game = request.view_args.get("game_id") if has_request_context() and request.view_args else None
        if not isinstance(game, int):
            return off_the_loop(run)
        with _gates.held(game, GAME_WAIT_S) as admitted:
            if not admitted:
                raise busy(getattr(self.referee.store, "path", "?"), GAME_WAIT_S)
            return off_the_loop(run)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def method(*args: Any, **kwargs: Any) -> Any:
            return self.call(lambda ref: getattr(ref, name)(*args, **kwargs))

        return method


def board_referee() -> Any:
    """The referee on the board's database, its dictionary opened once per process, called as the model says."""
    from referee import Referee
    from referee.store_pg import open_store

    rt = runtime(current_app)

    def dictionary() -> Any:
        if rt.dictionary is None:
            from dictionaries.dictionary import open_dictionary

            rt.dictionary = open_dictionary()
        return rt.dictionary

    return OffTheLoop(Referee(open_store(current_app.config["BOARD_DB"]), dictionary))
