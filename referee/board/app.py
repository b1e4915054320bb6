"""The board's Flask app factory: config from the environment, one blueprint, one error handler."""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from referee.board.source import BoardError, Watcher

#: gunicorn threads of the board's one worker: every open page holds one for its event stream.
THREADS = 64
#: Threads kept free for pages, the judge and the JSON view: streams beyond the rest get a 503
#: and the page retries (it still shows the game; it updates once a stream is free).
SPARE_THREADS = 8


@dataclass
class Runtime:
    """What the app keeps for its process: the change watcher and the open streams' budget."""

    watcher: Watcher
    streams: threading.BoundedSemaphore
    dictionary: Any = field(default=None)
    #: The last board each stream target rendered, by watcher version: ten pages of one game cost
    #: one render per commit, not ten.
    renders: dict[int | None, tuple[int, dict[str, str]]] = field(default_factory=dict)
    render_lock: threading.Lock = field(default_factory=threading.Lock)


def runtime(app: Flask) -> Runtime:
    rt: Runtime = app.extensions["board"]
    return rt


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The board app. ``UW_BOARD_DB`` (else ``UW_REFEREE_DB``, else the referee's default) names the
    database; ``UW_BOARD_GAME`` pins one game."""
    from referee.board.views import board
    from referee.store import default_db_path

    app = Flask(__name__)
    pinned = os.environ.get("UW_BOARD_GAME", "").strip()
    app.config.update(
        BOARD_DB=os.environ.get("UW_BOARD_DB") or str(default_db_path()),
        BOARD_GAME=int(pinned) if pinned.isdigit() else None,
        BOARD_STREAMS=int(os.environ.get("UW_BOARD_STREAMS") or THREADS - SPARE_THREADS),
        BOARD_STREAM_SECONDS=float(os.environ.get("UW_BOARD_STREAM_SECONDS") or 300),
        BOARD_KEEPALIVE_SECONDS=float(os.environ.get("UW_BOARD_KEEPALIVE_SECONDS") or 15),
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]  # the engine's order: phase, turn, players...
    if config:
        app.config.update(config)
    app.extensions["board"] = Runtime(Watcher(app.config["BOARD_DB"]),
                                      threading.BoundedSemaphore(max(1, app.config["BOARD_STREAMS"])))
    app.register_blueprint(board)
    app.register_error_handler(Exception, _error)
    return app


def _error(exc: Exception) -> Any:
    """Every error as a page in words (or problem+json under /api/), never a traceback."""
    if isinstance(exc, BoardError):
        from referee.board.views import sentence

        status, title, detail = exc.status, _TITLES.get(exc.status, "Error"), sentence(str(exc))
    elif isinstance(exc, HTTPException):
        status, title = exc.code or 500, exc.name
        detail = "There is no such page on the board." if exc.code == 404 else (exc.description or exc.name)
    else:
        from flask import current_app

        current_app.logger.exception("unexpected error")
        status, title, detail = 500, "Internal Server Error", "The board failed to show this page; the game is untouched."
    if request.path.startswith("/api/"):
        body = jsonify(type="about:blank", title=title, status=status, detail=detail)
        body.status_code = status
        body.mimetype = "application/problem+json"
        return body
    page = render_template("error.html", status=status, title=title, detail=detail)
    return Response(page, status=status, mimetype="text/html")


_TITLES = {404: "Not found", 400: "Bad request", 503: "The games cannot be read"}
