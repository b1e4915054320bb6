"""Peers of the word service for benchmarks/bench_service.py: the same look-up and score, by hand.

* ``bare_app``: a bare WSGI function (no framework at all);
* ``create_flask_peer()``: a plain Flask app with a Python ``set`` of legal words, the way a user
  would write it by hand.

Both answer ``GET /v1/words/<word>`` with ``{"word", "legal", "score"}`` and ``POST /v1/words``
with ``{"results": [...]}``. They know less than the service (no reasons, no levels, no ETag,
no validation beyond a-z), which is what makes them a fair lower bound on the cost of a look-up.

The floors of ``bench_service.py --floors`` are parts of the service alone, single GETs only:
``create_verdict_floor()`` (its verdict writer and headers, nothing around them) and
``create_lookup_floor()`` (its look-up, then one fixed verdict).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from flask import Flask, abort, jsonify, request

from dictionaries import DEFAULT_LEVEL, LEVELS, MAX_WORD_LETTERS
from dictionaries.deck import STANDARD
from dictionaries.dictionary import open_dictionary

POINTS = dict(STANDARD.points)
MIN_LETTERS = 3


@cache
def legal_words(level: int = DEFAULT_LEVEL) -> frozenset[str]:
    """Upper-case words playable at ``level``: what a hand-made word list would hold.

    Read once per process from the built dictionary (its key trie is private to dictionaries.dictionary,
    a peer may read it: it only needs the list).
    """
    dictionary = open_dictionary()
    code = LEVELS.index(level) + 1
    words = set()
    for key in dictionary._words.iterkeys():  # a peer only borrows the word list
        if MIN_LETTERS <= len(key) <= MAX_WORD_LETTERS and 0 < dictionary.word_code(key) <= code:
            word = key.upper()
            if STANDARD.can_spell(word):
                words.add(word)
    return frozenset(words)


def verdict(word: str, words: frozenset[str]) -> dict[str, Any]:
    """Look-up and score of one upper-case word."""
    return {"word": word, "legal": word in words, "score": sum(POINTS.get(c, 0) for c in word)}


def _clean(text: object) -> str | None:
    if isinstance(text, str) and text.isascii() and text.isalpha() and len(text) <= 64:
        return text.upper()
    return None


def bare_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """The bare WSGI peer."""
    words = legal_words()
    path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
    status, payload = "404 Not Found", {"error": "not found"}
    if path.startswith("/v1/words/") and method == "GET":
        word = _clean(path[len("/v1/words/"):])
        status, payload = ("200 OK", verdict(word, words)) if word else ("400 Bad Request", {"error": "bad word"})
    elif path == "/v1/words" and method == "POST":
        size = int(environ.get("CONTENT_LENGTH") or 0)
        try:
            data = json.loads(environ["wsgi.input"].read(size))
            cleaned = [_clean(w) for w in data["words"]]
            if None in cleaned or len(cleaned) > 1000:
                raise ValueError
            status, payload = "200 OK", {"results": [verdict(w, words) for w in cleaned]}
        except (ValueError, KeyError, TypeError):
            status, payload = "400 Bad Request", {"error": "bad body"}
    elif path == "/healthz":
        status, payload = "200 OK", {"status": "ok"}
    body = json.dumps(payload).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def create_flask_peer() -> Flask:
    """The hand-written Flask peer."""
    app = Flask(__name__)
    words = legal_words()

    @app.get("/v1/words/<word>")
    def one(word: str):
        cleaned = _clean(word)
        if cleaned is None:
            abort(400)
        return jsonify(verdict(cleaned, words))

    @app.post("/v1/words")
    def batch():
        data = request.get_json()
        cleaned = [_clean(w) for w in data["words"]]
        if None in cleaned or len(cleaned) > 1000:
            abort(400)
        return jsonify({"results": [verdict(w, words) for w in cleaned]})

    @app.get("/healthz")
    def healthz():
        return {"status": "ok"}

    return app


# -- floors: the service's own parts alone, for bench_service.py --floors ---------------------------

def create_verdict_floor() -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """The service's single-word verdict and nothing else: ``GET /v1/words/<word>`` answered by the service's
    own cached writer (``Verdicts.one``) with the service's headers, fixed (no ETag hashed, no file check, no
    language, no fast-path checks). What no trimming of the service's request path can go below."""
    from service.app import create_app

    one = create_app().extensions["word_service"].verdicts["en"].one
    return _floor(one)


def create_lookup_floor() -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """The dictionary's look-up alone: the word looked up in the service's marisa trie, then one fixed verdict
    (TAPS) with the service's headers. What the look-up costs in a live worker, the writer left out."""
    from service.app import create_app

    service = create_app().extensions["word_service"]
    get, body = service.dictionary._words.get, service.verdicts["en"].one("taps")  # a peer only borrows the trie

    def answer(word: str) -> bytes:
        get(word.lower().encode())
        return body

    return _floor(answer)


def _floor(answer: Callable[[str], bytes]) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """A WSGI app sending ``answer(word)`` for ``GET /v1/words/<word>`` with the nine headers the service sends
    (values fixed, of the same length), and ``{"status":"ok"}`` for any other path (the benchmark's health check)."""
    from service.app import COMMON_HEADERS
    from service.core import CACHE_CONTROL, VARY_LANGUAGE

    fixed = [("ETag", '"' + "0" * 24 + '"'), ("Cache-Control", CACHE_CONTROL), ("Content-Language", "en"),
             VARY_LANGUAGE, *COMMON_HEADERS]

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        body = answer(path[len("/v1/words/"):]) if path.startswith("/v1/words/") else b'{"status":"ok"}'
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *fixed])
        return [body]

    return app
