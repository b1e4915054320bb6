"""gunicorn settings for the word service (``gunicorn --config service/gunicorn_conf.py``).

On the open internet a client may send its request slowly, on purpose or not. gunicorn's sync
and thread workers hold a worker (or thread) per connection until the request has arrived, so a
few hundred trickling clients take every worker; gunicorn's documentation advises a buffering
proxy or an async worker. The service runs gevent workers: each serves up to
``worker_connections`` connections at once on one thread, a waiting connection costs a few kB
and no CPU, and slow clients are cut off after a stated time:

- the head of each request (request line and headers) must arrive within ``keepalive`` = 5 s
  (gunicorn times the head read of the async workers with this setting; it is also how long an
  idle kept-alive connection stays open);
- a body must arrive within ``service.core.BODY_SECONDS`` = 10 s (the service times its reads; a
  late body is a 408 and the connection is closed).

Each worker process opens the memory-mapped dictionary once, so the pages are shared. The work
is pure CPU under the GIL, so processes give parallelism: one worker per CPU plus one spare (a
long rack search never holds every CPU's worth of workers). ``WEB_CONCURRENCY`` overrides it.
"""
from __future__ import annotations

import os

import gunicorn.glogging
import gunicorn.http.wsgi
import gunicorn.util

from service.core import MAX_HEADER_FIELD_BYTES, MAX_HEADER_FIELDS, MAX_REQUEST_LINE


