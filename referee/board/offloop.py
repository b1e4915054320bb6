"""The referee library as the players' views call it: each call made off gevent's event loop (in its
thread pool), on an SQLite or PostgreSQL connection of its own, so a write waiting for the database's
lock stops no other page or stream of the board.

The thread pool is the board's own, its threads kept when idle: gevent's default pool ends a thread after 5 s
idle and destroys its hub, and psycopg_pool (patched by gevent) binds its queue and worker "threads" to the hub
of the thread that opened it, so the first burst after an idle spell failed in the pool's growth with
``'NoneType' object has no attribute 'run_callback'``. (Running PostgreSQL's calls on the loop instead was
tried twice: under the load tests, requests then never answered.)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app

from referee.board.runtime import runtime

T = TypeVar("T")

_threads: Any = None  # the worker's thread pool (``_thread_pool``), made on first use after gevent's patch


def _thread_pool() -> Any:
    """gevent's thread pool of the default size whose threads never end idle (see the module: a thread that ends
    takes its hub, and a PostgreSQL pool opened in it, with it)."""
    global _threads
    if _threads is None:
        import gevent
        from gevent.threadpool import ThreadPool

        hub = gevent.get_hub()
        _threads = ThreadPool(hub.threadpool_size, hub=hub, idle_task_timeout=-1)
    return _threads


def off_the_loop(work: Callable[[], T]) -> T:
    """Run ``work`` (SQLite's reads and writes) in gevent's thread pool when the board serves on gevent.

    A write waits for the database's lock as long as another uw-referee holds it (SQLite's busy timeout,
    up to 10 s): on the event loop's own thread that wait would stop every page and stream of the board.
    In a thread of the pool only the request that writes waits. Without gevent (tests, a plain WSGI
    server) it runs here. The exception ``work`` raises is raised here (not printed by gevent's hub)."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the board
        return work()
    if not monkey.is_module_patched("threading"):
        return work()
    def caught() -> tuple[bool, Any]:
        try:
            return True, work()
        except BaseException as exc:  # handed back to the greenlet that asked, which raises it
            return False, exc

    ok, value = _thread_pool().apply(caught)
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
