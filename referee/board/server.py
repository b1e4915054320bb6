"""gunicorn serving the board app, on the word service's model: gevent workers, never a debug server.

Why gevent: every open page holds its event stream for minutes. gunicorn's sync and gthread
workers give each open request a process or a thread for as long as it lasts, so the number of
threads was the number of viewers (56), and clients that sent half a request or never read held
them all. A gevent worker serves each connection on a greenlet of one thread: a viewer costs a
connection and a few tens of kB, so the limit on viewers is memory (``--max-viewers``, 2,000 by
default), and:

- the head of each request (request line and headers) must arrive within ``keepalive`` = 5 s
  (gunicorn times the head read of its async workers with it; it is also how long an idle
  kept-alive connection stays open);
- a connection that cannot be written to for ``SEND_SECONDS`` (a viewer that never reads) is closed;
- a request's whole body must arrive within ``UW_BOARD_BODY_SECONDS`` (10 s), else 408 and the connection is
  closed (``referee.board.deadlines``);
- one client address holds at most ``--max-per-address`` connections at once (100 by default):
  one device cannot take every connection. The ones over it get a 503 naming the limit. Behind a proxy
  (``UW_BOARD_PROXIES``) the app counts the forwarded address instead (``referee.board.addresses``);
- after each answer a connection steps aside until the event loop has polled again (as the word
  service does: without it a kept-alive client whose next request is waiting is served again and
  again before the others, and page p99 under ``wrk -c64`` reached a second).

One process: one change watcher, one render per commit, one memory-mapped dictionary. The master never imports
psycopg (it reads the current game in a child of its own, ``referee.board.cli``): the worker's first import of it
comes after gevent's patch, so psycopg's waits yield to gevent's loop (docs/development.md, "Concurrency"). The
worker makes its own PostgreSQL pool and closes it when it stops (``_worker_exit``), so nothing of it is left for
the interpreter's finalisation (where a pool or connection that finishes late meets a greenlet already gone).
"""
from __future__ import annotations

import os
import signal
import socket
from typing import Any

from gunicorn.app.base import BaseApplication

from referee.board.addresses import PER_ADDRESS, is_trusted, refusal_text, trusted_networks
from referee.board.runtime import MAX_VIEWERS, runtime
from referee.settings import env_float, env_int

#: Seconds a write to a client may wait for it to read, and a read for it to send, before the
#: connection is closed (``UW_BOARD_SEND_SECONDS`` changes it).
SEND_SECONDS = 30
#: Bytes the kernel keeps for a connection's unsent answers (its send buffer; Linux doubles it). Left to autotune,
#: a viewer that never read held its stream while megabytes of boards piled up unsent, for as long as a quiet game
#: took to fill them; with this, a few dozen boards fill it and ``SEND_SECONDS`` later the viewer is dropped.
SEND_BUFFER = 64 * 1024
#: Seconds for a request's head to arrive, and for an idle kept-alive connection to stay open.
HEAD_SECONDS = 5
#: Connections beyond the live pages: page requests, the judge, the JSON view, the ones refused.
SPARE_CONNECTIONS = 500


def _stop_streams(worker: Any) -> None:
    """Wake every event stream so it ends: Ctrl-C then stops at once instead of after a grace period."""
    app = getattr(worker, "wsgi", None)
    if app is not None and hasattr(app, "extensions"):
        runtime(app).watcher.stop()


def _worker_int(worker: Any) -> None:  # SIGINT / SIGQUIT in the worker (Ctrl-C reaches every process)
    _stop_streams(worker)


def _post_worker_init(worker: Any) -> None:
    """SIGTERM (a graceful stop) also ends the streams, then lets gunicorn finish as usual."""
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(sig: int, frame: Any) -> None:
        _stop_streams(worker)
        if callable(previous):
            previous(sig, frame)

    signal.signal(signal.SIGTERM, on_term)


def _worker_exit(_server: Any, worker: Any) -> None:
    """The worker stops: its change watcher and its PostgreSQL pools closed now, on its loop (see the module)."""
    _stop_streams(worker)
    app = getattr(worker, "wsgi", None)
    join = getattr(runtime(app).watcher, "join", None) if app is not None and hasattr(app, "extensions") else None
    if join is not None:
        join(1.0)
    from referee.store_pg import close_pools

    close_pools(timeout=1.0)


