"""The HTTP API, version 1: verdicts, batches, racks, the deck and the dictionary (JSON only).

The views only parse requests and shape answers; every word question goes to ``judge`` and
``Dictionary.rack``. ``/healthz`` and ``/openapi.json`` live outside the versioned blueprint.
A request is checked strictly: an unknown query parameter or body field is a 400 naming it
(a typo must not silently change an answer), and every 400 says what to send instead.

Every sentence a person reads (a reason's ``message``, a problem's ``title`` and ``detail``) is in
the language of the request's ``Accept-Language`` (``service.core.request_language``): the service's
own sentences through ``_``/``ngettext`` (the language is set for each request), the library's
through ``say_in``/``message_of``. Codes, field names and the words themselves never change.
"""
from __future__ import annotations

import contextlib
import json
import socket
import sys
import time
from functools import lru_cache
from json.encoder import encode_basestring  # the C string encoder
from typing import Any, Callable, Mapping

from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge, RequestTimeout

from dictionaries import LEVELS
from dictionaries.deck import Deck
from dictionaries.dictionary import MAX_RACK_LETTERS, Dictionary
from dictionaries.errors import InvalidDeck, InvalidLevel, InvalidRack, InvalidWord, WordError
from dictionaries.i18n import DEFAULT_LANGUAGE, LANGUAGES, _, message_of, ngettext, say_in
from dictionaries.json_depth import json_depth_within
from dictionaries.verdict import MAX_INPUT_CHARS, Verdict, judge
from service.core import (
    BATCH_FIELDS,
    BODY_SECONDS,
    CACHE_CONTROL,
    MAX_BATCH_WORDS,
    MAX_BODY_BYTES,
    MAX_JSON_DEPTH,
    MAX_RACK_LIMIT,
    QUERY_PARAMETERS,
    RACK_RE,
    VARY_LANGUAGE,
    WORD_RE,
    WordService,
    etag_matches,
    json_response,
    language_headers,
    request_language,
    word_service,
)
from unspeakable_words import __version__

#: Verdicts (as JSON text) kept per worker and language: the dictionary never changes under a running
#: server, so a word asked again is answered from memory (about 300 bytes each).
VERDICT_CACHE_WORDS = 50_000

api = Blueprint("v1", __name__, url_prefix="/v1")
root = Blueprint("root", __name__)


class InvalidRequest(WordError):
    """A request body or query parameter that is not what the API documents."""


# -- verdict JSON ---------------------------------------------------------------------------------

class _LetterJson(dict):
    """(letter, points) -> its JSON object, made on first use."""

    def __missing__(self, pair: tuple[str, int]) -> str:
        text = self[pair] = f'{{"letter":{encode_basestring(pair[0])},"points":{int(pair[1])}}}'
        return text


_LETTER_JSON = _LetterJson()


def verdict_json(verdict: Verdict, deck: str, language: str = DEFAULT_LANGUAGE) -> str:
    """Exactly the compact ``json.dumps({**verdict.to_dict(), "deck": deck})``, written directly,
    with each reason's ``message`` in ``language`` (its ``code`` never changes).

    The deck's name is the service's addition (the verdict does not carry it). Serialising the
    nested dicts costs more than judging the word; this is the hot path of batches.
    tests/test_app.py checks it against ``to_dict`` string for string.
    """
    letter_json = _LETTER_JSON
    letters = ",".join([letter_json[pair] for pair in zip(verdict.word, verdict.points)])
    if not verdict.reasons:
        reasons = ""
    elif language == DEFAULT_LANGUAGE:
        reasons = ",".join([f'{{"code":{encode_basestring(r.code)},"message":{encode_basestring(r.message)}}}'
                            for r in verdict.reasons])
    else:
        reasons = ",".join([f'{{"code":{encode_basestring(r.code)},'
                            f'"message":{encode_basestring(say_in(r.message, language))}}}'
                            for r in verdict.reasons])
    level = verdict.level
    return (f'{{"word":{encode_basestring(verdict.word)},"legal":{"true" if verdict.legal else "false"},'
            f'"reasons":[{reasons}],"score":{int(verdict.score)},"letters":[{letters}],'
            f'"level":{"null" if level is None else int(level)},'
            f'"success_chance":{float.__repr__(float(verdict.success_chance))},"deck":{encode_basestring(deck)}}}')


