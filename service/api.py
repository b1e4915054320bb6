"""The HTTP API, version 1: verdicts, batches, racks, the deck and the dictionary (JSON only).

The views only parse requests and shape answers; every word question goes to ``judge`` and
``Dictionary.rack``. ``/healthz`` and ``/openapi.json`` live outside the versioned blueprint.
"""
from __future__ import annotations

import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # the C string encoder
from typing import Callable

from flask import Blueprint, Response, current_app, request

from dictionaries import LEVELS
from dictionaries.dictionary import MAX_RACK_LETTERS, level_code, normalize_rack
from dictionaries.errors import InvalidLevel, InvalidWord, WordError
from dictionaries.verdict import MAX_INPUT_CHARS, Verdict, judge
from service.core import CACHE_CONTROL, WordService, json_response, word_service

#: Most words in one ``POST /v1/words``.
MAX_BATCH_WORDS = 1000
#: Largest ``limit`` of a rack search.
MAX_RACK_LIMIT = 10000

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


def verdict_json(verdict: Verdict) -> str:
    """Exactly the compact ``json.dumps(verdict.to_dict())``, written directly.

    Serialising the nested dicts costs more than judging the word; this is the hot path of
    batches. tests/test_app.py checks it against ``to_dict`` string for string.
    """
    letter_json = _LETTER_JSON
    letters = ",".join([letter_json[pair] for pair in zip(verdict.word, verdict.points)])
    reasons = ",".join([f'{{"code":{encode_basestring(r.code)},"message":{encode_basestring(r.message)}}}'
                        for r in verdict.reasons]) if verdict.reasons else ""
    level = verdict.level
    return (f'{{"word":{encode_basestring(verdict.word)},"legal":{"true" if verdict.legal else "false"},'
            f'"reasons":[{reasons}],"score":{int(verdict.score)},"letters":[{letters}],'
            f'"level":{"null" if level is None else int(level)},'
            f'"success_chance":{float.__repr__(float(verdict.success_chance))}}}')


def raw_json_response(body: str) -> Response:
    """A 200 JSON response from already-serialised text."""
    return Response(body, content_type="application/json")


# -- helpers --------------------------------------------------------------------------------------

def _level_names() -> str:
    return ", ".join(map(str, LEVELS))


def query_level(service: WordService) -> int:
    """``?level=N`` as a checked SCOWL size, or the configured default when absent."""
    if not request.environ.get("QUERY_STRING"):
        return service.level  # the common case: no query string to parse
    raw = request.args.get("level")
    if raw is None:
        return service.level
    if not (len(raw) <= 9 and raw.isascii() and raw.isdigit()):  # int() refuses over 4,300 digits
        raise InvalidLevel(f"level {raw[:20]!r} is not a SCOWL size; choose one of {_level_names()}")
    level = int(raw)
    level_code(level)
    return level


def query_limit() -> int | None:
    """``?limit=K`` (1 to MAX_RACK_LIMIT), or None when absent."""
    raw = request.args.get("limit")
    if raw is None:
        return None
    if not (len(raw) <= 9 and raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_RACK_LIMIT:
        raise InvalidRequest(f"limit {raw[:20]!r} must be a whole number from 1 to {MAX_RACK_LIMIT}")
    return int(raw)


def cacheable(response: Response, service: WordService) -> Response:
    """ETag (dictionary checksum, config and request) and Cache-Control on a 200; 304 when it matches."""
    environ = request.environ
    tag = service.etag(environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "").encode("latin-1"))
    response.headers.extend((("ETag", f'"{tag}"'), ("Cache-Control", CACHE_CONTROL)))
    if "HTTP_IF_NONE_MATCH" in environ and request.if_none_match.contains_weak(tag):
        response.status_code = 304
        response.set_data(b"")
        response.headers.pop("Content-Type", None)
        response.headers.pop("Content-Length", None)
    return response