def _cpu_count() -> int:
    """CPUs this process may run on (respects container CPU sets)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"  # the command line's --bind wins
worker_class = "gevent"
workers = int(os.environ.get("WEB_CONCURRENCY", 0)) or _cpu_count() + 1
worker_connections = 1000  # connections one worker serves at once (slow ones included)
keepalive = 5             # seconds for a request's head to arrive, and for an idle connection to stay
timeout = 30              # a worker silent this long is killed and restarted
graceful_timeout = 20
max_requests = 0          # no periodic recycling: nothing leaks, and restarts cost latency

# Requests are small: a word is at most 64 characters, a batch body at most 64 KiB (Flask checks that).
limit_request_line = MAX_REQUEST_LINE
limit_request_fields = MAX_HEADER_FIELDS
limit_request_field_size = MAX_HEADER_FIELD_BYTES

# One line per request on stdout, unless UW_ACCESS_LOG=off. On by default: a service on the open
# internet needs a record of who asked what. /healthz is never logged: probes every few seconds
# would fill the log with lines that say nothing, and writing a line costs more than the answer
# (measured: /healthz throughput roughly doubles without it; BENCHMARKS.md). A deployment whose
# proxy already logs every request (deploy/nginx.conf) may turn it off.
_ACCESS_LOG = os.environ.get("UW_ACCESS_LOG", "on").strip().lower()
if _ACCESS_LOG not in ("on", "off"):
    from dictionaries.i18n import choose_language, msg, say_in

    raise SystemExit(say_in(msg("Error: UW_ACCESS_LOG={value} must be on or off", value=repr(_ACCESS_LOG)),
                            choose_language()))
accesslog = "-" if _ACCESS_LOG == "on" else None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
reload = False            # never the debugger or the reloader in production
# gunicorn >= 25 opens a control socket at one fixed path per user; several instances on one
# host (tests, benchmarks, a dev server) would fight over it, and nothing here uses it.
control_socket_disable = True
# Each worker's heartbeat file is touched on every request: keep it in memory where the OS has a
# RAM file system (gunicorn's documentation advises /dev/shm against disk stalls).
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


# -- hooks --------------------------------------------------------------------------------------

def on_starting(_server: object) -> None:
    """Open the dictionary once in the master, so a missing, truncated, damaged or foreign file
    stops the start with one line naming it (not a traceback from every worker's failed boot),
    in the operator's language (UW_LANG, else the locale)."""
    import sys

    from dictionaries.dictionary import Dictionary
    from dictionaries.errors import DictionaryError
    from dictionaries.i18n import choose_language, message_of, msg, say_in

    try:
        Dictionary()  # the default path (UW_DICTIONARY), every checksum verified
    except DictionaryError as exc:
        operator = choose_language()
        # TRANSLATORS: {error} is a whole sentence naming the damaged or missing file
        print(say_in(msg("Error: {error}", error=say_in(message_of(exc), operator)), operator),
              file=sys.stderr, flush=True)
        sys.exit(1)


def pre_request(_worker: object, req: object) -> None:
    """Close the connection after the answer when the body may be left unread: one over the limit
    (answered 413 unread) or a chunked one (a malformed chunk leaves the stream unusable). The
    answer then says ``Connection: close`` instead of announcing a keep-alive that will not happen."""
    from service.core import MAX_BODY_BYTES

    for name, value in getattr(req, "headers", []):
        if (name == "CONTENT-LENGTH" and (not value.isdigit() or int(value) > MAX_BODY_BYTES)) or (
                name == "TRANSFER-ENCODING"):
            req.must_close = True  # type: ignore[attr-defined]  # gunicorn ships no types


def _problem_page(sock: object, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own error answers (400, 414, 431 before the app sees the request) as
    problem+json with nosniff, like every other error of the service. They are in English
    (Content-Language says so): the request was not read far enough to know its Accept-Language,
    and the detail is gunicorn's own."""
    import json
    from http import HTTPStatus

    from gunicorn.util import write_nonblock

    try:
        reason = HTTPStatus(status_int).phrase  # gunicorn titles its 501 "Bad Request"
    except ValueError:
        pass
    body = json.dumps({"type": "about:blank", "title": reason, "status": status_int, "detail": mesg}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Language: en\r\nX-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n")
    write_nonblock(sock, head.encode("latin-1") + body)


class _Logger(gunicorn.glogging.Logger):
    """gunicorn's logger, without access lines for /healthz, and cheaper lines for the others.

    gunicorn's ``access`` builds every atom a format could name (each request header, response
    header and environ variable, a strftime date) and wraps them, for a line that uses five:
    about 50 us a request, 10 to 15 % of a whole answer's CPU. With the shipped
    ``access_log_format`` the line is written directly, byte for byte the same
    (tests/test_service_gunicorn.py compares them); any other format goes gunicorn's way."""

    def access(self, resp: object, req: object, environ: dict[str, object], request_time: object) -> None:
        if environ.get("PATH_INFO") == "/healthz":
            return
        if self.cfg.access_log_format != access_log_format:  # an operator's own format
            super().access(resp, req, environ, request_time)
            return
        if not self.access_log_enabled:
            return
        try:
            status = resp.status  # type: ignore[attr-defined]  # gunicorn ships no types
            if isinstance(status, str):
                status = _quoted(status.split(None, 1)[0])
            sent = getattr(resp, "sent", None)
            took = request_time.seconds * 1000 + int(request_time.microseconds / 1000)  # type: ignore[attr-defined]  # gunicorn ships no types
            line = f'{environ["REQUEST_METHOD"]} {environ["RAW_URI"]} {environ["SERVER_PROTOCOL"]}'
            self.access_log.info(f'{_quoted(environ.get("REMOTE_ADDR", "-"))} "{_quoted(line)}" {status} '
                                 f'{sent is not None and str(sent) or "-"} {took}ms')
        except Exception:  # as gunicorn's own access(): a bad line never fails a request
            import traceback

            self.error(traceback.format_exc())


def _quoted(value: object) -> object:
    """A value as gunicorn's access atoms hold it: a string's double quotes escaped."""
    return value.replace('"', '\\"') if isinstance(value, str) else value


logger_class = _Logger

# gunicorn writes those answers with gunicorn.util.write_error (an internal: checked by
# tests/test_reliability_service.py against the installed gunicorn).

gunicorn.util.write_error = _problem_page


#: Largest body sent in one piece with its head: copying a larger one costs more than a second ``send``
#: (a batch's answer is ~400 KB).
ONE_WRITE_BYTES = 64 * 1024


def _write_once(self: gunicorn.http.wsgi.Response, arg: bytes) -> None:
    """gunicorn sends an answer's head and its body in two ``send`` calls; for a body of known
    length that comes in one piece (every answer of this service), send both in one, unless the body
    is over ONE_WRITE_BYTES (then the head, and the body uncopied)."""
    if (self.headers_sent or not isinstance(arg, bytes) or not arg or self.chunked or self._omits_body
            or self.response_length is None or len(arg) > self.response_length):
        _gunicorn_write(self, arg)
        return
    head = "".join([*self.default_headers(), *[f"{k}: {v}\r\n" for k, v in self.headers], "\r\n"])
    if len(arg) > ONE_WRITE_BYTES:
        gunicorn.util.write(self.sock, head.encode("latin-1"))
        gunicorn.util.write(self.sock, arg)
    else:
        gunicorn.util.write(self.sock, head.encode("latin-1") + arg)
    self.headers_sent = True
    self.sent += len(arg)
    return None


# An internal too (tests/test_reliability_service.py checks the bytes against gunicorn's own path).
_gunicorn_write = gunicorn.http.wsgi.Response.write
if all(hasattr(gunicorn.http.wsgi.Response, name) for name in ("default_headers", "send_headers", "write")):
    gunicorn.http.wsgi.Response.write = _write_once


#: Header pairs gunicorn has checked once, as it keeps them (name, stripped value): at most this many.
MAX_CHECKED_HEADERS = 256
_checked_headers: dict[tuple[str, str], tuple[str, str]] = {}
#: Headers whose values change from answer to answer: never kept (they would only fill the table).
_VARYING_HEADERS = frozenset({"content-length", "etag"})
#: Names of those whose check gunicorn passed once, each with its lower case: a later value needs only the
#: value's check.
_checked_names: dict[str, str] = {}


def _process_headers_once(self: gunicorn.http.wsgi.Response, headers: list[tuple[str, str]]) -> None:
    """gunicorn checks every header of every answer against two regular expressions (~1.5 us a header);
    a word's answer carries 9, and 7 of them are the same pairs every time. A pair that passed gunicorn's
    own check once is kept as gunicorn kept it. A Content-Length or ETag whose name passed it once needs
    only its value checked: printable ASCII passes gunicorn's value pattern, and is kept as gunicorn keeps it
    (stripped of spaces; a Content-Length also read as the answer's length). Any other pair (a new one, a
    hop-by-hop header, a bad one, another value) goes through gunicorn's check, in order, as before."""
    checked = _checked_headers
    for pair in headers:
        try:
            known = checked.get(pair)
        except TypeError:  # an unhashable pair: gunicorn's check says what is wrong with it
            known = None
        if known is not None:
            self.headers.append(known)
            continue
        if type(pair) is tuple and len(pair) == 2:
            name, value = pair
            lower = _checked_names.get(name) if type(name) is str else None
            if lower is not None and type(value) is str and value.isascii() and value.isprintable():
                value = value.strip(" \t")
                if lower == "content-length":
                    self.response_length = int(value)
                self.headers.append((name, value))
                continue
        before = len(self.headers)
        _gunicorn_process_headers(self, [pair])
        if (len(self.headers) == before + 1 and len(checked) < MAX_CHECKED_HEADERS and type(pair) is tuple
                and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is str
                and not gunicorn.util.is_hoppish(pair[0])):
            if pair[0].lower() in _VARYING_HEADERS:
                _checked_names[pair[0]] = pair[0].lower()
            else:
                checked[pair] = self.headers[-1]


# An internal too (tests/test_reliability_service.py checks it against gunicorn's own, good and bad headers).
_gunicorn_process_headers = gunicorn.http.wsgi.Response.process_headers
if hasattr(gunicorn.util, "is_hoppish"):
    gunicorn.http.wsgi.Response.process_headers = _process_headers_once


# How long a connection steps aside after each answer: any positive time puts it behind the next
# poll of the event loop (gevent's ``sleep`` docs: ``sleep(0)`` may run the greenlet again before the
# loop polls, a positive value waits for the next iteration).
YIELD_SECONDS = 1e-6


def post_request(worker: object, _req: object, _environ: object, _resp: object) -> None:
    """Yield to the other connections after each answer, until the event loop has polled again.

    Without a yield, a kept-alive client whose next request is already waiting is served again and
    again before the others get a turn (``/healthz`` p99 380 to 726 ms at 64 connections). With
    ``sleep(0)`` the connections whose next request was already read run again before those the poll
    would wake (p99 27 to 276 ms, under 50 ms in 4 of 22 runs). Waiting for the next poll serves every
    ready connection once a round: p99 26 to 62 ms, under 50 ms in 17 of 21 runs (BENCHMARKS.md)."""
    if "gevent" in str(getattr(getattr(worker, "cfg", None), "worker_class_str", "")):
        import gevent

        gevent.sleep(YIELD_SECONDS)
