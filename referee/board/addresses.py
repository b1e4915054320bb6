"""The per-address limit on open connections behind a proxy (``UW_BOARD_PROXIES`` > 0, deploy/).

Without a proxy the gunicorn worker counts each socket's peer before reading a request (``server.worker_class``).
Behind nginx every socket's peer is nginx's 127.0.0.1: counted so, one replica would serve ``--max-per-address``
connections (100) in all. So behind a proxy the worker counts nothing and this WSGI middleware counts the open
requests (a live page's stream included, until it ends) of each forwarded address instead: the address
``ProxyFix`` gives ``REMOTE_ADDR``, the one the write limits count (``seats.client_address``).
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Connections one client address may hold at once, by default (``--max-per-address``; 0: no limit).
#: A browser opens at most 6 per host; 100 leaves room for a few browsers behind one address (a
#: household's router) and for ``wrk -c64`` on this machine (the benchmark).
PER_ADDRESS = 100

Start = Callable[..., Any]
Wsgi = Callable[[dict[str, Any], Start], Iterable[bytes]]


def refusal_text(limit: int) -> str:
    """What a request over the limit is told (before the app, so in English, as the worker's own refusal)."""
    return (f"This address already has {limit} connections open to the board, the most one address may "
            f"have (--max-per-address). Close some pages and try again.")


class AddressLimit:
    """At most ``limit`` requests open at once per ``REMOTE_ADDR`` (as the proxy fix set it); the ones over it are a
    503 (problem+json under /api/, else text) with ``Retry-After``, the app never called."""

    def __init__(self, app: Wsgi, limit: int) -> None:
        self.app, self.limit = app, limit
        self.open: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        address = str(environ.get("REMOTE_ADDR") or "?")
        with self.lock:
            count = self.open.get(address, 0)
            if count >= self.limit:
                return self._refuse(environ, start_response)
            self.open[address] = count + 1
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self._done(address)
            raise
        return _Counted(body, lambda: self._done(address))

    def _done(self, address: str) -> None:
        with self.lock:
            left = self.open.get(address, 1) - 1
            if left > 0:
                self.open[address] = left
            else:
                self.open.pop(address, None)

    def _refuse(self, environ: dict[str, Any], start_response: Start) -> list[bytes]:
        text = refusal_text(self.limit)
        if str(environ.get("PATH_INFO", "")).startswith("/api/"):
            body = json.dumps({"type": "urn:uw-referee:too-many-connections", "title": "Try again", "status": 503,
                               "detail": text}).encode()
            kind = "application/problem+json"
        else:
            body, kind = (text + "\n").encode(), "text/plain; charset=utf-8"
        start_response("503 Service Unavailable", [("Content-Type", kind), ("Content-Length", str(len(body))),
                                                   ("Retry-After", "5"), ("Content-Language", "en"),
                                                   ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
        return [body]


class _Counted:
    """The app's answer, that gives back its address's place when the server closes it (a stream: when it ends)."""

    def __init__(self, body: Iterable[bytes], done: Callable[[], None]) -> None:
        self.body, self.done, self.closed = body, done, False

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            if not self.closed:
                self.closed = True
                self.done()


__all__ = ["PER_ADDRESS", "AddressLimit", "refusal_text"]
