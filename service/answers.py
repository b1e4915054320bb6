"""The answer path of the word API: a verdict as JSON (written directly, in the request's language), the
verdicts kept per worker and language, and the whole answers to the two hot requests (``GET
/v1/words/<word>`` and ``GET /healthz``), which the WSGI fast path and the Flask views both send.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from json.encoder import encode_basestring  # the C string encoder
from typing import Any

from dictionaries.deck import Deck
from dictionaries.dictionary import Dictionary
from dictionaries.errors import InvalidWord
from dictionaries.i18n import DEFAULT_LANGUAGE, LANGUAGES, _, ngettext, say_in
from dictionaries.verdict import MAX_INPUT_CHARS, Verdict, judge
from service.core import CACHE_CONTROL, VARY_LANGUAGE, WORD_RE, WordService, etag_matches, request_language

#: Verdicts (as JSON text) kept per worker and language: the dictionary never changes under a running
#: server, so a word asked again is answered from memory (about 300 bytes each).
VERDICT_CACHE_WORDS = 50_000

# -- verdict JSON ---------------------------------------------------------------------------------

class _LetterJson(dict[tuple[str, int], str]):
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
