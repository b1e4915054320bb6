"""What every part of the word service shares: its limits, the WordService of an app, ETags,
the language of a request and compact JSON responses.

The limits live here once: the code enforces them and ``service/openapi.py`` documents them.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from flask import Response, current_app

from dictionaries.deck import Deck
from dictionaries.dictionary import MAX_RACK_LETTERS, Dictionary
from dictionaries.errors import DictionaryError
from dictionaries.i18n import DEFAULT_LANGUAGE, best_language

#: ``Cache-Control`` of successful GET answers: they change only with the dictionary.
CACHE_CONTROL = "public, max-age=86400"
#: Largest request line, header count and header line gunicorn accepts (414 and 431 beyond):
#: a word is at most 64 characters, so a request needs little.
MAX_REQUEST_LINE = 2048
MAX_HEADER_FIELDS = 50
MAX_HEADER_FIELD_BYTES = 4096
#: Largest request body accepted (a batch of 1,000 words fits easily).
MAX_BODY_BYTES = 64 * 1024
#: Deepest nesting of arrays and objects in a request body (a batch needs 2), checked before parsing.
MAX_JSON_DEPTH = 8
#: Seconds a request body may take to arrive (a 64 KiB body on a slow mobile link takes ~1 s).
BODY_SECONDS = 10.0
#: Most words in one ``POST /v1/words``.
MAX_BATCH_WORDS = 1000
#: Largest ``limit`` of a rack search.
MAX_RACK_LIMIT = 10000
#: Seconds between two looks at the dictionary files' status (size, times, inode) in a worker.
INTEGRITY_CHECK_SECONDS = 1.0



def _folding_letters() -> str:
    """Accented Latin letters (U+00C0 to U+017F) that fold to one letter A-Z, as regex ranges."""
    codes = []
    for code in range(0xC0, 0x180):
        char = chr(code)
        folded = "".join(c for c in unicodedata.normalize("NFKD", char.lower()) if not unicodedata.combining(c))
        if char.isalpha() and len(folded) == 1 and "a" <= folded <= "z":
            codes.append(code)
    ranges: list[str] = []
    start = previous = codes[0]
    for code in [*codes[1:], -1]:
        if code != previous + 1:
            ranges.append(chr(start) if start == previous else f"{chr(start)}-{chr(previous)}")
            start = code
        previous = code
    return "".join(ranges)


#: A letter of a word as input: A-Z, or an accented Latin letter the verdict folds (é is E).
WORD_LETTER = f"A-Za-z{_folding_letters()}"
#: What a word may hold (the OpenAPI document and the code use this one pattern): letters,
#: with apostrophes or periods (don't, u.s.a.); nothing else, not even surrounding spaces.
WORD_PATTERN = rf"^[{WORD_LETTER}.']*[{WORD_LETTER}][{WORD_LETTER}.']*$"
#: What a rack may hold.
RACK_PATTERN = rf"^[A-Za-z]{{1,{MAX_RACK_LETTERS}}}$"
WORD_RE = re.compile(WORD_PATTERN)
RACK_RE = re.compile(RACK_PATTERN)

#: The query parameters of each operation (OpenAPI operationId): the code refuses any other,
#: and the OpenAPI document lists exactly these.
QUERY_PARAMETERS: dict[str, tuple[str, ...]] = {
    "getWord": ("level", "deck", "define"),
    "postWords": (),
    "getRack": ("level", "deck", "limit"),
    "getDeck": ("deck",),
    "getDictionary": (),
    "healthz": (),
    "openapi": (),
}
#: The fields of a batch body, ``words`` required.
BATCH_FIELDS: tuple[str, ...] = ("words", "level", "deck", "define")


class BatchWriter(Protocol):
    """A batch's verdict JSON (service.verdict_text.VerdictWriter)."""

    def write_all(self, words: list[Any]) -> list[str]: ...

    def write_body(self, words: list[Any]) -> bytes | None: ...


class LanguageVerdicts(Protocol):
    """What WordService.verdicts holds per language (service.answers.Verdicts, which imports this module)."""

    def __call__(self, word: str, level: int, deck: str) -> str: ...

    def body(self, word: str, level: int, deck: str) -> bytes: ...

    def one(self, word: str) -> bytes: ...

    def writer(self, level: int, deck: str) -> BatchWriter: ...


class DictionaryDamaged(Exception):
    """The dictionary files changed under the running server and no longer match their checksums."""


