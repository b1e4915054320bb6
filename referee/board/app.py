"""The board's Flask app factory: config from the environment, one blueprint, one error handler."""
from __future__ import annotations

import os
import threading
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from referee.board.runtime import SPARE_THREADS, THREADS, Runtime
from referee.board.source import BoardError, Watcher, sentence
from referee.board.views import board


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The board app. ``UW_BOARD_DB`` (else ``UW_REFEREE_DB``, else the referee's default) names the
    database; ``UW_BOARD_GAME`` pins one game."""
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
