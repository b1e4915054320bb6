"""The word service: a Flask application factory.

``create_app()`` reads defaults, then ``UW_*`` environment variables, then the mapping it is
given (tests). The built dictionary is opened once per worker process and memory-mapped, so
gunicorn workers share its pages. Every error is an RFC 9457 problem document; no HTML page or
traceback ever reaches a client. A problem's ``title`` and ``detail`` are in the request's language
(Accept-Language: English or Spanish); its ``type`` and ``status`` never change.
"""
from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from flask import Flask, Response, request
from flask.sessions import NullSession, SessionInterface
from werkzeug.exceptions import HTTPException

from dictionaries import DEFAULT_LEVEL
from dictionaries.deck import BUILT_IN, Deck, load_deck
from dictionaries.dictionary import level_code, open_dictionary
from dictionaries.errors import WordError
from dictionaries.i18n import _, choose_language, language, message_of, msg, say_in, set_language
from service.answers import fast_answer, verdict_writers
from service.api import api, root
from service.core import (
    MAX_BODY_BYTES,
    DictionaryDamaged,
    WordService,
    json_response,
    language_headers,
    request_language,
)
from service.openapi import build_document
from unspeakable_words import __version__

#: Configuration keys with their defaults; each can be set by an environment variable of the same name.
DEFAULTS: dict[str, Any] = {
    "UW_LEVEL": DEFAULT_LEVEL,   # default SCOWL size when a request names none
    "UW_DECK": "standard",       # standard, double, or a deck JSON file (see dictionaries.deck.load_deck)
}
#: Set only by the mapping given to create_app (tests): a directory of built dictionary files.
#: None opens dictionaries.dictionary.default_path(), the one reader of ``UW_DICTIONARY``.
DICTIONARY_KEY = "UW_DICTIONARY"

log = logging.getLogger(__name__)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask application: defaults, then ``UW_*`` environment variables, then ``config``."""
    app = WordServiceFlask(__name__)
    app.config.update(DEFAULTS)
    app.config.update({DICTIONARY_KEY: None, "MAX_CONTENT_LENGTH": MAX_BODY_BYTES})
    for key in DEFAULTS:
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    if config:
        app.config.update(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # DefaultJSONProvider has it; keep the documented field order
    app.extensions["word_service"] = _word_service(app.config)

    app.extensions["openapi"] = build_document(app.extensions["word_service"])
    app.register_blueprint(api)
    app.register_blueprint(root)
    app.before_request(speak_the_request_language)
    app.register_error_handler(Exception, problem_from_exception)
    app.wsgi_app = CommonHeaders(app.wsgi_app, fast_answer(app.extensions["word_service"]))  # type: ignore[method-assign]  # the middleware wraps Flask's WSGI callable, as Flask's docs show
    return app


def speak_the_request_language() -> None:
    """Every sentence of this request is said in its language (Accept-Language; English by default)."""
    set_language(request_language(request.environ))


class _NoSessions(SessionInterface):
    """The API sets no cookies: no session is ever read or saved."""

    _null = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:  # noqa: ARG002 - Flask's SessionInterface
        return self._null

    def save_session(self, app: Flask, session: Any, response: Response) -> None:  # noqa: ARG002 - Flask's SessionInterface; never called
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
            ("Access-Control-Allow-Headers", "Content-Type, If-None-Match, Accept-Language"),
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

    ``fast`` answers the hot requests, ``GET /healthz`` and a plain ``GET /v1/words/<letters>``
    with no query string (304s included), without Flask's request and response objects: it calls
    the views' own answer functions, ``service.answers.word_answer`` and ``health_answer``
    (tests/test_app.py compares the answers).
    Anything else, and anything the fast path fails on, goes through Flask.
    """

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]],
                 fast: Callable[[dict[str, Any]], tuple[str, list[tuple[str, str]], bytes] | None] | None = None) -> None:
        self.wsgi_app = wsgi_app
        self.fast = fast

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.fast is not None and environ.get("REQUEST_METHOD") == "GET":
            try:
                answer = self.fast(environ)
            except Exception:  # Flask's path answers it, as a logged problem document
                answer = None
            if answer is not None:
                status, headers, body = answer
                headers.extend(COMMON_HEADERS)
                start_response(status, headers)
                return [body]

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.extend(COMMON_HEADERS)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def _word_service(config: Mapping[str, Any]) -> WordService:
    """Open the dictionary (once per process and path) and check the configuration.

    A configuration error is said in the operator's language (UW_LANG, else the locale)."""
    try:
        level = int(config["UW_LEVEL"])
        level_code(level)
    except (TypeError, ValueError) as exc:
        operator = choose_language()
        raise ValueError(say_in(msg("UW_LEVEL={value} is not a SCOWL size: {error}", value=repr(config["UW_LEVEL"]),
                                    error=say_in(message_of(exc), operator)), operator)) from None
    dictionary = open_dictionary(config.get(DICTIONARY_KEY) or None)
    dictionary.verify()  # a server verifies every checksum at its start, even if this process did before
    deck_spec = config["UW_DECK"]
    deck = deck_spec if isinstance(deck_spec, Deck) else load_deck(str(deck_spec))
    if deck.name in BUILT_IN and deck != BUILT_IN[deck.name]:
        raise ValueError(say_in(msg("UW_DECK={value}: a deck file may not be named like the built-in {name} deck; rename it",
                                    value=repr(deck_spec), name=deck.name), choose_language()))
    decks = {**BUILT_IN, deck.name: deck}
    seed = json.dumps(
        [__version__, dictionary.checksum, level, [[d.name, d.table()] for d in decks.values()], deck.name],
        separators=(",", ":"),
    ).encode()
    service = WordService(dictionary, deck, decks, level, seed, verdict_writers(dictionary, decks, level, deck.name))
    service.verified()
    return service


