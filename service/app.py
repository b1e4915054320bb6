"""The word service: a Flask application factory.

``create_app()`` reads defaults, then ``UW_*`` environment variables, then the mapping it is
given (tests). The built dictionary is opened once per worker process and memory-mapped, so
gunicorn workers share its pages. Every error is an RFC 9457 problem document; no HTML page or
traceback ever reaches a client.
"""
from __future__ import annotations

import json
import logging
import os
from typing import Any, Callable, Iterable, Mapping

from flask import Flask, Response, request
from flask.sessions import NullSession, SessionInterface
from werkzeug.exceptions import HTTPException

from dictionaries import DEFAULT_LEVEL, __version__
from dictionaries.deck import Deck, load_deck
from dictionaries.dictionary import level_code, open_dictionary
from dictionaries.errors import WordError
from service.api import api, fast_word_answer, root
from service.core import CACHE_CONTROL, WordService, json_response
from service.openapi import build_document

#: Largest request body accepted (a batch of 1,000 words fits easily).
MAX_BODY_BYTES = 64 * 1024
#: Configuration keys with their defaults; each can be set by an environment variable of the same name.
DEFAULTS: dict[str, Any] = {
    "UW_LEVEL": DEFAULT_LEVEL,   # default SCOWL size when a request names none
    "UW_DICTIONARY": None,       # directory of built dictionary files (None: the shipped data)
    "UW_DECK": "standard",       # standard, double, or a deck JSON file (see dictionaries.deck.load_deck)
}

log = logging.getLogger(__name__)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask application: defaults, then ``UW_*`` environment variables, then ``config``."""
    app = WordServiceFlask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES)
    for key in DEFAULTS:
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    if config:
        app.config.update(config)
    app.json.sort_keys = False  # keep the documented field order
    app.extensions["word_service"] = _word_service(app.config)

    app.extensions["openapi"] = build_document(app.extensions["word_service"].level)
    app.register_blueprint(api)
    app.register_blueprint(root)
    app.register_error_handler(Exception, problem_from_exception)
    app.wsgi_app = CommonHeaders(app.wsgi_app, fast_word_answer(app.extensions["word_service"]))  # type: ignore[method-assign]
    return app


class _NoSessions(SessionInterface):
    """The API sets no cookies: no session is ever read or saved."""

    _null = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:
        return self._null

    def save_session(self, app: Flask, session: Any, response: Response) -> None:  # pragma: no cover - never called
        return None


class WordServiceFlask(Flask):
    """Flask without sessions, whose automatic OPTIONS answer is a CORS preflight answer."""

    session_interface = _NoSessions()

    def make_default_options_response(self) -> Response:
        response = super().make_default_options_response()
        response.status_code = 204
        response.headers.pop("Content-Type", None)
        response.headers.extend((
            ("Access-Control-Allow-Methods", response.headers.get("Allow", "")),
            ("Access-Control-Allow-Headers", "Content-Type, If-None-Match"),
            ("Access-Control-Max-Age", "86400"),
        ))
        return response


#: Headers of every response: no MIME sniffing, and any origin may read it (the API holds no secrets).
COMMON_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", "ETag"),
)


class CommonHeaders:
    """WSGI middleware adding COMMON_HEADERS to every response, errors and 304s included.

    ``fast`` answers the hot request, a plain ``GET /v1/words/<letters>`` with no query string and
    no ``If-None-Match``, without Flask's request and response objects: the same judge and the
    same JSON writer as the view, and the same headers (tests/test_app.py compares the two
    answers). Anything else goes through Flask.
    """

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]],
                 fast: Callable[[str], tuple[bytes, str] | None] | None = None) -> None:
        self.wsgi_app = wsgi_app
        self.fast = fast

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if (self.fast is not None and environ.get("REQUEST_METHOD") == "GET" and not environ.get("QUERY_STRING")
                and "HTTP_IF_NONE_MATCH" not in environ):
            try:
                answer = self.fast(environ.get("PATH_INFO", ""))
            except Exception:  # noqa: BLE001 - Flask's path answers it, as a logged problem document
                answer = None
            if answer is not None:
                body, tag = answer
                start_response("200 OK", [
                    ("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                    ("ETag", f'"{tag}"'), ("Cache-Control", CACHE_CONTROL), *COMMON_HEADERS,
                ])
                return [body]

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.extend(COMMON_HEADERS)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def _word_service(config: Mapping[str, Any]) -> WordService:
    """Open the dictionary (once per process and path) and check the configuration."""
    try:
        level = int(config["UW_LEVEL"])
        level_code(level)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"UW_LEVEL={config['UW_LEVEL']!r} is not a SCOWL size: {exc}") from None
    path = config["UW_DICTIONARY"]
    # lru_cache keys open_dictionary() and open_dictionary(None) apart: call it as everyone else does.
    dictionary = open_dictionary(str(path)) if path else open_dictionary()
    deck_spec = config["UW_DECK"]
    deck = deck_spec if isinstance(deck_spec, Deck) else load_deck(str(deck_spec))
    seed = json.dumps(
        [__version__, dictionary.checksum, level, deck.name, deck.table()], separators=(",", ":")
    ).encode()
    return WordService(dictionary, deck, level, seed)


#: Problem types of bad input (RFC 9457 ``type``); HTTP-level errors use ``about:blank``.
PROBLEM_TYPES: dict[str, str] = {
    "InvalidWord": "urn:unspeakable-words:problem:invalid-word",
    "InvalidLevel": "urn:unspeakable-words:problem:invalid-level",
    "InvalidRack": "urn:unspeakable-words:problem:invalid-rack",
    "InvalidRequest": "urn:unspeakable-words:problem:invalid-request",
}
_TITLES = {
    "InvalidWord": "Invalid word",
    "InvalidLevel": "Invalid level",
    "InvalidRack": "Invalid rack",
    "InvalidRequest": "Invalid request",
}


def problem(status: int, title: str, detail: str, type_: str = "about:blank",
            headers: Mapping[str, str] | None = None) -> Response:
    """An ``application/problem+json`` response."""
    response = json_response({"type": type_, "title": title, "status": status, "detail": detail},
                             status, "application/problem+json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def problem_from_exception(exc: Exception) -> Response:
    """The one error handler: bad input is a 400, HTTP errors keep their status, anything else a 500."""
    if isinstance(exc, WordError):
        kind = type(exc).__name__ if type(exc).__name__ in PROBLEM_TYPES else "InvalidRequest"
        return problem(400, _TITLES[kind], str(exc), PROBLEM_TYPES[kind])
    if isinstance(exc, HTTPException) and exc.code is not None:
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        detail = exc.description or exc.name
        return problem(exc.code, exc.name, detail, headers=headers)
    log.exception("unhandled error on %s %s", request.method, request.path)
    return problem(500, "Internal Server Error",
                   "The server failed to answer this request; the error has been logged.")
