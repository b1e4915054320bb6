"""What every view of the word service shares: the app's WordService and compact JSON responses."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from flask import Response, current_app

from dictionaries.deck import Deck
from dictionaries.dictionary import Dictionary

#: ``Cache-Control`` of successful GET answers: they change only with the dictionary.
CACHE_CONTROL = "public, max-age=86400"


@dataclass(frozen=True)
class WordService:
    """What the views need: the open dictionary, the deck, the default level and the ETag seed."""

    dictionary: Dictionary
    deck: Deck
    level: int
    etag_seed: bytes

    def etag(self, path: str, query: bytes) -> str:
        """An ETag for a GET of ``path``?``query``: it changes with the dictionary, the config and the code.

        ``path`` is the WSGI PATH_INFO (latin-1 decoded bytes), so any path encodes.
        """
        digest = hashlib.blake2b(self.etag_seed, digest_size=12)
        digest.update(path.encode("latin-1", "replace"))
        digest.update(b"?")
        digest.update(query)
        return digest.hexdigest()


def word_service() -> WordService:
    """The WordService of the current application."""
    return current_app.extensions["word_service"]


def json_response(payload: Any, status: int = 200, content_type: str = "application/json") -> Response:
    """A compact JSON response (the hot path skips Flask's slower, key-sorting jsonify)."""
    return Response(_dumps(payload), status=status, content_type=content_type)


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
