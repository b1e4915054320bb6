"""The referee library as the players' views call it: each SQLite call made off gevent's event loop (in its
thread pool), on a connection of its own, so a write waiting for the database's lock stops no other page or
stream of the board. A PostgreSQL call stays on the loop: psycopg's waits yield to it (``store_pg.cooperate``),
and psycopg_pool, patched by gevent, is a thing of one thread (its queue, locks and worker "threads" belong to
the hub of the thread that opened it: opened in a thread of gevent's pool, which ends after 5 s idle and
destroys its hub, the pool's next growth failed with ``'NoneType' object has no attribute 'run_callback'``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app, has_app_context

from referee.board.runtime import runtime
from referee.store_pg import is_database_url

T = TypeVar("T")


def off_the_loop(work: Callable[[], T]) -> T:
    """Run ``work`` (SQLite's reads and writes) in gevent's thread pool when the board serves on gevent.

    A write waits for the database's lock as long as another uw-referee holds it (SQLite's busy timeout,
    up to 10 s): on the event loop's own thread that wait would stop every page and stream of the board.
    In a thread of the pool only the request that writes waits. Without gevent (tests, a plain WSGI
    server) it runs here, and so does a PostgreSQL board's (see the module). The exception ``work`` raises is
    raised here (not printed by gevent's hub)."""
    if has_app_context() and is_database_url(str(current_app.config.get("BOARD_DB", ""))):
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
    """The referee, each of its calls made by ``off_the_loop`` on a connection of its own (closed after it:
    an SQLite connection belongs to the thread that opened it)."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    def call(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            try:
                return work(self.referee)
            finally:
                self.referee.store.close()

        return off_the_loop(run)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def method(*args: Any, **kwargs: Any) -> Any:
            return self.call(lambda ref: getattr(ref, name)(*args, **kwargs))

        return method


def board_referee() -> Any:
    """The referee on the board's database, its dictionary opened once per process, called off the loop."""
    from referee import Referee
    from referee.store_pg import open_store

    rt = runtime(current_app)

    def dictionary() -> Any:
        if rt.dictionary is None:
            from dictionaries.dictionary import open_dictionary

            rt.dictionary = open_dictionary()
        return rt.dictionary

    return OffTheLoop(Referee(open_store(current_app.config["BOARD_DB"]), dictionary))
