"""The HTTP API, version 1: verdicts, batches, racks, the deck and the dictionary (JSON only): the views.

The views only parse requests (``service.params``) and shape answers (``service.answers``); every word
question goes to ``judge`` and ``Dictionary.rack``. ``/healthz`` and ``/openapi.json`` live outside the
versioned blueprint. A request is checked strictly: an unknown query parameter or body field is a 400
naming it (a typo must not silently change an answer), and every 400 says what to send instead.

Every sentence a person reads (a reason's ``message``, a problem's ``title`` and ``detail``) is in
the language of the request's ``Accept-Language`` (``service.core.request_language``): the service's
own sentences through ``_``/``ngettext`` (the language is set for each request), the library's
through ``say_in``/``message_of``. Codes, field names and the words themselves never change.
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from dictionaries import LEVELS
from dictionaries.dictionary import MAX_RACK_LETTERS
from dictionaries.errors import InvalidRack, InvalidWord
from dictionaries.i18n import _, message_of, say_in
from service.answers import health_answer, with_definitions, word_answer
from service.core import (
    CACHE_CONTROL,
    MAX_BATCH_WORDS,
    RACK_RE,
    WordService,
    etag_matches,
    json_response,
    language_headers,
    request_language,
    word_service,
)
from service.params import batch_body, deck_name, json_type, query_args, query_define, query_level, query_limit
from service.verdict_text import WordAt
from unspeakable_words import __version__

api = Blueprint("v1", __name__, url_prefix="/v1")
root = Blueprint("root", __name__)


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
    language = request_language(environ)
    verdicts = service.verdicts[language]
    status, headers, body = word_answer(service, environ.get("PATH_INFO", ""),
                                        environ.get("QUERY_STRING", "").encode("latin-1"),
                                        environ.get("HTTP_IF_NONE_MATCH"), word,
                                        lambda text: verdicts.body(text, level, deck), define, language)
    return Response(body, status=status, headers=headers)


@api.post("/words")
def post_words() -> Response:
    """Verdicts on up to 1,000 words, in the order given."""
    service = word_service()
    query_args("postWords")
    words, level, deck, define = batch_body(service)
    language = request_language(request.environ)
    writer = service.verdicts[language].writer(level, deck)
    body = None if define else writer.write_body(words)  # a batch goes round the single words' cache
    if body is not None:
        return Response(body, content_type="application/json", headers=language_headers(language))
    try:
        results = writer.write_all(words)
    except WordAt as at:
        if at.error is None:
            raise InvalidWord(_("words[{index}] must be a string, got {type}").format(
                index=at.index, type=json_type(words[at.index]))) from None
        # TRANSLATORS: {error} is a whole sentence saying what is wrong with the word
        raise InvalidWord(_("words[{index}]: {error}").format(index=at.index,
                                                               error=say_in(message_of(at.error), language))) from None
    if define:
        results = [with_definitions(service, word, text) for word, text in zip(words, results)]
    # One join and one encode make the body (a batch's answer is ~300 KB: every copy of it costs).
    if not results:
        return Response(b'{"results":[]}', content_type="application/json", headers=language_headers(language))
    results[0] = f'{{"results":[{results[0]}'  # the first and last verdicts carry the wrapper: no second copy
    results[-1] = f"{results[-1]}]}}"
    return Response(",".join(results).encode(), content_type="application/json", headers=language_headers(language))


@api.get("/racks/<letters>")
def get_rack(letters: str) -> Response:
    """Every legal word a rack (a hand: up to MAX_RACK_LETTERS letters) can make, best first; ``limit``
    bounds the words made, the rack's letters the search."""
    service = word_service()
    args = query_args("getRack")
    level, limit = query_level(service, args), query_limit(args)
    deck = deck_name(service, args.get("deck", service.deck.name))
    if not RACK_RE.fullmatch(letters):
        bad = sorted({c for c in letters if not ("a" <= c <= "z" or "A" <= c <= "Z")})
        if bad:
            raise InvalidRack(_("rack {rack} has characters that are not letters A-Z: {characters}; send only letters")
                              .format(rack=repr(letters[:40]), characters=" ".join(map(repr, bad[:10]))))
        # The route holds at least one character: too many letters.
        # TRANSLATORS: {most} is the cards in a hand (7): no rack needs more letters
        raise InvalidRack(_("rack {rack} has {n} letters; a rack is a hand, so send 1 to {most} letters").format(
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
