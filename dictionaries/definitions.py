"""Short definitions of a word (WordNet's, else the project's own glosses), from the
memory-mapped files the build writes.

A table disputing a word wants to know what it means. ``definitions("taps")`` gives the senses of
TAPS and of its lemma TAP (a few per part of speech), or an empty list when neither source has one.
The files live beside the word files (``UW_DICTIONARY`` or the package data) but outside
``DATA_FILES``: judging a word never opens them.
"""
from __future__ import annotations

import mmap
import os
import struct
from functools import cache
from typing import NamedTuple

import marisa_trie

from dictionaries import (
    DEFINITION_FILES,
    DEFINITION_ID_BYTES,
    DEFINITIONS_MAGIC,
    DEFINITIONS_TEXT,
    DEFINITIONS_TRIE,
    METADATA,
    OWN_FLAG,
    PARTS_OF_SPEECH,
    SOURCE_NAMES,
)
from dictionaries.dictionary import check_sizes, default_path, read_metadata
from dictionaries.errors import DictionaryError
from dictionaries.i18n import msg
from dictionaries.verdict import normalize_word

_HEADER = len(DEFINITIONS_MAGIC) + 4
_SOURCE_BITS = OWN_FLAG


class Definition(NamedTuple):
    """One sense of a word: its part of speech (noun, verb, adjective, adverb...), a short gloss and
    the dictionary it comes from ("WordNet", or "own glosses" for words WordNet does not define, written
    for the project), to credit it."""

    part_of_speech: str
    text: str
    source: str = "WordNet"

    def to_dict(self) -> dict[str, str]:
        return {"part_of_speech": self.part_of_speech, "text": self.text}


class Definitions:
    """The definition files of a built dictionary directory, memory-mapped."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = os.fspath(path) if path is not None else default_path()
        meta_path = os.path.join(self.path, METADATA)
        _, metadata = read_metadata(meta_path)
        info = metadata.get("definitions") if isinstance(metadata, dict) else None
        if not isinstance(info, dict):
            raise DictionaryError(msg("dictionary {path} was built without definitions (no 'definitions' in "
                                      "{metadata})", path=self.path, metadata=meta_path))
        check_sizes(self.path, {name: info.get("files", {}).get(name, {}).get("bytes") for name in DEFINITION_FILES})
        try:
            self._trie = marisa_trie.BytesTrie().mmap(str(os.path.join(self.path, DEFINITIONS_TRIE)))
        except Exception as exc:  # marisa raises plain Exception subclasses for bad files
            raise DictionaryError(msg("dictionary file {path} is not a valid marisa trie: {why}",
                                      path=os.path.join(self.path, DEFINITIONS_TRIE), why=exc)) from None
        with open(os.path.join(self.path, DEFINITIONS_TEXT), "rb") as handle:
            self._text = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        count = struct.unpack_from("<I", self._text, len(DEFINITIONS_MAGIC))[0] if len(self._text) >= _HEADER else -1
        if self._text[:len(DEFINITIONS_MAGIC)] != DEFINITIONS_MAGIC or count != info.get("glosses") \
                or len(self._text) < _HEADER + 4 * (count + 1):
            raise DictionaryError(msg("dictionary file {path} does not match {metadata}",
                                      path=os.path.join(self.path, DEFINITIONS_TEXT), metadata=meta_path))
        self._offsets = memoryview(self._text)[_HEADER:_HEADER + 4 * (count + 1)].cast("I")
        self._base = _HEADER + 4 * (count + 1)
        self.checksum: str = info.get("checksum", "")

    def lookup(self, key: str) -> list[Definition]:
        """The definitions of a lower-case a-z key (its lemmas' when it is an inflection)."""
        found = self._trie.get(key)
        if not found:
            return []
        payload = found[0]
        text, offsets, base, parts = self._text, self._offsets, self._base, PARTS_OF_SPEECH
        result = []
        for i in range(0, len(payload), DEFINITION_ID_BYTES):
            gloss = int.from_bytes(payload[i:i + DEFINITION_ID_BYTES], "little")
            start, end = base + offsets[gloss], base + offsets[gloss + 1]
            flags = text[start]
            result.append(Definition(parts[flags & ~_SOURCE_BITS], text[start + 1:end].decode("utf-8"),
                                     SOURCE_NAMES[flags & _SOURCE_BITS]))
        return result

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._trie


@cache
def open_definitions(path: str | None = None) -> Definitions:
    """One Definitions per path per process (the default path when None)."""
    return Definitions(path)


def definitions(word: str, path: str | None = None) -> list[Definition]:
    """Short definitions of ``word`` (inflections reach their lemma); [] when WordNet has none.

    ``word`` is read as a verdict reads it (case, accents, apostrophes and periods do not matter);
    InvalidWord names input that is not a word, DictionaryError a missing or damaged file.
    """
    return open_definitions(path).lookup(normalize_word(word))
