"""The HTTP API, version 1: verdicts, batches, racks, the deck and the dictionary (JSON only).

The views only parse requests and shape answers; every word question goes to ``judge`` and
``Dictionary.rack``. ``/healthz`` and ``/openapi.json`` live outside the versioned blueprint.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, request

from dictionaries import LEVELS
from service.app import CACHE_CONTROL, json_response, word_service
from service.dictionary import MAX_RACK_LETTERS, level_code, normalize_rack
from service.errors import InvalidLevel, InvalidWord, WordError
from service.verdict import judge

#: Most words in one ``POST /v1/words``.
MAX_BATCH_WORDS = 1000
#: Largest ``limit`` of a rack search.
MAX_RACK_LIMIT = 10000

api = Blueprint("v1", __name__, url_prefix="/v1")
root = Blueprint("root", __name__)


class InvalidRequest(WordError):
    """A request body or query parameter that is not what the API documents."""


# -- helpers --------------------------------------------------------------------------------------

def _level_names() -> str:
    return ", ".join(map(str, LEVELS))


def query_level() -> int:
    """``?level=N`` as a checked SCOWL size, or the configured default when absent."""
    raw = request.args.get("level")
    if raw is None:
        return word_service().level
    if not (raw.isascii() and raw.isdigit()):
        raise InvalidLevel(f"level {raw!r} is not a SCOWL size; choose one of {_level_names()}")
    level = int(raw)
    level_code(level)
    return level


def query_limit() -> int | None:
    """``?limit=K`` (1 to MAX_RACK_LIMIT), or None when absent."""
    raw = request.args.get("limit")
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_RACK_LIMIT:
        raise InvalidRequest(f"limit {raw!r} must be a whole number from 1 to {MAX_RACK_LIMIT}")
    return int(raw)


def cacheable(response: Response) -> Response:
    """ETag (dictionary checksum, config and request) and Cache-Control on a 200; 304 when it matches."""
    tag = word_service().etag(request.path, request.query_string)
    response.headers["ETag"] = f'"{tag}"'
    response.headers["Cache-Control"] = CACHE_CONTROL
    if request.if_none_match and request.if_none_match.contains_weak(tag):
        response.status_code = 304
        response.set_data(b"")
        response.headers.pop("Content-Type", None)
        response.headers.pop("Content-Length", None)
    return response


def batch_body() -> tuple[list[str], int]:
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
    level = data.get("level", word_service().level)
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise InvalidLevel(f"level {level!r} is not a SCOWL size; choose one of {_level_names()}")
    level_code(level)
    return words, int(level)


# -- /v1 ------------------------------------------------------------------------------------------

@api.get("/words/<word>")
def get_word(word: str) -> Response:
    """The verdict on one word."""
    service = word_service()
    verdict = judge(service.dictionary, word, query_level(), service.deck)
    return cacheable(json_response(verdict.to_dict()))


@api.post("/words")
def post_words() -> Response:
    """Verdicts on up to 1,000 words, in the order given."""
    words, level = batch_body()
    service = word_service()
    dictionary, deck = service.dictionary, service.deck
    results: list[dict[str, Any]] = []
    append = results.append
    for index, word in enumerate(words):
        if type(word) is not str:
            raise InvalidWord(f"words[{index}] is {type(word).__name__}, not a string")
        try:
            append(judge(dictionary, word, level, deck).to_dict())
        except InvalidWord as exc:
            raise InvalidWord(f"words[{index}]: {exc}") from None
    return json_response({"results": results})


@api.get("/racks/<letters>")
def get_rack(letters: str) -> Response:
    """Every legal word a rack of up to 20 letters can make, best first."""
    service = word_service()
    level, limit = query_level(), query_limit()
    found = service.dictionary.rack(letters, level, service.deck, limit)
    payload = {"letters": normalize_rack(letters).upper(), "level": level, "words": [w.to_dict() for w in found]}
    return cacheable(json_response(payload))


@api.get("/deck")
def get_deck() -> Response:
    """The card table: every letter with its count and points."""
    deck = word_service().deck
    return cacheable(json_response({"name": deck.name, "size": deck.size, "cards": deck.table()}))


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
    }))


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
    return cacheable(json_response(current_app.extensions["openapi"]))