def _post_request(_worker: Any, _req: Any, _environ: Any, _resp: Any) -> None:
    """Yield to the other connections after each answer, until the event loop has polled again."""
    import gevent

    gevent.sleep(1e-6)


def refusal(limit: int) -> bytes:
    """The whole answer to a connection over the per-address limit (sent before its request is read,
    so in English: its Accept-Language is not known yet)."""
    body = (refusal_text(limit) + "\n").encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\nContent-Language: en\r\nX-Content-Type-Options: nosniff\r\n"
            b"Cache-Control: no-store\r\n" + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def worker_class() -> type:
    """gunicorn's gevent worker, with a cap on each address's connections and a time limit on writes.

    Built when the server starts: gevent is imported only by a board that serves (it patches the
    standard library in the worker process)."""
    from gunicorn.workers.base_async import AsyncWorker
    from gunicorn.workers.ggevent import GeventWorker

    class BoardWorker(GeventWorker):
        """Counts each address's open connections; refuses the ones over ``UW_BOARD_PER_ADDRESS``."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.per_address = env_int("UW_BOARD_PER_ADDRESS", PER_ADDRESS)
            # a trusted proxy's connections are not counted here: the app counts its forwarded addresses instead
            self.proxies = trusted_networks(os.environ.get("UW_BOARD_PROXIES") or "")
            self.open: dict[Any, int] = {}
            self.send_seconds = env_float("UW_BOARD_SEND_SECONDS", SEND_SECONDS, low=0.01)

        def handle_quit(self, _sig: int, _frame: Any) -> None:
            """Ctrl-C (SIGINT) or SIGQUIT: stop as SIGTERM does, the streams ended first. gunicorn's own
            ends the worker with ``sys.exit`` from a greenlet, which gevent reports as a traceback."""
            import gevent

            self.alive = False
            gevent.spawn(self.cfg.worker_int, self)

        def handle(self, listener: Any, client: Any, addr: Any) -> None:
            host = addr[0] if isinstance(addr, tuple) and addr else addr
            count = self.open.get(host, 0)
            if self.per_address and count >= self.per_address and not is_trusted(str(host), self.proxies):
                try:
                    client.settimeout(1)
                    client.sendall(refusal(self.per_address))
                    client.shutdown(socket.SHUT_WR)
                    while client.recv(65536):  # read what it sent, so closing does not reset the answer away
                        pass
                except OSError:
                    pass
                finally:
                    client.close()
                return
            self.open[host] = count + 1
            try:
                client.settimeout(self.send_seconds)  # gunicorn makes it blocking; a reader that never reads is cut off
                client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
                AsyncWorker.handle(self, listener, client, addr)
            finally:
                left = self.open[host] - 1
                if left:
                    self.open[host] = left
                else:
                    del self.open[host]

    return BoardWorker


class BoardServer(BaseApplication):
    """The board app under gunicorn, configured here rather than from a file."""

    def __init__(self, bind: str, log_level: str = "warning", viewers: int = MAX_VIEWERS) -> None:
        self.options = {
            "bind": bind,
            "workers": 1,
            "worker_class": worker_class(),
            "worker_connections": viewers + SPARE_CONNECTIONS,
            "keepalive": HEAD_SECONDS,
            "timeout": 30,
            "graceful_timeout": 3,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": log_level,
            "control_socket_disable": True,
            "worker_int": _worker_int,
            "post_worker_init": _post_worker_init,
            "worker_exit": _worker_exit,
            "post_request": _post_request,
            "limit_request_line": 4096,
            "limit_request_fields": 50,
            "limit_request_field_size": 8190,
            "backlog": 2048,
            "proc_name": "uw-referee-board",
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Any:
        from referee.board.app import MAX_BODY, create_app
        from referee.board.deadlines import BodyDeadline, body_seconds

        app = create_app()
        app.wsgi_app = BodyDeadline(app.wsgi_app, body_seconds(), MAX_BODY)  # type: ignore[method-assign]  # 408
        return app


__all__ = ["PER_ADDRESS", "BoardServer", "refusal", "worker_class"]
