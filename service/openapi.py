"""The OpenAPI 3.1 document of the word service, built from the same constants the code uses."""
from __future__ import annotations

from typing import Any

from dictionaries import LEVELS, MAX_WORD_LETTERS, PARTS_OF_SPEECH
from dictionaries.dictionary import MAX_RACK_LETTERS
from dictionaries.i18n import DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES
from dictionaries.verdict import MAX_INPUT_CHARS, REASON_CODES
from service.core import (
    BATCH_FIELDS,
    BODY_SECONDS,
    CACHE_CONTROL,
    MAX_BATCH_WORDS,
    MAX_BODY_BYTES,
    MAX_HEADER_FIELD_BYTES,
    MAX_HEADER_FIELDS,
    MAX_JSON_DEPTH,
    MAX_RACK_LIMIT,
    MAX_REQUEST_LINE,
    QUERY_PARAMETERS,
    RACK_PATTERN,
    WORD_PATTERN,
    WordService,
)
from unspeakable_words import __version__


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


_SPOKEN = ", ".join(f"{code} ({LANGUAGE_NAMES[code]})" for code in LANGUAGES)
#: What the document says of the language of every sentence in an answer.
LANGUAGE_NOTE = (
    f"Sentences for people (a reason's `message`, a problem's `title` and `detail`) are in the language of "
    f"the request's `Accept-Language` header: the best of {_SPOKEN} by its q-values, {DEFAULT_LANGUAGE} when "
    "the header is absent or names no language the service speaks. The `Content-Language` header of such an "
    "answer names the language used, and `Vary: Accept-Language` tells caches that it depends on the header; "
    "the ETag of a verdict differs by language. Codes (`code`, a problem's `type` and `status`), field names, "
    "the words, and WordNet's `definitions` never change with the language. Errors the HTTP server writes "
    "before it has read the request (414, 431, a malformed request line) are in English, and so is this document."
)
_CONTENT_LANGUAGE = {"description": f"The language of the sentences in the body: one of {', '.join(LANGUAGES)}",
                     "required": True, "schema": {"type": "string", "enum": list(LANGUAGES)}}
_VARY = {"description": "Accept-Language: the body's sentences follow that request header", "required": True,
         "schema": {"type": "string"}}
_LANGUAGE_HEADERS = {"Content-Language": _CONTENT_LANGUAGE, "Vary": _VARY}
#: The request header every operation reads (for the sentences of its answer, errors included).
ACCEPT_LANGUAGE = {"name": "Accept-Language", "in": "header", "required": False,
                   "description": f"The language of the answer's sentences (messages, problem titles and details): "
                                  f"{', '.join(LANGUAGES)}; default {DEFAULT_LANGUAGE}. Codes never change.",
                   "schema": {"type": "string"}, "example": "es, en;q=0.5"}


def _problem(description: str) -> dict[str, Any]:
    return {"description": f"{description}. `title` and `detail` follow Accept-Language",
            "headers": _LANGUAGE_HEADERS,
            "content": {"application/problem+json": {"schema": _ref("Problem")}}}


_CACHE_HEADERS = {
    "ETag": {"description": "Changes with the dictionary, the configuration and the request",
             "required": True, "schema": {"type": "string"}},
    "Cache-Control": {"description": CACHE_CONTROL, "required": True, "schema": {"type": "string"}},
}
_NOT_MODIFIED = {"description": "Not modified: the If-None-Match ETag still matches", "headers": _CACHE_HEADERS}
#: A verdict's headers: its ETag also changes with the language of its messages.
_VERDICT_HEADERS = {
    **_CACHE_HEADERS,
    "ETag": {"description": "Changes with the dictionary, the configuration, the request and the language "
                            "of the messages (Content-Language)", "required": True, "schema": {"type": "string"}},
    **_LANGUAGE_HEADERS,
}
_VERDICT_NOT_MODIFIED = {"description": "Not modified: the If-None-Match ETag still matches",
                         "headers": {**_VERDICT_HEADERS, "Content-Language": {**_CONTENT_LANGUAGE, "required": False}}}


