"""gunicorn serving the board app: one worker process with threads, never a debug server.

Why one gthread worker with many threads: every open page holds its event stream, and gunicorn's
sync and gthread workers give each open request a worker or a thread for as long as it lasts. A
board does little work (a page, a render after each commit), so threads, not processes, are what
the streams need: 64 threads serve 56 open pages and keep 8 for pages, the judge and the JSON view.
One process also means one change watcher and one memory-mapped dictionary. The streams sleep on
a condition between commits, so idle threads cost nothing but their stacks.
"""
from __future__ import annotations

import signal
from typing import Any

from gunicorn.app.base import BaseApplication

from referee.board.runtime import SPARE_THREADS, THREADS, runtime


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


class BoardServer(BaseApplication):
    """The board app under gunicorn, configured here rather than from a file."""

    def __init__(self, bind: str, log_level: str = "warning") -> None:
        self.options = {
            "bind": bind,
            "workers": 1,
            "worker_class": "gthread",
            "threads": THREADS,
            "keepalive": 5,
            "timeout": 30,
            "graceful_timeout": 3,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": log_level,
            "control_socket_disable": True,
            "worker_int": _worker_int,
            "post_worker_init": _post_worker_init,
            "limit_request_line": 4096,
            "proc_name": "uw-referee-board",
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Any:
        from referee.board.app import create_app

        return create_app()


__all__ = ["SPARE_THREADS", "THREADS", "BoardServer"]