@dataclass
class WordService:
    """What the views need: the open dictionary, the decks, the default level and the ETag seed.

    ``decks`` maps every deck a request may name (``standard``, ``double`` and a custom deck of the
    server's) to the deck; ``deck`` is the one used when a request names none.
    """

    dictionary: Dictionary
    deck: Deck
    decks: Mapping[str, Deck]
    level: int
    etag_seed: bytes
    #: Per language: ``(word, level, deck name) -> verdict JSON`` (checked, judged, the reasons' messages in
    #: that language; ``.body(...)`` the same in UTF-8, ``.one(word)`` at the service's own level and deck) and
    #: ``.writer(level, deck name)`` for batches: service.answers.Verdicts
    verdicts: Mapping[str, LanguageVerdicts]
    _signature: tuple[Any, ...] = field(default=(), repr=False)
    _next_check: float = field(default=0.0, repr=False)
    _damage: str | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _etag_start: Any = field(default=None, repr=False)  # the seed's hash state, copied for each ETag

    def __post_init__(self) -> None:
        self._etag_start = hashlib.blake2b(self.etag_seed, digest_size=12)

    def etag(self, path: str, query: bytes, language: str = DEFAULT_LANGUAGE) -> str:
        """An ETag for a GET of ``path``?``query``: it changes with the dictionary, the config and the code,
        and with the ``language`` of a body whose sentences follow Accept-Language (an English and a
        Spanish verdict never share a tag; English keeps the tag it had before there was a choice).

        ``path`` is the WSGI PATH_INFO (latin-1 decoded bytes), so any path encodes.
        """
        digest: hashlib.blake2b = self._etag_start.copy()
        if language == DEFAULT_LANGUAGE:  # one update of the same bytes: the same digest
            digest.update(b"%s?%s" % (path.encode("latin-1", "replace"), query))
        else:
            digest.update(b"%s?%s#%s" % (path.encode("latin-1", "replace"), query, language.encode("ascii")))
        return digest.hexdigest()

    def verified(self) -> None:
        """Record the files' status after a full checksum verification (at start)."""
        self._signature = self.dictionary.file_signature()
        self._next_check = time.monotonic() + INTEGRITY_CHECK_SECONDS

    def check_intact(self) -> None:
        """DictionaryDamaged once the files no longer match their checksums.

        At most once a second, the files' status (inode, size, change time) is compared with the
        verified one; only a change costs a new checksum pass. Damage is final for this process:
        its memory maps may hold the damaged bytes.
        """
        if self._damage is not None:
            raise DictionaryDamaged(self._damage)
        now = time.monotonic()
        if now < self._next_check:
            return
        with self._lock:  # one thread of a worker checks; the others go on
            if self._damage is None and now >= self._next_check:
                self._next_check = now + INTEGRITY_CHECK_SECONDS
                try:
                    signature = self.dictionary.file_signature()
                    if signature != self._signature:
                        self.dictionary.verify()
                        self._signature = signature
                except DictionaryError as exc:
                    self._damage = str(exc)
        if self._damage is not None:
            raise DictionaryDamaged(self._damage)


def word_service() -> WordService:
    """The WordService of the current application."""
    service: WordService = current_app.extensions["word_service"]
    return service


#: The header naming the request header a body's language depends on.
VARY_LANGUAGE = ("Vary", "Accept-Language")

#: The language for an ``Accept-Language`` value, remembered for the values clients send again and
#: again (a browser sends the same header on every request); bounded, so odd values cannot grow it.
_language_for = lru_cache(maxsize=256)(best_language)


def request_language(environ: Mapping[str, Any]) -> str:
    """The language a request's answer speaks: the best of its ``Accept-Language`` that the service
    speaks (``en`` or ``es``, q-values honoured), English when it sends none or none fits."""
    header = environ.get("HTTP_ACCEPT_LANGUAGE")
    return _language_for(header) if header else DEFAULT_LANGUAGE


def language_headers(language: str) -> list[tuple[str, str]]:
    """The headers of a body whose sentences follow Accept-Language: which language it is in, and
    that caches must keep one copy per Accept-Language."""
    return [("Content-Language", language), VARY_LANGUAGE]


def etag_matches(if_none_match: str, tag: str) -> bool:
    """Whether an ``If-None-Match`` header value names ``tag`` (weak comparison, ``*`` matches)."""
    for part in if_none_match.split(","):
        part = part.strip()
        if part == "*":
            return True
        if part.startswith("W/"):
            part = part[2:]
        if part == f'"{tag}"':
            return True
    return False


def json_response(payload: Any, status: int = 200, content_type: str = "application/json") -> Response:
    """A compact JSON response (the hot path skips Flask's slower, key-sorting jsonify)."""
    return Response(_dumps(payload), status=status, content_type=content_type)


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
