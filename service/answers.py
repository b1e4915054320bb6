"""The answer path of the word API: a verdict as JSON (written directly, in the request's language), the
verdicts kept per worker and language, and the whole answers to the two hot requests (``GET
/v1/words/<word>`` and ``GET /healthz``), which the WSGI fast path and the Flask views both send.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from dictionaries.deck import Deck
from dictionaries.dictionary import Dictionary
from dictionaries.i18n import DEFAULT_LANGUAGE, LANGUAGES
from dictionaries.verdict import MAX_INPUT_CHARS
from service.core import CACHE_CONTROL, VARY_LANGUAGE, WordService, etag_matches, request_language

# The verdicts' JSON lives in service/verdict_text.py; verdict_json and check_word are read from here too.
from service.verdict_text import VerdictWriter
from service.verdict_text import check_word as check_word
from service.verdict_text import verdict_json as verdict_json

#: Verdicts (as JSON in UTF-8) of single words kept per worker and language (about 300 bytes each) at the
#: service's own level and deck, and as many more shared by all other levels and decks: a page asks the same
#: words again and again. Few, so that memory stays flat whatever words are asked.
VERDICT_CACHE_WORDS = 1024


class CacheInfo(NamedTuple):
    """What a Verdicts' caches hold and did."""

    hits: int
    misses: int
    currsize: int


class Verdicts:
    """One language's verdicts as JSON: ``verdicts.body(word, level, deck name)`` (UTF-8) and ``verdicts(...)``
    (text) for single words, through a small cache (a word asked again, by a page or a player, costs a dict
    look-up), and ``writer(level, deck name)`` for batches, which go round any cache (a batch's words are
    seldom asked again).

    ``one(word)`` is ``body(word, level, deck)`` at the service's own level and deck, cached by the word
    alone: the path of a plain ``GET /v1/words/<word>``, where an unseen word costs a cache miss and its
    writer, no frame between them. Other levels and decks share a second cache of the same size."""

    def __init__(self, dictionary: Dictionary, decks: Mapping[str, Deck], language: str, level: int, deck: str) -> None:
        self.dictionary, self.decks, self.language, self.level, self.deck = dictionary, decks, language, level, deck
        self._writers: dict[tuple[int, str], VerdictWriter] = {}
        self.one = lru_cache(maxsize=VERDICT_CACHE_WORDS)(self.writer(level, deck).write_one)
        self._others = lru_cache(maxsize=VERDICT_CACHE_WORDS)(self._body)

    def __call__(self, word: str, level: int, deck: str) -> str:
        return self.body(word, level, deck).decode()

    def body(self, word: str, level: int, deck: str) -> bytes:
        """The verdict on ``word`` at ``level`` and ``deck`` as JSON in UTF-8, from a cache when asked before."""
        if level == self.level and deck == self.deck:
            return self.one(word)
        return self._others(word, level, deck)

    def cache_info(self) -> CacheInfo:
        """Hits, misses and words kept, over both caches."""
        one, others = self.one.cache_info(), self._others.cache_info()
        return CacheInfo(one.hits + others.hits, one.misses + others.misses, one.currsize + others.currsize)

    def writer(self, level: int, deck: str) -> VerdictWriter:
        """The writer of one level and deck, made once (the service's levels and decks: a bounded set)."""
        found = self._writers.get((level, deck))
        if found is None:
            found = self._writers[(level, deck)] = VerdictWriter(self.dictionary, level, self.decks[deck], deck,
                                                                 self.language)
        return found

    def _body(self, word: str, level: int, deck: str) -> bytes:
        return self.writer(level, deck).write_one(word)


def verdict_writers(dictionary: Dictionary, decks: Mapping[str, Deck], level: int, deck: str) -> dict[str, Verdicts]:
    """For each language: its Verdicts (single words through a small cache, batches through a VerdictWriter);
    ``level`` and ``deck`` are the service's own, which a plain ``GET /v1/words/<word>`` asks for."""
    return {language: Verdicts(dictionary, decks, language, level, deck) for language in LANGUAGES}


def with_definitions(service: WordService, word: str, verdict_text: str) -> str:
    """The verdict JSON with ``"definitions"`` added: WordNet's senses of the word ([] when none)."""
    from dictionaries.definitions import open_definitions
    from dictionaries.verdict import normalize_word

    senses = open_definitions(service.dictionary.path).lookup(normalize_word(word))
    return f'{verdict_text[:-1]},"definitions":{_dumps([sense.to_dict() for sense in senses])}}}'


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


# -- the one answer to GET /v1/words/<word> -------------------------------------------------------

def word_answer(service: WordService, path: str, query: bytes, if_none_match: str | None, word: str,
                body_of: Callable[[str], bytes], define: bool = False,
                language: str = DEFAULT_LANGUAGE, checked: bool = False) -> tuple[str, list[tuple[str, str]], bytes]:
    """Status line, headers and body of ``GET /v1/words/<word>``: the WSGI fast path and the
    Flask view both answer with this. The ETag depends only on the request (its path, query and
    language), so a matching ``If-None-Match`` is a 304 before any judging. The reasons' messages
    are in ``language``: the answer says which (Content-Language) and that it varies with
    Accept-Language, a 304 too (RFC 9110 15.4.5). ``body_of(word)`` is the verdict's JSON in UTF-8 at the
    level and deck asked, from ``service.verdicts[language]``: the caller takes both from the same language."""
    service.check_intact()
    if not checked:  # the fast path sends plain letters only
        check_word(word)  # an error is never a 304
    tag = f'"{service.etag(path, query, language)}"'
    if if_none_match is not None and etag_matches(if_none_match, tag[1:-1]):
        return "304 NOT MODIFIED", [("ETag", tag), ("Cache-Control", CACHE_CONTROL), VARY_LANGUAGE], b""
    body = body_of(word)
    if define:
        body = with_definitions(service, word, body.decode()).encode()
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
    prefix = _WORDS_PREFIX
    ones = {language: verdicts.one for language, verdicts in service.verdicts.items()}

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
        language = request_language(environ)
        return word_answer(service, path, b"", environ.get("HTTP_IF_NONE_MATCH"), word, ones[language], False,
                           language, checked=True)

    return answer