#: Problem types of bad input (RFC 9457 ``type``); HTTP-level errors use ``about:blank``.
PROBLEM_TYPES: dict[str, str] = {
    "InvalidWord": "urn:unspeakable-words:problem:invalid-word",
    "InvalidLevel": "urn:unspeakable-words:problem:invalid-level",
    "InvalidRack": "urn:unspeakable-words:problem:invalid-rack",
    "InvalidDeck": "urn:unspeakable-words:problem:invalid-deck",
    "InvalidRequest": "urn:unspeakable-words:problem:invalid-request",
}


@cache
def _titles(language_code: str) -> dict[str, str]:  # noqa: ARG001 - the cache's key
    """The titles of the bad-input problems, in the language in use (``language_code`` keys the cache)."""
    return {
        "InvalidWord": _("Invalid word"),
        "InvalidLevel": _("Invalid level"),
        "InvalidRack": _("Invalid rack"),
        "InvalidDeck": _("Invalid deck"),
        "InvalidRequest": _("Invalid request"),
    }


@cache
def _http_titles(language_code: str) -> dict[int, str]:  # noqa: ARG001 - the cache's key
    """The titles of HTTP errors, in the language in use: the English ones are HTTP's own reason
    phrases as werkzeug and gunicorn write them."""
    return {
        400: _("Bad Request"), 401: _("Unauthorized"), 403: _("Forbidden"), 404: _("Not Found"),
        405: _("Method Not Allowed"), 406: _("Not Acceptable"), 408: _("Request Timeout"), 409: _("Conflict"),
        410: _("Gone"), 411: _("Length Required"), 412: _("Precondition Failed"),
        413: _("Request Entity Too Large"), 414: _("Request URI Too Large"), 415: _("Unsupported Media Type"),
        416: _("Requested Range Not Satisfiable"), 417: _("Expectation Failed"), 418: _("I'm a teapot"),
        421: _("Misdirected Request"), 422: _("Unprocessable Entity"), 423: _("Locked"),
        424: _("Failed Dependency"), 428: _("Precondition Required"), 429: _("Too Many Requests"),
        431: _("Request Header Fields Too Large"), 451: _("Unavailable For Legal Reasons"),
        500: _("Internal Server Error"), 501: _("Not Implemented"), 502: _("Bad Gateway"),
        503: _("Service Unavailable"), 504: _("Gateway Timeout"), 505: _("HTTP Version Not Supported"),
    }


def _http_detail(exc: HTTPException) -> str:
    """The detail of an HTTP error: the one the service gave it (already in the request's
    language), else the service's own sentence for its status (werkzeug's are English only)."""
    if exc.__dict__.get("description"):
        return str(exc.description)
    code = exc.code
    if code == 404:
        return _("There is nothing at this path; /openapi.json lists the paths of this service.")
    if code == 405:
        return _("This path does not answer a {method} request; the Allow header lists the methods it answers.").format(
            method=request.method)
    if code == 413:
        return _("The body is too large for this service.")
    if code == 400:
        return _("The server could not understand this request.")
    return _("The server cannot answer this request (HTTP status {status}).").format(status=code)


def problem(status: int, title: str, detail: str, type_: str = "about:blank",
            headers: Mapping[str, str] | None = None) -> Response:
    """An ``application/problem+json`` response, its title and detail in the language in use
    (Content-Language says which; Vary says it follows Accept-Language)."""
    response = json_response({"type": type_, "title": title, "status": status, "detail": detail},
                             status, "application/problem+json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    response.headers.extend(language_headers(language()))
    return response


def problem_from_exception(exc: Exception) -> Response:
    """The one error handler: bad input is a 400, a damaged dictionary a 503, HTTP errors keep
    their status, anything else a 500; each in the request's language."""
    set_language(request_language(request.environ))  # an error may come before the request's hooks ran
    if isinstance(exc, WordError):
        kind = type(exc).__name__ if type(exc).__name__ in PROBLEM_TYPES else "InvalidRequest"
        return problem(400, _titles(language())[kind], say_in(message_of(exc), language()), PROBLEM_TYPES[kind])
    if isinstance(exc, DictionaryDamaged):
        log.error("refusing to answer from a damaged dictionary: %s", exc)
        return problem(503, _http_titles(language())[503],
                       _("The word list on the server no longer matches its checksums; its operator must restore it."),
                       headers={"Cache-Control": "no-store"})
    if isinstance(exc, HTTPException) and exc.code is not None:
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        title = _http_titles(language()).get(exc.code) or _("HTTP error {status}").format(status=exc.code)
        return problem(exc.code, title, _http_detail(exc), headers=headers)
    log.exception("unhandled error on %s %s", request.method, request.path)
    return problem(500, _http_titles(language())[500],
                   _("The server failed to answer this request; the error has been logged."))