def check_word(text: str) -> None:
    """InvalidWord unless ``text`` matches the documented word pattern (service.core.WORD_PATTERN)."""
    if WORD_RE.fullmatch(text):
        if len(text) > MAX_INPUT_CHARS:
            raise InvalidWord(ngettext("{word}... is {n} character; send at most {most}",
                                       "{word}... is {n} characters; send at most {most}", len(text)).format(
                word=repr(text[:20]), n=len(text), most=MAX_INPUT_CHARS))
        return
    if not text:
        raise InvalidWord(_("the word is empty; send 1 to {most} letters").format(most=MAX_INPUT_CHARS))
    bad = sorted({c for c in text if not WORD_RE.fullmatch(c) and c not in ".'"})
    if bad:
        # TRANSLATORS: {word} is the word as sent, quoted; {characters} the characters refused, each quoted
        raise InvalidWord(_("{word} has characters that are not letters: {characters}; send only letters A-Z "
                            "(accents are folded), with an apostrophe or period inside").format(
            word=repr(text[:MAX_INPUT_CHARS]), characters=" ".join(map(repr, bad[:10]))))
    raise InvalidWord(_("{word} has no letters; send 1 to {most} letters").format(word=repr(text), most=MAX_INPUT_CHARS))


def verdict_writers(dictionary: Dictionary, decks: Mapping[str, Deck]) -> dict[str, Callable[[str, int, str], str]]:
    """For each language: ``(word, level, deck name) -> verdict JSON``, checked, judged and kept in a
    bounded cache of its own (the language is not part of an English key: the English path costs
    what it did before there was a choice)."""

    def writer(language: str) -> Callable[[str, int, str], str]:
        @lru_cache(maxsize=VERDICT_CACHE_WORDS)
        def verdict_text(word: str, level: int, deck: str) -> str:
            check_word(word)
            return verdict_json(judge(dictionary, word, level, decks[deck]), deck, language)

        return verdict_text

    return {language: writer(language) for language in LANGUAGES}


def with_definitions(service: WordService, word: str, verdict_text: str) -> str:
    """The verdict JSON with ``"definitions"`` added: WordNet's senses of the word ([] when none)."""
    from dictionaries.definitions import open_definitions
    from dictionaries.verdict import normalize_word

    senses = open_definitions(service.dictionary.path).lookup(normalize_word(word))
    return f'{verdict_text[:-1]},"definitions":{_dumps([sense.to_dict() for sense in senses])}}}'


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def query_define(args: Mapping[str, str]) -> bool:
    """``define=true|false`` (default false)."""
    raw = args.get("define", "false")
    if raw not in ("true", "false"):
        # TRANSLATORS: define, true, false and define=true are what the client sends: keep them as they are
        raise InvalidRequest(_("define must be true or false, got {value}; send define=true for the meanings").format(
            value=repr(raw[:40])))
    return raw == "true"


# -- the one answer to GET /v1/words/<word> -------------------------------------------------------

def word_answer(service: WordService, path: str, query: bytes, if_none_match: str | None, word: str,
                level: int, deck: str, define: bool = False,
                language: str = DEFAULT_LANGUAGE) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status line, headers and body of ``GET /v1/words/<word>``: the WSGI fast path and the
    Flask view both answer with this. The ETag depends only on the request (its path, query and
    language), so a matching ``If-None-Match`` is a 304 before any judging. The reasons' messages
    are in ``language``: the answer says which (Content-Language) and that it varies with
    Accept-Language, a 304 too (RFC 9110 15.4.5)."""
    service.check_intact()
    check_word(word)  # an error is never a 304
    tag = f'"{service.etag(path, query, language)}"'
    if if_none_match is not None and etag_matches(if_none_match, tag[1:-1]):
        return "304 NOT MODIFIED", [("ETag", tag), ("Cache-Control", CACHE_CONTROL), VARY_LANGUAGE], b""
    text = service.verdicts[language](word, level, deck)
    body = (with_definitions(service, word, text) if define else text).encode()
    return "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                      ("ETag", tag), ("Cache-Control", CACHE_CONTROL), ("Content-Language", language),
                      VARY_LANGUAGE], body


_WORDS_PREFIX = "/v1/words/"


_HEALTH_OK = (b'{"status":"ok"}', [("Content-Type", "application/json"), ("Content-Length", "15"),
                                     ("Cache-Control", "no-store")])


def health_answer(service: WordService) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status line, headers and body of ``GET /healthz`` (the fast path and the view both answer
    with this): ok while the files match their checksums, DictionaryDamaged (a 503) otherwise."""
    service.check_intact()
    body, headers = _HEALTH_OK
    return "200 OK", list(headers), body