def batch_body(service: WordService) -> tuple[list[str], int]:
    """The words and level of a batch body ``{"words": [...], "level": N}``, checked."""
    try:
        data = json.loads(request.get_data(cache=False))
    except (ValueError, UnicodeDecodeError):
        raise InvalidRequest('the body must be JSON: {"words": ["...", ...], "level": 60}') from None
    if not isinstance(data, dict) or not isinstance(data.get("words"), list):
        raise InvalidRequest('the body must be a JSON object with a "words" array')
    unknown = sorted(set(data) - {"words", "level"})
    if unknown:
        raise InvalidRequest(f"unknown field{'s' if len(unknown) > 1 else ''} in the body: {', '.join(map(repr, unknown))}")
    words = data["words"]
    if len(words) > MAX_BATCH_WORDS:
        raise InvalidRequest(f"{len(words)} words in one request; at most {MAX_BATCH_WORDS}")
    level = data.get("level", service.level)
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise InvalidLevel(f"level {level!r} is not a SCOWL size; choose one of {_level_names()}")
    level_code(level)
    return words, int(level)


# -- /v1 ------------------------------------------------------------------------------------------

_WORDS_PREFIX = "/v1/words/"


def fast_word_answer(service: WordService) -> Callable[[str], tuple[bytes, str] | None]:
    """The body and ETag of ``GET /v1/words/<word>`` at the default level, for a PATH_INFO whose word
    is plain ASCII letters (None otherwise: Flask then handles the request, errors included)."""
    dictionary, level, deck, prefix = service.dictionary, service.level, service.deck, _WORDS_PREFIX

    def answer(path: str) -> tuple[bytes, str] | None:
        if not path.startswith(prefix):
            return None
        word = path[len(prefix):]
        if not (word.isascii() and word.isalpha() and len(word) <= MAX_INPUT_CHARS):
            return None
        body = verdict_json(judge(dictionary, word, level, deck)).encode()
        return body, service.etag(path, b"")

    return answer


@api.get("/words/<word>")
def get_word(word: str) -> Response:
    """The verdict on one word."""
    service = word_service()
    verdict = judge(service.dictionary, word, query_level(service), service.deck)
    return cacheable(raw_json_response(verdict_json(verdict)), service)


@api.post("/words")
def post_words() -> Response:
    """Verdicts on up to 1,000 words, in the order given."""
    service = word_service()
    words, level = batch_body(service)
    dictionary, deck = service.dictionary, service.deck
    results: list[str] = []
    append = results.append
    for index, word in enumerate(words):
        if type(word) is not str:
            raise InvalidWord(f"words[{index}] is {type(word).__name__}, not a string")
        try:
            append(verdict_json(judge(dictionary, word, level, deck)))
        except InvalidWord as exc:
            raise InvalidWord(f"words[{index}]: {exc}") from None
    return raw_json_response(f'{{"results":[{",".join(results)}]}}')


@api.get("/racks/<letters>")
def get_rack(letters: str) -> Response:
    """Every legal word a rack of up to 20 letters can make, best first."""
    service = word_service()
    level, limit = query_level(service), query_limit()
    found = service.dictionary.rack(letters, level, service.deck, limit)
    payload = {"letters": normalize_rack(letters).upper(), "level": level, "words": [w.to_dict() for w in found]}
    return cacheable(json_response(payload), service)


@api.get("/deck")
def get_deck() -> Response:
    """The card table: every letter with its count and points."""
    service = word_service()
    deck = service.deck
    return cacheable(json_response({"name": deck.name, "size": deck.size, "cards": deck.table()}), service)


@api.get("/dictionary")
def get_dictionary() -> Response:
    """Where the word list comes from, its levels, counts and checksum."""
    service = word_service()
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
    }), service)


# -- outside the versioned API --------------------------------------------------------------------

@root.get("/healthz")
def healthz() -> Response:
    """``{"status": "ok"}`` once the dictionary is open and answers a look-up."""
    word_service().dictionary.word_code("a")  # touches the memory-mapped files
    response = json_response({"status": "ok"})
    response.headers["Cache-Control"] = "no-store"
    return response


@root.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of this service."""
    return cacheable(json_response(current_app.extensions["openapi"]), word_service())
