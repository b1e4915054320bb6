"""Parameter parsing of the word API: query parameters and the batch body, each checked strictly (an
unknown name is a 400 naming it, and every 400 says what to send instead), and the body read within its
limits of size and time (the HTTP limits are in ``service.core``).
"""
from __future__ import annotations

import contextlib
import json
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge, RequestTimeout

from dictionaries import LEVELS
from dictionaries.errors import InvalidDeck, InvalidLevel, WordError
from dictionaries.i18n import _, ngettext
from dictionaries.json_depth import json_depth_within
from service.core import (
    BATCH_FIELDS,
    BODY_SECONDS,
    MAX_BATCH_WORDS,
    MAX_BODY_BYTES,
    MAX_JSON_DEPTH,
    MAX_RACK_LIMIT,
    QUERY_PARAMETERS,
    WordService,
)


class InvalidRequest(WordError):
    """A request body or query parameter that is not what the API documents."""


def query_define(args: Mapping[str, str]) -> bool:
    """``define=true|false`` (default false)."""
    raw = args.get("define", "false")
    if raw not in ("true", "false"):
        # TRANSLATORS: define, true, false and define=true are what the client sends: keep them as they are
        raise InvalidRequest(_("define must be true or false, got {value}; send define=true for the meanings").format(
            value=repr(raw[:40])))
    return raw == "true"


# -- requests -------------------------------------------------------------------------------------

def json_type(value: object) -> str:
    """What a JSON value is, as a noun phrase for "got ..." in the request's language."""
    kind = type(value)
    if kind is dict:
        # TRANSLATORS: a kind of JSON value (so are the next six): it fills {type} in "..., got {type}"
        return _("an object")
    if kind is list:
        return _("an array")
    if kind is str:
        return _("a string")
    if kind is bool:
        return _("a boolean")
    if kind is int:
        return _("an integer")
    if kind is float:
        return _("a number")
    if value is None:
        return _("null")
    return kind.__name__


def _level_names() -> str:
    return ", ".join(map(str, LEVELS))


def _names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(names)


def query_args(operation: str) -> dict[str, str]:
    """The query parameters of ``operation``, each given once; a 400 names any other."""
    if not request.environ.get("QUERY_STRING"):
        return {}
    allowed = QUERY_PARAMETERS[operation]
    args = request.args
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        names = ", ".join(repr(u[:40]) for u in unknown[:10])
        if allowed:
            raise InvalidRequest(ngettext("unknown query parameter {names}; send only {allowed}",
                                          "unknown query parameters {names}; send only {allowed}",
                                          len(unknown)).format(names=names, allowed=_names(allowed)))
        raise InvalidRequest(ngettext("unknown query parameter {names}; send none: this path takes no query parameters",
                                      "unknown query parameters {names}; send none: this path takes no query "
                                      "parameters", len(unknown)).format(names=names))
    repeated = sorted(name for name in args if len(args.getlist(name)) > 1)
    if repeated:
        raise InvalidRequest(_("query parameter {name} is given more than once; give it once").format(
            name=repr(repeated[0])))
    return {name: args[name] for name in args}


def query_level(service: WordService, args: Mapping[str, str]) -> int:
    """``level=N`` as a checked SCOWL size, or the configured default when absent."""
    raw = args.get("level")
    if raw is None:
        return service.level
    if not (len(raw) <= 9 and raw.isascii() and raw.isdigit()):  # int() refuses over 4,300 digits
        raise InvalidLevel(_("level {level} is not a SCOWL size; send one of {levels}").format(
            level=repr(raw[:20]), levels=_level_names()))
    return _scowl_size(int(raw))


def _scowl_size(level: int | float) -> int:
    """``level`` as a SCOWL size, or InvalidLevel saying which to send."""
    if level not in LEVELS:
        raise InvalidLevel(_("level {level} is not a SCOWL size; send one of {levels}").format(
            level=repr(level), levels=_level_names()))
    return int(level)