def fast_answer(service: WordService) -> Callable[[dict[str, Any]], tuple[str, list[tuple[str, str]], bytes] | None]:
    """The answer to the two hot requests, straight from the WSGI environ: ``GET /healthz`` and a
    ``GET /v1/words/<word>`` whose word is plain ASCII letters, without a query string (None for
    anything else, and the caller lets Flask answer: errors included). The verdict is in the
    request's language (Accept-Language)."""
    level, deck, prefix = service.level, service.deck.name, _WORDS_PREFIX

    def answer(environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes] | None:
        if environ.get("QUERY_STRING"):
            return None
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return health_answer(service)
        if not path.startswith(prefix):
            return None
        word = path[len(prefix):]
        if not (word.isascii() and word.isalpha() and len(word) <= MAX_INPUT_CHARS):
            return None
        return word_answer(service, path, b"", environ.get("HTTP_IF_NONE_MATCH"), word, level, deck, False,
                           request_language(environ))

    return answer


# -- requests -------------------------------------------------------------------------------------

def _json_type(value: object) -> str:
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
            type=_json_type(raw), decks=_names(tuple(service.decks))))
    if raw not in service.decks:
        raise InvalidDeck(_("deck {deck} is not a deck of this server; send one of {decks}").format(
            deck=repr(raw[:40]), decks=_names(tuple(service.decks))))
    return raw


def cacheable(response: Response, service: WordService) -> Response:
    """ETag (dictionary checksum, config and request) and Cache-Control on a 200; 304 when it matches."""
    environ = request.environ
    tag = service.etag(environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "").encode("latin-1"))
    response.headers.extend((("ETag", f'"{tag}"'), ("Cache-Control", CACHE_CONTROL)))
    if_none_match = environ.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None and etag_matches(if_none_match, tag):
        response.status_code = 304
        response.set_data(b"")
        response.headers.pop("Content-Type", None)
        response.headers.pop("Content-Length", None)
    return response


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
    except Exception as exc:  # noqa: BLE001 - the server's body reader raises its own parse errors
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
            type=_json_type(body), example=_BATCH_EXAMPLE))
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
            type=_json_type(words), example=_BATCH_EXAMPLE))
    if len(words) > MAX_BATCH_WORDS:
        raise InvalidRequest(ngettext("{n} word in one request; send at most {most}",
                                      "{n} words in one request; send at most {most}", len(words)).format(
            n=len(words), most=MAX_BATCH_WORDS))
    level = body.get("level", service.level)
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise InvalidLevel(_("level must be an integer, got {type}; send one of {levels}").format(
            type=_json_type(level), levels=_level_names()))
    if isinstance(level, float) and not level.is_integer():
        raise InvalidLevel(_("level must be an integer, got {type}; send one of {levels}").format(
            type=repr(level), levels=_level_names()))
    define = body.get("define", False)
    if not isinstance(define, bool):
        raise InvalidRequest(_('define must be true or false, got {type}; send "define": true for the meanings').format(
            type=_json_type(define)))
    deck = deck_name(service, body["deck"]) if "deck" in body else service.deck.name
    return words, _scowl_size(level), deck, define


# -- /v1 ------------------------------------------------------------------------------------------

@api.before_request
def intact() -> None:
    """No answer from a dictionary whose files changed under the server (a 503)."""
    word_service().check_intact()


@api.get("/words/<word>")
def get_word(word: str) -> Response:
    """The verdict on one word."""
    service = word_service()
    args = query_args("getWord")
    level, deck = query_level(service, args), deck_name(service, args.get("deck", service.deck.name))
    define = query_define(args)
    environ = request.environ
    status, headers, body = word_answer(service, environ.get("PATH_INFO", ""),
                                        environ.get("QUERY_STRING", "").encode("latin-1"),
                                        environ.get("HTTP_IF_NONE_MATCH"), word, level, deck, define,
                                        request_language(environ))
    return Response(body, status=status, headers=headers)


