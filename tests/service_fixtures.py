"""Helpers of the word service tests: the fixed test configuration and WSGI helpers (the fixtures
``app`` and ``client`` are in conftest.py)."""
from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from flask import Flask

from service.app import COMMON_HEADERS

#: A fixed configuration, whatever UW_* variables the developer's shell holds.
TEST_CONFIG = {"UW_LEVEL": 60, "UW_DICTIONARY": None, "UW_DECK": "standard"}


def get_environ(path: str, **headers: str) -> dict[str, Any]:
    """A WSGI environ for a plain ``GET path`` with the given ``HTTP_*`` headers."""
    return {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "t", "SERVER_PORT": "80",
            "wsgi.url_scheme": "http", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.input": io.BytesIO(),
            "wsgi.errors": io.StringIO(), **headers}


def fast_and_flask(app: Flask, environ: dict[str, Any]) -> list[tuple[str, bytes, list[tuple[str, str]]]]:
    """(status, body, sorted headers) of ``environ`` answered by the middleware's fast path, then by
    Flask alone; the Flask answer's headers include the ones the middleware adds to every answer."""
    answers = []
    for wsgi in (app.wsgi_app, app.wsgi_app.wsgi_app):  # type: ignore[attr-defined]  # CommonHeaders keeps Flask's callable as wsgi_app
        seen: dict[str, Any] = {}

        def start(status: str, headers: list[tuple[str, str]], _exc_info: object = None) -> Callable[[bytes], object]:
            seen["status"], seen["headers"] = status, headers  # noqa: B023 - called within this iteration
            return lambda _data: None  # WSGI's write(): never called by these answers

        body = b"".join(wsgi(dict(environ), start))
        answers.append((seen["status"], body, list(seen["headers"])))
    (fast_status, fast_body, fast_headers), (status, body, headers) = answers
    return [(fast_status, fast_body, sorted(fast_headers)), (status, body, sorted(headers + list(COMMON_HEADERS)))]
