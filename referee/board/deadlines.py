"""The deadline on a request's body when the board is served (gunicorn's gevent worker, ``referee.board.server``).

gunicorn times the head of a request (``keepalive``) and each read of the socket (``SEND_SECONDS``), but not the
body as a whole: a client that sent one byte every 20 s held its request open for as long as it liked (one was
still open after 90 s). Here the whole body (at most ``MAX_BODY`` bytes, the most the board reads) must arrive
within ``BODY_SECONDS`` of the app being called; a body that does not is cut: the app answers 408 in the request's
language (``app._error``) and the connection is closed after the answer, its unread rest never waited for.
"""
from __future__ import annotations

import io
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Seconds a request's whole body may take to arrive (``UW_BOARD_BODY_SECONDS``): the board's largest body is
#: 64 kB, which a phone on a poor network (10 kB/s) sends in about 6 s.
BODY_SECONDS = 10.0
#: The key of the WSGI environ that tells the app the body came too slowly (it answers 408).
LATE = "uw.body_late"

Start = Callable[..., Any]
Wsgi = Callable[[dict[str, Any], Start], Iterable[bytes]]


def body_seconds() -> float:
    """``UW_BOARD_BODY_SECONDS``, else ``BODY_SECONDS``."""
    text = os.environ.get("UW_BOARD_BODY_SECONDS", "").strip()
    try:
        seconds = float(text) if text else BODY_SECONDS
    except ValueError:
        seconds = BODY_SECONDS
    return seconds if 0 < seconds < 3600 else BODY_SECONDS


class BodyDeadline:
    """Read each request's body (up to ``most`` + 1 bytes) before the app, within ``seconds`` in all (a gevent
    timeout: the worker's greenlet waits on the socket); the app then reads it from memory. Too slow: the app is
    called with an empty body and ``LATE`` set, and the connection is shut after its answer."""

    def __init__(self, app: Wsgi, seconds: float, most: int) -> None:
        self.app, self.seconds, self.most = app, seconds, most

    def __call__(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        length = str(environ.get("CONTENT_LENGTH") or "").strip()
        chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
        if not chunked and (not length.isdigit() or int(length) == 0 or int(length) > self.most):
            return self.app(environ, start_response)  # no body, or one the app refuses unread (413)
        import gevent

        source, parts, size = environ["wsgi.input"], [], 0
        try:
            with gevent.Timeout(self.seconds):
                while size <= self.most:
                    part = source.read(min(65536, self.most + 1 - size))
                    if not part:
                        break
                    parts.append(part)
                    size += len(part)
        except gevent.Timeout:
            environ[LATE] = self.seconds
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(b""), "0"
            sock = environ.get("gunicorn.socket")
            return AfterClose(self.app(environ, start_response), lambda: _shut(sock))
        body = b"".join(parts)
        environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)


class AfterClose:
    """A WSGI answer ``body`` that calls ``then()`` once, after the server closes it (its own ``close`` first): when
    it is done being sent, or dropped."""

    def __init__(self, body: Iterable[bytes], then: Callable[[], None]) -> None:
        self.body, self.then, self.closed = body, then, False

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
                self.then()


def _shut(sock: Any) -> None:
    """End the connection ``sock`` both ways (the rest of a body that came too slowly is never read)."""
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


__all__ = ["BODY_SECONDS", "LATE", "AfterClose", "BodyDeadline", "body_seconds"]