def _server_problem(description: str) -> dict[str, Any]:
    """A problem the HTTP server writes before the request is read: English whatever the request asks."""
    return {"description": f"{description}. In English: the request was not read far enough for Accept-Language",
            "headers": {"Content-Language": {"description": "en", "required": True, "schema": {"const": "en"}}},
            "content": {"application/problem+json": {"schema": _ref("Problem")}}}


#: What gunicorn refuses before the API sees a request (any operation).
_SERVER_LIMITS = {
    "414": _server_problem(f"Request line over {MAX_REQUEST_LINE:,} bytes (refused by the server)"),
    "431": _server_problem(f"More than {MAX_HEADER_FIELDS} header fields, or one over {MAX_HEADER_FIELD_BYTES:,} bytes"),
}
_UNAVAILABLE = _problem("The dictionary files changed under the running server and no longer match their checksums")


def _get(summary: str, op_id: str, schema: dict[str, Any], description: str, params: dict[str, dict[str, Any]], *,
         path_params: list[dict[str, Any]] = (), bad_input: str = "An unknown query parameter",  # type: ignore[assignment]  # an empty tuple as a default that is never changed
         in_language: bool = False, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """A cacheable GET operation; its query parameters are exactly QUERY_PARAMETERS[op_id].
    ``in_language``: the 200's body has sentences that follow Accept-Language."""
    ok_headers = _VERDICT_HEADERS if in_language else {**_CACHE_HEADERS, **(headers or {})}
    if in_language:
        description = f"{description}. The reasons' messages follow Accept-Language"
    responses: dict[str, Any] = {"200": _json(schema, description, ok_headers),
                                 "304": _VERDICT_NOT_MODIFIED if in_language else _NOT_MODIFIED,
                                 "400": _problem(bad_input), "503": _UNAVAILABLE, **_SERVER_LIMITS}
    if path_params:
        responses["404"] = _problem("No such path (for example a '/' inside the word)")
    operation: dict[str, Any] = {"summary": summary, "operationId": op_id, "responses": responses}
    operation["parameters"] = [*path_params, *(params[name] for name in QUERY_PARAMETERS[op_id]), ACCEPT_LANGUAGE]
    return {"get": operation}


def build_document(service: WordService) -> dict[str, Any]:
    """The document of ``service``: its default level and deck and the decks it offers."""
    default_level, decks = service.level, list(service.decks)
    level_schema = {"type": "integer", "enum": list(LEVELS), "description": "SCOWL size: larger sizes allow rarer words"}
    deck_schema = {"type": "string", "enum": decks,
                   "description": "The deck whose card counts limit the letters: double for 7 or 8 players"}
    params: dict[str, dict[str, Any]] = {
        "level": {"name": "level", "in": "query", "required": False,
                  "description": f"SCOWL size of the game's dictionary (default {default_level})",
                  "schema": {**level_schema, "default": default_level}},
        "deck": {"name": "deck", "in": "query", "required": False,
                 "description": f"The deck (default {service.deck.name})",
                 "schema": {**deck_schema, "default": service.deck.name}},
        "define": {"name": "define", "in": "query", "required": False,
                   "description": "true adds the word's meanings (WordNet 3.0, else GCIDE or the project's own glosses) as `definitions`",
                   "schema": {"type": "boolean", "default": False}},
        "limit": {"name": "limit", "in": "query", "required": False, "description": "At most this many words (the best; only these are built)",
                  "schema": {"type": "integer", "minimum": 1, "maximum": MAX_RACK_LIMIT}},
    }
    batch_fields = {"words": {"type": "array", "maxItems": MAX_BATCH_WORDS, "items": _ref("Word")},
                    "level": _ref("Level"), "deck": _ref("DeckName"),
                    "define": {"type": "boolean", "default": False,
                               "description": "true adds each word's meanings (WordNet 3.0, else GCIDE or the project's own glosses) as `definitions`"}}
    word_schema = {"type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHARS, "pattern": WORD_PATTERN}
    schemas: dict[str, Any] = {
        "Level": level_schema,
        "DeckName": deck_schema,
        "Word": word_schema,
        "Reason": {
            "type": "object", "additionalProperties": False, "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": list(REASON_CODES),
                         "description": "Why, for a program: the same in every language. too_short and too_long: "
                                        "the letter count; proper_noun, abbreviation, acronym, contraction: what the "
                                        "spelling is; phrase_piece: only part of a phrase or compound (QUO in status "
                                        "quo); uncommon: a real word above the chosen level; unknown: in no list at "
                                        "all; deck_limit: more copies of a letter than the deck holds"},
                "message": {"type": "string",
                            "description": "Why, for a person: in the language of Accept-Language "
                                          "(Content-Language names it)"},
            },
        },
        "Letter": {
            "type": "object", "additionalProperties": False, "required": ["letter", "points"],
            "properties": {"letter": {"type": "string", "pattern": "^[A-Z]$"}, "points": {"type": "integer", "minimum": 0}},
        },
        "Verdict": {
            "type": "object", "additionalProperties": False,
            "required": ["word", "legal", "reasons", "score", "letters", "level", "success_chance", "deck"],
            "properties": {
                "word": {"type": "string", "pattern": "^[A-Z]+$", "description": "The letters, upper case"},
                "legal": {"type": "boolean"},
                "reasons": {"type": "array", "items": _ref("Reason"), "description": "Empty when legal"},
                "score": {"type": "integer", "minimum": 0},
                "letters": {"type": "array", "items": _ref("Letter")},
                "level": {"type": ["integer", "null"], "enum": [*LEVELS, None],
                          "description": "Smallest SCOWL size listing the spelling in any sense; null if none"},
                "success_chance": {"type": "number", "minimum": 0, "maximum": 1},
                "deck": {"type": "string", "description": "The deck whose counts were applied"},
                "definitions": {
                    "type": "array", "items": _ref("Definition"),
                    "description": "Only when define is asked for: a few senses per part of speech from "
                                   "WordNet 3.0 (an inflection reaches its lemma), else GCIDE's first sense or the "
                                   "project's own glosses (the dictionary's sources credit each); empty when none has one",
                },
            },
        },
        "Definition": {
            "type": "object", "additionalProperties": False, "required": ["part_of_speech", "text"],
            "properties": {"part_of_speech": {"type": "string", "enum": list(PARTS_OF_SPEECH)},
                           "text": {"type": "string"}},
        },
        "BatchRequest": {
            "type": "object", "additionalProperties": False, "required": ["words"],
            "description": f"At most {MAX_BODY_BYTES // 1024} KiB, arrays and objects nested at most {MAX_JSON_DEPTH} deep",
            "properties": {name: batch_fields[name] for name in BATCH_FIELDS},
        },
        "BatchResponse": {
            "type": "object", "additionalProperties": False, "required": ["results"],
            "properties": {"results": {"type": "array", "maxItems": MAX_BATCH_WORDS, "items": _ref("Verdict")}},
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
            "type": "object", "additionalProperties": False, "required": ["letters", "level", "deck", "words"],
            "properties": {
                "letters": {"type": "string", "pattern": RACK_PATTERN},
                "level": _ref("Level"),
                "deck": _ref("DeckName"),
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
                         "max_rack_letters", "max_batch_words", "decks", "default_deck", "service_version"],
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
                "decks": {"type": "array", "items": _ref("DeckName"), "description": "The decks a request may name"},
                "default_deck": _ref("DeckName"),
                "service_version": {"type": "string", "description": "The version of this service (CHANGELOG.md)"},
                "sources": {"type": "array", "description": "Every source of the word data, with its version and licence",
                            "items": {"type": "object", "required": ["name", "version", "licence"],
                                      "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                                     "licence": {"type": "string"}}}},
                "definitions": {"type": "object", "description": "The definitions file: its source, entries and checksum",
                                "properties": {"source": {"type": ["string", "null"]}, "entries": {"type": ["integer", "null"]},
                                               "checksum": {"type": ["string", "null"]}}},
            },
        },
        "Health": {"type": "object", "additionalProperties": False, "required": ["status"],
                   "properties": {"status": {"const": "ok"}}},
        "Problem": {
            "type": "object", "required": ["type", "title", "status", "detail"],
            "description": "RFC 9457 problem details",
            "properties": {"type": {"type": "string", "description": "The kind of problem: the same in every language"},
                           "title": {"type": "string",
                                     "description": "The kind of problem, for a person, in the language of "
                                                    "Accept-Language (Content-Language names it)"},
                           "status": {"type": "integer", "minimum": 400, "maximum": 599},
                           "detail": {"type": "string",
                                      "description": "What is wrong and what to send instead, in the language of "
                                                     "Accept-Language (Content-Language names it)"}},
        },
    }
    word_param = {"name": "word", "in": "path", "required": True,
                  "description": f"Up to {MAX_INPUT_CHARS} characters: letters, with ' or . inside (don't, u.s.a.). "
                                 "Like the referee, the service folds accented Latin letters (é is E).",
                  "schema": _ref("Word")}
    rack_param = {"name": "letters", "in": "path", "required": True,
                  "description": f"1 to {MAX_RACK_LETTERS} letters A-Z: a rack is a hand, and a hand holds "
                                 f"{MAX_RACK_LETTERS} cards (a longer rack is a 400 invalid-rack problem)",
                  "schema": {"type": "string", "pattern": RACK_PATTERN}}
    paths: dict[str, Any] = {
        "/v1/words/{word}": _get(
            "Judge one word", "getWord", _ref("Verdict"),
            "The verdict (a word that is not playable is still a 200, with legal false and the reasons)", params,
            path_params=[word_param], in_language=True,
            bad_input=f"Digits or symbols in the word, more than {MAX_INPUT_CHARS} characters, no such level or deck, "
                      "or an unknown query parameter"),
        "/v1/words": {"post": {
            "summary": f"Judge up to {MAX_BATCH_WORDS:,} words", "operationId": "postWords",
            "parameters": [ACCEPT_LANGUAGE],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("BatchRequest")}}},
            "responses": {
                "200": _json(_ref("BatchResponse"), "One verdict per word, in the order given; the reasons' "
                             "messages follow Accept-Language", _LANGUAGE_HEADERS),
                "400": _problem(f"Not the documented JSON (wrong type, missing or unknown field, nested too deep), "
                                f"more than {MAX_BATCH_WORDS:,} words, a malformed word, no such level or deck"),
                "408": _problem(f"The body did not arrive within {BODY_SECONDS:g} seconds (the connection is closed)"),
                "413": _problem(f"Body over {MAX_BODY_BYTES // 1024} KiB (chunked bodies too)"),
                "503": _UNAVAILABLE, **_SERVER_LIMITS,
            },
        }},
        "/v1/racks/{letters}": _get(
            "Words a rack can make", "getRack", _ref("Rack"), "Legal words from the letters, best first", params,
            path_params=[rack_param],
            bad_input=f"Not 1 to {MAX_RACK_LETTERS} letters (a hand), a bad limit, no such level or deck, "
                      "or an unknown query parameter"),
        "/v1/deck": _get("The card table", "getDeck", _ref("Deck"), "Every letter with its card count and points",
                         params, bad_input="No such deck, or an unknown query parameter"),
        "/v1/dictionary": _get("The dictionary", "getDictionary", _ref("DictionaryInfo"),
                               "Source, version, levels, counts, checksum, decks and the service's version", params),
        "/healthz": {"get": {"summary": "Health", "operationId": "healthz", "parameters": [ACCEPT_LANGUAGE],
                             "responses": {
            "200": _json(_ref("Health"), "The dictionary is open and its files still match their checksums"),
            "400": _problem("An unknown query parameter"),
            "503": _UNAVAILABLE, **_SERVER_LIMITS}}},
        "/openapi.json": _get("This document", "openapi", {"type": "object"}, "The OpenAPI 3.1 document (in English)",
                              params, headers={"Content-Language": {"description": "en", "required": True,
                                                                    "schema": {"const": "en"}}}),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Unspeakable Words word service",
            "version": __version__,
            "description": "Verdicts on words, rack search and the card table for the game Unspeakable Words. "
                           "Errors are application/problem+json (RFC 9457).\n\n" + LANGUAGE_NOTE,
            "license": {"name": "MIT; word data: SCOWL", "identifier": "MIT"},
        },
        "servers": [{"url": "/", "description": "This server (the document is served at /openapi.json)"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }
