"""The OpenAPI 3.1 document of the word service, built from the same constants the code uses."""
from __future__ import annotations

from typing import Any

from dictionaries import LEVELS, MAX_WORD_LETTERS, __version__
from dictionaries.dictionary import MAX_RACK_LETTERS
from dictionaries.verdict import MAX_INPUT_CHARS, REASON_CODES

#: A word as input: letters, with apostrophes or periods inside (accented letters are folded).
WORD_PATTERN = r"^[A-Za-z.']*[A-Za-z][A-Za-z.']*$"
RACK_PATTERN = rf"^[A-Za-z]{{1,{MAX_RACK_LETTERS}}}$"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


def _problem(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/problem+json": {"schema": _ref("Problem")}}}


_CACHE_HEADERS = {
    "ETag": {"description": "Changes with the dictionary, the configuration and the request",
             "required": True, "schema": {"type": "string"}},
    "Cache-Control": {"description": "public, max-age=86400", "required": True, "schema": {"type": "string"}},
}
_NOT_MODIFIED = {"description": "Not modified: the If-None-Match ETag still matches", "headers": _CACHE_HEADERS}


def _get(summary: str, op_id: str, schema: dict[str, Any], description: str, *, params: list[dict[str, Any]] | None = None,
         bad_input: str | None = None) -> dict[str, Any]:
    """A cacheable GET operation."""
    responses: dict[str, Any] = {"200": _json(schema, description, _CACHE_HEADERS), "304": _NOT_MODIFIED}
    if bad_input:
        responses["400"] = _problem(bad_input)
    if any(p["in"] == "path" for p in params or ()):
        responses["404"] = _problem("No such path (for example a '/' inside the word)")
    operation: dict[str, Any] = {"summary": summary, "operationId": op_id, "responses": responses}
    if params:
        operation["parameters"] = params
    return {"get": operation}


def build_document(default_level: int) -> dict[str, Any]:
    """The document; ``default_level`` is the level used when a request names none."""
    level_schema = {"type": "integer", "enum": list(LEVELS), "description": "SCOWL size: larger sizes allow rarer words"}
    level_param = {"name": "level", "in": "query", "required": False,
                   "description": f"SCOWL size of the game's dictionary (default {default_level})",
                   "schema": {**level_schema, "default": default_level}}
    word_schema = {"type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHARS, "pattern": WORD_PATTERN}
    schemas: dict[str, Any] = {
        "Level": level_schema,
        "Word": word_schema,
        "Reason": {
            "type": "object", "additionalProperties": False, "required": ["code", "message"],
            "properties": {"code": {"type": "string", "enum": list(REASON_CODES)}, "message": {"type": "string"}},
        },
        "Letter": {
            "type": "object", "additionalProperties": False, "required": ["letter", "points"],
            "properties": {"letter": {"type": "string", "pattern": "^[A-Z]$"}, "points": {"type": "integer", "minimum": 0}},
        },
        "Verdict": {
            "type": "object", "additionalProperties": False,
            "required": ["word", "legal", "reasons", "score", "letters", "level", "success_chance"],
            "properties": {
                "word": {"type": "string", "pattern": "^[A-Z]+$", "description": "The letters, upper case"},
                "legal": {"type": "boolean"},
                "reasons": {"type": "array", "items": _ref("Reason"), "description": "Empty when legal"},
                "score": {"type": "integer", "minimum": 0},
                "letters": {"type": "array", "items": _ref("Letter")},
                "level": {"type": ["integer", "null"], "enum": [*LEVELS, None],
                          "description": "Smallest SCOWL size listing the spelling in any sense; null if none"},
                "success_chance": {"type": "number", "minimum": 0, "maximum": 1},
            },
        },
        "BatchRequest": {
            "type": "object", "additionalProperties": False, "required": ["words"],
            "properties": {"words": {"type": "array", "maxItems": 1000, "items": _ref("Word")}, "level": _ref("Level")},
        },
        "BatchResponse": {
            "type": "object", "additionalProperties": False, "required": ["results"],
            "properties": {"results": {"type": "array", "maxItems": 1000, "items": _ref("Verdict")}},
        },
        "RackWord": {
            "type": "object", "additionalProperties": False, "required": ["word", "score", "success_chance"],
            "properties": {
                "word": {"type": "string", "pattern": f"^[A-Z]{{3,{MAX_WORD_LETTERS}}}$"},
                "score": {"type": "integer", "minimum": 0},
                "success_chance": {"type": "number", "minimum": 0, "maximum": 1},
            },
        },
        "Rack": {
            "type": "object", "additionalProperties": False, "required": ["letters", "level", "words"],
            "properties": {
                "letters": {"type": "string", "pattern": RACK_PATTERN},
                "level": _ref("Level"),
                "words": {"type": "array", "items": _ref("RackWord"),
                          "description": "Highest score first, then longer, then alphabetical"},
            },
        },
        "Card": {
            "type": "object", "additionalProperties": False, "required": ["letter", "count", "points"],
            "properties": {"letter": {"type": "string", "pattern": "^[A-Z]$"},
                           "count": {"type": "integer", "minimum": 0}, "points": {"type": "integer", "minimum": 0}},
        },
        "Deck": {
            "type": "object", "additionalProperties": False, "required": ["name", "size", "cards"],
            "properties": {"name": {"type": "string"}, "size": {"type": "integer", "minimum": 1},
                           "cards": {"type": "array", "minItems": 26, "maxItems": 26, "items": _ref("Card")}},
        },
        "DictionaryInfo": {
            "type": "object", "additionalProperties": False,
            "required": ["source", "version", "levels", "default_level", "senses", "counts", "checksum",
                         "max_rack_letters", "max_batch_words"],
            "properties": {
                "source": {"type": "string"},
                "version": {"type": "string"},
                "levels": {"type": "array", "items": {"type": "integer"}},
                "default_level": _ref("Level"),
                "senses": {"type": "array", "items": {"type": "string"}},
                "counts": {"type": "object", "description": "Spellings per sense, then per SCOWL size",
                           "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}},
                "checksum": {"type": "string"},
                "max_rack_letters": {"type": "integer"},
                "max_batch_words": {"type": "integer"},
            },
        },
        "Health": {"type": "object", "additionalProperties": False, "required": ["status"],
                   "properties": {"status": {"const": "ok"}}},
        "Problem": {
            "type": "object", "required": ["type", "title", "status", "detail"],
            "description": "RFC 9457 problem details",
            "properties": {"type": {"type": "string"}, "title": {"type": "string"},
                           "status": {"type": "integer", "minimum": 400, "maximum": 599}, "detail": {"type": "string"}},
        },
    }
    paths: dict[str, Any] = {
        "/v1/words/{word}": _get(
            "Judge one word", "getWord", _ref("Verdict"),
            "The verdict (a word that is not playable is still a 200, with legal false and the reasons)",
            params=[{"name": "word", "in": "path", "required": True,
                     "description": f"Up to {MAX_INPUT_CHARS} characters: letters, with ' or . inside (don't, u.s.a.). "
                                    "Like the referee, the service also folds accented letters (é is E) and "
                                    "ignores surrounding whitespace.",
                     "schema": _ref("Word")}, level_param],
            bad_input="Digits or symbols in the word, more than 64 characters, or no such level"),
        "/v1/words": {"post": {
            "summary": "Judge up to 1,000 words", "operationId": "postWords",
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("BatchRequest")}}},
            "responses": {
                "200": _json(_ref("BatchResponse"), "One verdict per word, in the order given"),
                "400": _problem("Not the documented JSON, more than 1,000 words, a malformed word, or no such level"),
                "413": _problem("Body over 64 KiB"),
            },
        }},
        "/v1/racks/{letters}": _get(
            "Words a rack can make", "getRack", _ref("Rack"), "Legal words from the letters, best first",
            params=[{"name": "letters", "in": "path", "required": True,
                     "description": f"1 to {MAX_RACK_LETTERS} letters A-Z (surrounding whitespace is ignored)", "schema": {"type": "string", "pattern": RACK_PATTERN}},
                    level_param,
                    {"name": "limit", "in": "query", "required": False, "description": "At most this many words",
                     "schema": {"type": "integer", "minimum": 1, "maximum": 10000}}],
            bad_input="Not 1 to 20 letters, a bad limit, or no such level"),
        "/v1/deck": _get("The card table", "getDeck", _ref("Deck"), "Every letter with its card count and points"),
        "/v1/dictionary": _get("The dictionary", "getDictionary", _ref("DictionaryInfo"),
                               "Source, version, levels, counts and checksum"),
        "/healthz": {"get": {"summary": "Liveness", "operationId": "healthz",
                             "responses": {"200": _json(_ref("Health"), "The dictionary is loaded")}}},
        "/openapi.json": _get("This document", "openapi", {"type": "object"}, "The OpenAPI 3.1 document"),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Unspeakable Words word service",
            "version": __version__,
            "description": "Verdicts on words, rack search and the card table for the game Unspeakable Words. "
                           "Errors are application/problem+json (RFC 9457).",
            "license": {"name": "MIT; word data: SCOWL", "identifier": "MIT"},
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