def query_limit(args: Mapping[str, str]) -> int | None:
    """``limit=K`` (1 to MAX_RACK_LIMIT), or None when absent."""
    raw = args.get("limit")
    if raw is None:
        return None
    if not (len(raw) <= 9 and raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_RACK_LIMIT:
        raise InvalidRequest(_("limit {limit} is not a whole number from 1 to {most}; send one").format(
            limit=repr(raw[:20]), most=MAX_RACK_LIMIT))
    return int(raw)


def deck_name(service: WordService, raw: object) -> str:
    """A deck name a request gives, checked against the decks on offer."""
    if not isinstance(raw, str):
        raise InvalidDeck(_("deck must be a string, got {type}; send one of {decks}").format(
            type=json_type(raw), decks=_names(tuple(service.decks))))
    if raw not in service.decks:
        raise InvalidDeck(_("deck {deck} is not a deck of this server; send one of {decks}").format(
            deck=repr(raw[:40]), decks=_names(tuple(service.decks))))
    return raw


def request_body() -> bytes:
    """The request body, at most MAX_BODY_BYTES (413 beyond, chunked bodies included), within
    BODY_SECONDS (408 beyond: a trickling client does not hold the connection); a body that
    cannot be read (bad chunking, a connection cut short) is a 400."""
    too_large = RequestEntityTooLarge(_("The body is over {kib} KiB; send at most {most} words in one request.").format(
        kib=MAX_BODY_BYTES // 1024, most=MAX_BATCH_WORDS))
    environ = request.environ
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise too_large
    if length is None and not environ.get("wsgi.input_terminated"):
        return b""  # WSGI: no Content-Length and no chunked framing means no body
    stream, sock = environ["wsgi.input"], environ.get("gunicorn.socket")
    deadline = time.monotonic() + BODY_SECONDS
    chunks: list[bytes] = []
    size = 0
    try:
        with _body_deadline():
            while size <= MAX_BODY_BYTES:
                if sock is not None:  # each read waits at most until the deadline
                    sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = stream.read(min(16384, MAX_BODY_BYTES + 1 - size if length is None else length - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if length is not None and size >= length:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError
    except TimeoutError:
        _stop_reading(sock)
        raise RequestTimeout(_("The body did not arrive within {seconds} seconds; send it at once.").format(
            seconds=f"{BODY_SECONDS:g}")) from None
    except Exception as exc:  # the server's body reader raises its own parse errors
        _stop_reading(sock)
        raise InvalidRequest(_("the request body could not be read ({error}); send it with a Content-Length, "
                               "or as valid chunked encoding").format(error=type(exc).__name__)) from None
    finally:
        if sock is not None:
            sock.settimeout(None)
    if size > MAX_BODY_BYTES:
        raise too_large
    return b"".join(chunks)


def _body_deadline() -> Any:
    """BODY_SECONDS for the whole body under gevent's workers (a trickle of a byte a second
    defeats per-read socket timeouts, since the server's reader loops over many reads); other
    servers get the per-read socket timeouts alone."""
    if "gevent" in sys.modules:
        from gevent import Timeout

        return Timeout(BODY_SECONDS, TimeoutError)
    return contextlib.nullcontext()


def _stop_reading(sock: Any) -> None:
    """After a body that was cut off, the rest of the stream is unusable: the server reads end
    of input next and closes the connection once the answer is written."""
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass


#: An example body for the "send {example}" of a batch's 400s (JSON: the same in every language).
_BATCH_EXAMPLE = '{"words": ["taps", "jazz"], "level": 60, "deck": "standard"}'


def batch_body(service: WordService) -> tuple[list[str], int, str, bool]:
    """The words, level, deck and define flag of a batch body, checked."""
    data = request_body()
    if not json_depth_within(data, MAX_JSON_DEPTH):
        # TRANSLATORS: {example} is a JSON body, the same in every language; field names stay English
        raise InvalidRequest(_("the body nests arrays or objects more than {depth} deep; send {example}").format(
            depth=MAX_JSON_DEPTH, example=_BATCH_EXAMPLE))
    try:
        body = json.loads(data)
    except ValueError:  # bad JSON, bad UTF-8, or an integer over 4,300 digits
        raise InvalidRequest(_("the body is not JSON; send {example}").format(example=_BATCH_EXAMPLE)) from None
    if not isinstance(body, dict):
        raise InvalidRequest(_("the body must be a JSON object, got {type}; send {example}").format(
            type=json_type(body), example=_BATCH_EXAMPLE))
    unknown = sorted(set(body) - set(BATCH_FIELDS))
    if unknown:
        raise InvalidRequest(ngettext("unknown field in the body: {names}; send only {fields}",
                                      "unknown fields in the body: {names}; send only {fields}", len(unknown)).format(
            names=", ".join(repr(u[:40]) for u in unknown[:10]), fields=_names(BATCH_FIELDS)))
    if "words" not in body:
        raise InvalidRequest(_('the body has no "words" field; send {example}').format(example=_BATCH_EXAMPLE))
    words = body["words"]
    if not isinstance(words, list):
        raise InvalidRequest(_("words must be an array of strings, got {type}; send {example}").format(
            type=json_type(words), example=_BATCH_EXAMPLE))
    if len(words) > MAX_BATCH_WORDS:
        raise InvalidRequest(ngettext("{n} word in one request; send at most {most}",
                                      "{n} words in one request; send at most {most}", len(words)).format(
            n=len(words), most=MAX_BATCH_WORDS))
    level = body.get("level", service.level)
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise InvalidLevel(_("level must be an integer, got {type}; send one of {levels}").format(
            type=json_type(level), levels=_level_names()))
    if isinstance(level, float) and not level.is_integer():
        raise InvalidLevel(_("level must be an integer, got {type}; send one of {levels}").format(
            type=repr(level), levels=_level_names()))
    define = body.get("define", False)
    if not isinstance(define, bool):
        raise InvalidRequest(_('define must be true or false, got {type}; send "define": true for the meanings').format(
            type=json_type(define)))
    deck = deck_name(service, body["deck"]) if "deck" in body else service.deck.name
    return words, _scowl_size(level), deck, define