@api.post("/words")
def post_words() -> Response:
    """Verdicts on up to 1,000 words, in the order given."""
    service = word_service()
    query_args("postWords")
    words, level, deck, define = batch_body(service)
    language = request_language(request.environ)
    verdict = service.verdicts[language]
    results: list[str] = []
    append = results.append
    for index, word in enumerate(words):
        if type(word) is not str:
            raise InvalidWord(_("words[{index}] must be a string, got {type}").format(index=index, type=_json_type(word)))
        try:
            text = verdict(word, level, deck)
            append(with_definitions(service, word, text) if define else text)
        except InvalidWord as exc:
            # TRANSLATORS: {error} is a whole sentence saying what is wrong with the word
            raise InvalidWord(_("words[{index}]: {error}").format(index=index, error=say_in(message_of(exc), language))) from None
    return Response(f'{{"results":[{",".join(results)}]}}', content_type="application/json",
                    headers=language_headers(language))


@api.get("/racks/<letters>")
def get_rack(letters: str) -> Response:
    """Every legal word a rack of up to 20 letters can make, best first."""
    service = word_service()
    args = query_args("getRack")
    level, limit = query_level(service, args), query_limit(args)
    deck = deck_name(service, args.get("deck", service.deck.name))
    if not RACK_RE.fullmatch(letters):
        bad = sorted({c for c in letters if not ("a" <= c <= "z" or "A" <= c <= "Z")})
        if bad:
            raise InvalidRack(_("rack {rack} has characters that are not letters A-Z: {characters}; send only letters")
                              .format(rack=repr(letters[:40]), characters=" ".join(map(repr, bad[:10]))))
        raise InvalidRack(ngettext("rack {rack} has {n} letter; send 1 to {most}",
                                   "rack {rack} has {n} letters; send 1 to {most}", len(letters)).format(
            rack=repr(letters[:40]), n=len(letters), most=MAX_RACK_LETTERS))
    found = service.dictionary.rack(letters, level, service.decks[deck], limit)
    payload = {"letters": letters.upper(), "level": level, "deck": deck, "words": [w.to_dict() for w in found]}
    return cacheable(json_response(payload), service)


@api.get("/deck")
def get_deck() -> Response:
    """The card table: every letter with its count and points."""
    service = word_service()
    deck = service.decks[deck_name(service, query_args("getDeck").get("deck", service.deck.name))]
    return cacheable(json_response({"name": deck.name, "size": deck.size, "cards": deck.table()}), service)


@api.get("/dictionary")
def get_dictionary() -> Response:
    """Where the word list comes from, its levels, counts and checksum, and the service's version."""
    service = word_service()
    query_args("getDictionary")
    meta = service.dictionary.metadata
    return cacheable(json_response({
        "source": meta.get("source", ""),
        "version": meta.get("version", ""),
        "levels": meta.get("levels", list(LEVELS)),
        "default_level": service.level,
        "senses": meta.get("senses", []),
        "counts": meta.get("counts_by_sense_and_level", {}),
        "checksum": service.dictionary.checksum,
        "max_rack_letters": MAX_RACK_LETTERS,
        "max_batch_words": MAX_BATCH_WORDS,
        "decks": list(service.decks),
        "default_deck": service.deck.name,
        "service_version": __version__,
        "sources": meta.get("sources", []),
        "definitions": {key: meta.get("definitions", {}).get(key) for key in ("source", "entries", "checksum")},
    }), service)


# -- outside the versioned API --------------------------------------------------------------------

@root.get("/healthz")
def healthz() -> Response:
    """``{"status": "ok"}`` while the dictionary's files still match their checksums; a 503
    problem once they changed (the error handler answers DictionaryDamaged)."""
    service = word_service()
    query_args("healthz")
    status, headers, body = health_answer(service)
    return Response(body, status=status, headers=headers)


@root.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of this service."""
    query_args("openapi")
    response = json_response(current_app.extensions["openapi"])
    response.headers["Content-Language"] = "en"  # a developer's document: English whatever Accept-Language says
    return cacheable(response, word_service())
