"""The board's Flask app factory: config from the environment, one blueprint, one error handler."""
from __future__ import annotations

import os
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from dictionaries.i18n import _, message_of, say
from referee.board import language
from referee.board.addresses import PER_ADDRESS, AddressLimit, Forwarded, trusted_networks
from referee.board.runtime import MAX_VIEWERS, Runtime
from referee.board.source import BoardError, sentence
from referee.board.views import board, make_render
from referee.settings import env_float, env_int

#: The largest request body the board reads (a table's start, an action: a few hundred bytes), in bytes.
MAX_BODY = 64 * 1024
#: What a page may load and who may frame it: its own scripts, styles and streams only; no inline
#: script, no other origin. ``frame-ancestors`` is relaxed by ``--embed`` (a stream overlay frames it).
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors {frames}")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The board app. ``UW_BOARD_DB`` (else ``UW_REFEREE_DB``, else the referee's default) names the
    database; ``UW_BOARD_GAME`` pins one game; ``UW_BOARD_STREAMS`` is the most live pages at once;
    ``UW_BOARD_EMBED=1`` lets other sites frame the board (a stream overlay); ``UW_BOARD_PROXIES`` names the proxies' addresses or
    networks whose ``X-Forwarded-For``/``-Proto`` are believed (behind one nginx: ``127.0.0.1``; a count is refused,
    ``referee.board.addresses``), so that the per-address limits count the players' addresses, not the proxy's (``UW_BOARD_PER_ADDRESS`` open requests per address among them). ``UW_BOARD_HOSTED=1`` hosts tables (``referee.board.hosted``; implies
    the players' side), keeping finished games ``UW_BOARD_KEEP_DAYS`` days (30)."""
    from referee.retention import KEEP_DAYS
    from referee.store import default_db_path

    app = Flask(__name__)
    pinned = os.environ.get("UW_BOARD_GAME", "").strip()
    app.config.update(
        BOARD_DB=os.environ.get("UW_BOARD_DB") or str(default_db_path()),
        BOARD_GAME=int(pinned) if pinned.isascii() and pinned.isdigit() else None,
        BOARD_STREAMS=env_int("UW_BOARD_STREAMS", MAX_VIEWERS),
        BOARD_EMBED=os.environ.get("UW_BOARD_EMBED", "") == "1",
        BOARD_STREAM_SECONDS=env_float("UW_BOARD_STREAM_SECONDS", 300.0, low=0.01),
        BOARD_KEEPALIVE_SECONDS=env_float("UW_BOARD_KEEPALIVE_SECONDS", 15.0, low=0.01),
        BOARD_PLAYERS=os.environ.get("UW_BOARD_PLAYERS", "") == "1",
        BOARD_HOST_SECRET=os.environ.get("UW_BOARD_HOST_SECRET") or None,
        BOARD_PUBLIC_URL=os.environ.get("UW_BOARD_PUBLIC_URL") or None,
        BOARD_HOST_LANG=os.environ.get("UW_BOARD_HOST_LANG") or None,
        BOARD_PROXIES=os.environ.get("UW_BOARD_PROXIES") or "",
        BOARD_PER_ADDRESS=env_int("UW_BOARD_PER_ADDRESS", PER_ADDRESS),
        BOARD_HOSTED=os.environ.get("UW_BOARD_HOSTED", "") == "1",
        BOARD_KEEP_DAYS=env_float("UW_BOARD_KEEP_DAYS", KEEP_DAYS, low=0.0, high=36500),
        MAX_CONTENT_LENGTH=MAX_BODY,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]  # the engine's order: phase, turn, players...
    if config:
        app.config.update(config)
    networks = trusted_networks(str(app.config["BOARD_PROXIES"] or ""))  # a count (``1``): ProxiesError
    if networks:
        inner = app.wsgi_app
        if app.config["BOARD_PER_ADDRESS"] > 0:  # the worker does not count the proxy: count each forwarded address
            inner = AddressLimit(inner, app.config["BOARD_PER_ADDRESS"])
        app.wsgi_app = Forwarded(inner, networks)  # type: ignore[method-assign]
    app.extensions["board"] = Runtime(app.config["BOARD_DB"], app.config["BOARD_STREAMS"], make_render(app),
                                      app.config.get("BOARD_POLL_SECONDS"))
    language.install(app)
    app.before_request(_late_body)
    app.register_blueprint(board)
    from referee.board import records  # the table's history: a finished game's chart, the records

    records.install(app)
    if app.config["BOARD_PLAYERS"] or app.config["BOARD_HOSTED"]:  # phones may play (--players); else it only reads
        from referee.board import players

        players.install(app)
    if app.config["BOARD_HOSTED"]:  # anyone starts a table; each game answers only with its code (--hosted)
        from referee.board import hosted

        app.config["BOARD_PLAYERS"] = True
        hosted.install(app)
    app.after_request(_secure)
    app.register_error_handler(Exception, _error)
    return app


def _late_body() -> None:
    """A request whose body did not arrive within its deadline (``referee.board.deadlines``): 408, nothing done."""
    from werkzeug.exceptions import RequestTimeout

    from referee.board.deadlines import LATE

    if LATE in request.environ:
        raise RequestTimeout()


def _secure(response: Response) -> Response:
    """Every answer: what a page may load and who may frame it, no type sniffing, no referrer sent
    elsewhere; live answers (pages, streams, JSON) are never stored by a cache."""
    from flask import current_app

    embed = current_app.config.get("BOARD_EMBED", False)
    headers = response.headers
    headers["Content-Security-Policy"] = CSP.format(frames="*" if embed else "'none'")
    if not embed:
        headers["X-Frame-Options"] = "DENY"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    if request.endpoint != "static":
        headers["Cache-Control"] = "no-store"
    return response


def _error(exc: Exception) -> Any:
    """Every error as a page in words (or problem+json under /api/), never a traceback, in the
    request's language."""
    if isinstance(exc, BoardError):
        status, detail = exc.status, sentence(say(message_of(exc)))
    elif isinstance(exc, HTTPException):
        status = exc.code or 500
        if status == 404:
            detail = _("There is no such page on the board.")
        elif status == 413:
            detail = _("This request is too large for the board (at most {size} kB).").format(size=MAX_BODY // 1024)
        elif status == 408:
            from referee.board.deadlines import LATE

            detail = _("The request's body arrived too slowly: it must arrive within {seconds} seconds.").format(
                seconds=f"{float(request.environ.get(LATE, 0)):g}")
        elif status == 405:
            detail = _("The board can only be read: it takes no {method} requests.").format(method=request.method)
        else:
            detail = _("The board cannot answer this request (HTTP status {status}).").format(status=status)
    else:
        from flask import current_app

        current_app.logger.exception("unexpected error")
        status, detail = 500, _("The board failed to show this page; the game is untouched.")
    title = _title(status)
    allowed = getattr(exc, "valid_methods", None) if status == 405 else None
    if request.path.startswith("/api/"):
        body = jsonify(type="about:blank", title=title, status=status, detail=detail)
        body.status_code = status
        body.mimetype = "application/problem+json"
        if allowed:
            body.headers["Allow"] = ", ".join(sorted(allowed))
        return body
    page = render_template("error.html", status=status, title=title, detail=detail)
    answer = Response(page, status=status, mimetype="text/html")
    if allowed:
        answer.headers["Allow"] = ", ".join(sorted(allowed))
    return answer


def _title(status: int) -> str:
    titles = {400: _("Bad request"), 404: _("Not found"), 405: _("Method not allowed"), 408: _("Too slow"),
              413: _("Too large"),
              500: _("Internal server error"), 503: _("The games cannot be read")}
    return titles.get(status, _("Error"))
