"""Open the built dictionary (memory-mapped), look up spellings and search racks.

The files are memory-mapped, so processes share their pages and nothing large is held per
process. ``UW_DICTIONARY`` points to another directory of built files.
"""
from __future__ import annotations

import heapq
import json
import mmap
import os
import struct
import sys
from collections import namedtuple
from functools import cache

import marisa_trie

from dictionaries import (
    DATA_DIR,
    DATA_FILES,
    DEFAULT_LEVEL,
    FORMAT_VERSION,
    FORMS_TRIE,
    LEVELS,
    MAX_WORD_LETTERS,
    METADATA,
    NODE_FORMAT,
    PHRASE_PIECE,
    PHRASE_PIECE_INDEX,
    RACKS_NODES,
    RACKS_TRIE,
    RACKS_WORDS,
    RECORD_FILES,
    RECORD_FORMAT,
    RECORD_FORMS,
    RECORD_LEVELS,
    SENSES,
    WORDS_LEVELS,
    WORDS_RECORDS,
    WORDS_TRIE,
)
from dictionaries.deck import STANDARD, Deck
from dictionaries.errors import DictionaryError, InvalidLevel, InvalidRack
from dictionaries.i18n import msg
from dictionaries.rules import CHANCES, HAND_SIZE

#: Most letters of a rack: a hand (RULES.md: 7 cards). A rack is a hand, or a discarded hand for Spell
#: Binding (the referee checks that it is the player's hand), so no play needs more. The bound is also
#: what bounds a search's work: at most 2^7 = 128 sub-racks, whatever ``limit`` says (a 20-letter rack
#: once cost 126 ms; see benchmarks/bench_words.py for the worst 7-letter rack).
MAX_RACK_LETTERS = HAND_SIZE
_NODE = struct.Struct(NODE_FORMAT)
_NODE_SIZE = _NODE.size
_RECORD_SIZE = struct.calcsize(RECORD_FORMAT)
_N_SENSES = len(SENSES)
_SENSE_INDEX = {sense: i for i, sense in enumerate(SENSES)} | {PHRASE_PIECE: PHRASE_PIECE_INDEX}
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


_LEVEL_CODES = {size: i + 1 for i, size in enumerate(LEVELS)}


def level_code(level: int | str | None) -> int:
    """The code (1..10) of a SCOWL size; anything else is an InvalidLevel naming the input."""
    if level is None:
        level = DEFAULT_LEVEL
    if type(level) is int and level in _LEVEL_CODES:
        return _LEVEL_CODES[level]
    try:
        value = int(level) if not isinstance(level, bool) else None
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(float('inf'))
        value = None
    if value is None or value not in LEVELS or (isinstance(level, float) and level != value):
        raise InvalidLevel(msg("level {level!r} is not a SCOWL size; choose one of {sizes}", level=level,
                                sizes=", ".join(map(str, LEVELS))))
    return LEVELS.index(value) + 1


_CHANCES = CHANCES


TYPE_CHECKING = False  # typing costs more to import than a word check takes: its names are for the checkers
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    class _RackWord(NamedTuple):
        word: str
        score: int
        success_chance: float
else:  # the same fields as a plain named tuple (tests/test_verdict.py holds them to the typed ones)
    _RackWord = namedtuple("_RackWord", ("word", "score", "success_chance"))


class RackWord(_RackWord):
    """One word a rack allows."""

    __slots__ = ()

    def to_dict(self) -> dict[str, object]:
        return {"word": self.word, "score": self.score, "success_chance": self.success_chance}



def records_deck_table(deck: Deck) -> dict[str, dict[str, int]]:
    """A deck's counts and points as the records' metadata keeps them (the deck the records were made with)."""
    return {"counts": dict(sorted(deck.counts.items())), "points": dict(sorted(deck.points.items()))}


def default_path() -> str:
    """``UW_DICTIONARY`` when set, else the data shipped with the package."""
    env = os.environ.get("UW_DICTIONARY")
    return env if env else DATA_DIR


class Dictionary:
    """A built dictionary, memory-mapped from ``path``.

    Opening it checks every file's size and, unless ``verify`` is False, its SHA-256 against
    ``metadata.json`` (the word files and the verdicts' records, ~11 MB): a damaged file is refused before it
    can give a wrong answer or an IndexError.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, verify: bool = True) -> None:
        self.path = os.fspath(path) if path is not None else default_path()
        meta_path = os.path.join(self.path, METADATA)
        self._metadata_bytes, self.metadata = read_metadata(meta_path)
        found = self.metadata.get("format_version") if isinstance(self.metadata, dict) else None
        if found != FORMAT_VERSION:
            raise DictionaryError(msg("dictionary file {path} has format version {found!r}; this program reads "
                                      "version {version}", path=meta_path, found=found, version=FORMAT_VERSION))
        files = self.metadata.get("files")
        if not isinstance(files, dict) or not all(isinstance(files.get(name), dict) for name in DATA_FILES):
            raise DictionaryError(msg("dictionary file {path} does not describe every data file; rebuild the "
                                      "dictionary", path=meta_path))
        check_sizes(self.path, {name: files[name].get("bytes") for name in DATA_FILES})
        if verify:
            self.verify()
        self._words = self._trie(marisa_trie.Trie, WORDS_TRIE)
        self._racks = self._trie(marisa_trie.Trie, RACKS_TRIE)
        self._forms = self._trie(marisa_trie.BytesTrie, FORMS_TRIE)
        self._levels = self._map(WORDS_LEVELS)
        self._nodes = self._map(RACKS_NODES)
        self._rack_words = self._map(RACKS_WORDS)
        # Cross-checks that the files belong together (also when opened without ``verify``).
        for name, size, expected in (
            (WORDS_TRIE, len(self._words), self.metadata.get("keys")),
            (WORDS_LEVELS, len(self._levels), len(self._words) * _N_SENSES),
            (RACKS_TRIE, len(self._racks), self.metadata.get("rack_nodes")),
            (RACKS_NODES, len(self._nodes), len(self._racks) * _NODE_SIZE),
            (RACKS_WORDS, len(self._rack_words), 4 * (self.metadata.get("rack_words") or 0)),
        ):
            if size != expected:
                raise DictionaryError(msg("dictionary file {path} does not match {metadata} ({size} entries or bytes, "
                                          "expected {expected})", path=os.path.join(self.path, name),
                                          metadata=meta_path, size=size, expected=expected))
        self._rack_word_ids = memoryview(self._rack_words).cast("I") if len(self._rack_words) else ()
        self.checksum: str = self.metadata.get("checksum", "")
        self._open_records(meta_path)

    def _open_records(self, meta_path: str) -> None:
        """The verdicts' records (``words.records``, ``records.forms``) when the metadata lists them in
        this program's format: ``records`` and ``record_forms`` (memory maps), ``records_deck`` (the
        standard deck they were made with); else all None, and verdicts read the other files."""
        self.records: mmap.mmap | bytes | None = None
        self.record_forms: mmap.mmap | bytes | None = None
        self.records_deck: Any = None
        self.record_levels: bytes = b""
        entry = self.metadata.get("records")
        if not isinstance(entry, dict) or entry.get("format") != RECORD_FORMAT:
            return
        files = entry.get("files")
        if not isinstance(files, dict) or not all(isinstance(files.get(name), dict) for name in RECORD_FILES):
            raise DictionaryError(msg("dictionary file {path} does not describe every data file; rebuild the "
                                      "dictionary", path=meta_path))
        check_sizes(self.path, {name: files[name].get("bytes") for name in RECORD_FILES})
        records, levels = self._map(WORDS_RECORDS), self._map(RECORD_LEVELS)
        for name, size, expected in ((WORDS_RECORDS, len(records), len(self._words) * _RECORD_SIZE),
                                     (RECORD_LEVELS, len(levels) % _N_SENSES, 0)):
            if size != expected:
                raise DictionaryError(msg("dictionary file {path} does not match {metadata} ({size} entries or bytes, "
                                          "expected {expected})", path=os.path.join(self.path, name),
                                          metadata=meta_path, size=size, expected=expected))
        self.records, self.record_forms, self.records_deck = records, self._map(RECORD_FORMS), entry.get("deck")
        self.record_levels = bytes(levels)  # a few kB, read at every verdict

    def _checked_files(self) -> dict[str, Any]:
        """Every file whose checksum ``metadata.json`` keeps for the word loader: name -> its entry."""
        files = dict(self.metadata.get("files") or {})
        records = self.metadata.get("records")
        if isinstance(records, dict) and records.get("format") == RECORD_FORMAT:
            files.update(records.get("files") or {})
        return files

    # -- integrity --------------------------------------------------------------------------------

    def verify(self) -> None:
        """DictionaryError naming the first file whose SHA-256 is not the one in ``metadata.json``
        (the metadata file itself must still be the one read at opening)."""
        import hashlib  # only when verifying: loading OpenSSL costs more than a word check

        meta_path = os.path.join(self.path, METADATA)
        try:
            with open(meta_path, "rb") as handle:
                meta_now = handle.read()
        except OSError:
            raise DictionaryError(msg("dictionary file {path} is missing or unreadable", path=meta_path)) from None
        if meta_now != self._metadata_bytes:
            raise DictionaryError(msg("dictionary file {path} changed since it was opened; restart to use the new "
                                      "files", path=meta_path))
        files = self.metadata.get("files")
        if not isinstance(files, dict) or any(name not in files for name in DATA_FILES):
            raise DictionaryError(msg("dictionary file {path} lists no checksum for some data files; rebuild it",
                                      path=meta_path))
        for name, entry in self._checked_files().items():
            file = os.path.join(self.path, name)
            expected = entry.get("sha256") if isinstance(entry, dict) else None
            try:
                with open(file, "rb") as handle:
                    found = hashlib.file_digest(handle, "sha256").hexdigest()
            except OSError:
                raise DictionaryError(msg("dictionary file {path} is missing or unreadable", path=file)) from None
            if found != expected:
                raise DictionaryError(msg("dictionary file {path} does not match its checksum in {metadata}: damaged "
                                          "or replaced; reinstall the package or rebuild the dictionary",
                                          path=file, metadata=meta_path))

    def file_signature(self) -> tuple[tuple[object, ...], ...]:
        """Inode, size and modification and change times of every file: cheap to take, and it
        changes whenever a file is written or replaced (the change time cannot be set back)."""
        names = (METADATA, *self._checked_files())
        signature: list[tuple[object, ...]] = []
        for name in names:
            try:
                st = os.stat(os.path.join(self.path, name))
            except OSError:
                signature.append((name, None))
            else:
                signature.append((name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        return tuple(signature)

    def _trie(self, kind: type, name: str) -> Any:
        try:
            return kind().mmap(str(os.path.join(self.path, name)))
        except Exception as exc:  # marisa raises plain Exception subclasses for bad files
            raise DictionaryError(msg("dictionary file {path} is not a valid marisa trie: {why}",
                                      path=os.path.join(self.path, name), why=exc)) from None

    def _map(self, name: str) -> mmap.mmap | bytes:
        file = os.path.join(self.path, name)
        with open(file, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return b""
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)

    # -- look-ups ---------------------------------------------------------------------------------

    def senses(self, key: str) -> bytes | None:
        """The level code per sense (order of SENSES; 0 = absent) of a lower-case a-z key."""
        index = self._words.get(key)
        if index is None:
            return None
        start = index * _N_SENSES
        return self._levels[start:start + _N_SENSES]

    def word_code(self, key: str) -> int:
        """Level code of the playable-word sense of ``key`` (0 when it is not a word at all)."""
        index = self._words.get(key)
        return 0 if index is None else self._levels[index * _N_SENSES]

    def form(self, key: str, sense: str) -> str | None:
        """How SCOWL (or the overlay) writes ``key`` in ``sense``, e.g. dont -> don't."""
        wanted = _SENSE_INDEX[sense]
        for value in self._forms.get(key, ()):
            if value[0] == wanted:
                spelling: str = value[1:].decode("utf-8")
                return spelling
        return None

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._words

    # -- rack search ------------------------------------------------------------------------------

    def rack(self, letters: str, level: int | str | None = DEFAULT_LEVEL, deck: Deck = STANDARD,
             limit: int | None = None) -> list[RackWord]:
        """Every legal word at ``level`` formable from the multiset ``letters``, best first (the first
        ``limit`` of them when given).

        Best is the highest score, then the longer word, then alphabetical. Deck limits apply: a
        rack can never use more copies of a letter than ``deck`` holds. A rack has 1 to
        MAX_RACK_LETTERS letters (InvalidRack otherwise).
        """
        return self.rack_search(letters, level, deck, limit)[0]

    def rack_search(self, letters: str, level: int | str | None = DEFAULT_LEVEL, deck: Deck = STANDARD,
                    limit: int | None = None) -> tuple[list[RackWord], int]:
        """``rack``'s words and how many there are in all (a list of ``limit`` words names the total).

        The work is bounded twice: the rack's letters bound the sub-racks visited (at most 128), and
        ``limit`` the words made and sorted (only the best ``limit`` are picked and built).
        """
        code = level_code(level)
        rack = normalize_rack(letters)
        counts: dict[str, int] = {}
        for c in rack:
            counts[c] = counts.get(c, 0) + 1
        distinct = sorted(counts)
        remaining = [min(counts[c], deck.count(c)) for c in distinct]
        bits = [1 << (ord(c) - 97) for c in distinct]
        points = [deck.letter_points(c) for c in distinct]
        n_distinct = len(distinct)
        found: list[tuple[int, int, int]] = []  # (-score, -length, word id): the words' own keys only when picked
        append = found.append
        nodes, node_get, unpack = self._nodes, self._racks.get, _NODE.unpack_from
        rack_words, levels = self._rack_word_ids, self._levels

        def visit(prefix: str, start: int, score: int) -> None:
            children, sub_min, own_min, count, first = unpack(nodes, node_get(prefix) * _NODE_SIZE)
            if sub_min > code:
                return
            if count and own_min <= code:
                for word_id in rack_words[first:first + count]:
                    if levels[word_id * _N_SENSES] <= code:
                        append((-score, -len(prefix), word_id))
            if len(prefix) < MAX_WORD_LETTERS:
                for i in range(start, n_distinct):
                    if remaining[i] and children & bits[i]:
                        remaining[i] -= 1
                        visit(prefix + distinct[i], i, score + points[i])
                        remaining[i] += 1

        if len(self._racks):
            visit("", 0, 0)
        found_all = len(found)
        if limit is not None and limit < found_all:
            # Only the best ``limit`` are spelled out: those before the limit's (score, length), and the
            # ties with it, which their spelling orders.
            cut = heapq.nsmallest(limit, found)[-1][:2] if limit > 0 else (0, 1)
            found = [entry for entry in found if entry[:2] <= cut]
        restore = self._words.restore_key
        chosen = sorted([(score, length, restore(word_id)) for score, length, word_id in found])[:limit]
        new, chances = tuple.__new__, _CHANCES
        return [new(RackWord, (word.upper(), -score, chances[-score])) for score, _, word in chosen], found_all


def read_metadata(meta_path: str) -> tuple[bytes, Any]:
    """A built dictionary's ``metadata.json``: its bytes and its JSON, or DictionaryError naming the file."""
    try:
        with open(meta_path, "rb") as handle:
            meta_bytes = handle.read()
        return meta_bytes, json.loads(meta_bytes.decode("utf-8"))
    except FileNotFoundError:
        raise DictionaryError(msg("dictionary file {path} is missing", path=meta_path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DictionaryError(msg("dictionary file {path} is unreadable or not JSON: {why}",
                                  path=meta_path, why=exc)) from None


def check_sizes(directory: str, sizes: dict[str, Any]) -> None:
    """DictionaryError naming the first file of ``directory`` missing or not of its size in the metadata."""
    for name, expected in sizes.items():
        file = os.path.join(directory, name)
        try:
            size = os.stat(file).st_size
        except OSError:
            raise DictionaryError(msg("dictionary file {path} is missing", path=file)) from None
        if size != expected:
            raise DictionaryError(msg("dictionary file {path} is {size} bytes, metadata says {expected}: truncated "
                                      "or replaced", path=file, size=size, expected=expected))


def normalize_rack(letters: str) -> str:
    """Lower-case letters of a rack; InvalidRack names anything that is not 1 to MAX_RACK_LETTERS letters a-z."""
    if not isinstance(letters, str):
        raise InvalidRack(msg("rack must be a string of letters, not {kind}", kind=type(letters).__name__))
    rack = letters.strip().lower()
    if not rack:
        raise InvalidRack(msg("rack is empty: give 1 to {most} letters", most=MAX_RACK_LETTERS))
    bad = sorted({c for c in rack if c not in _ALPHABET})
    if bad:
        raise InvalidRack(msg("rack {rack!r} has characters that are not letters A-Z: {characters}", rack=letters,
                              characters=" ".join(map(repr, bad))))
    if len(rack) > MAX_RACK_LETTERS:
        raise InvalidRack(msg("rack {rack!r} has {n} letters; a rack is a hand, at most {most} letters", rack=letters,
                              n=len(rack), most=MAX_RACK_LETTERS))
    return rack


def open_for_command(path: str | os.PathLike[str] | None = None) -> Dictionary:
    """The dictionary for a short-lived command: its checksums are verified when its files changed.

    Hashing every file (``Dictionary.verify``) costs more than the command; the files' signature
    (``Dictionary.file_signature``: inode, size, modification and change times) costs a few stat
    calls. A stamp in the user's cache directory records the signature of the files as last
    verified; when it differs (first use, a file written or replaced, a new install) the files are
    verified again, and a damaged file stops the command with one line naming it.
    """
    dictionary = Dictionary(path, verify=False)
    signature = json.loads(json.dumps(dictionary.file_signature()))  # as the stamp stores it
    stamp = os.path.join(stamp_directory(), "dictionary-" + _path_key(dictionary.path) + ".json")
    try:
        with open(stamp, encoding="utf-8") as handle:
            if json.load(handle) == signature:
                return dictionary
    except (OSError, ValueError):
        pass
    dictionary.verify()
    try:
        os.makedirs(os.path.dirname(stamp), exist_ok=True)
        temp = f"{stamp}.{os.getpid()}"
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump(signature, handle)
        os.replace(temp, stamp)
    except OSError:
        pass  # no stamp (a read-only home): every command verifies, which is only slower
    return dictionary


def stamp_directory() -> str:
    """Where verification stamps live: the user's cache directory for uw-referee.

    On Linux and other XDG systems this is platformdirs' ``user_cache_dir`` rule written out
    (importing platformdirs costs more than a word check; tests/test_dictionary.py holds the two equal).
    """
    if os.name == "posix" and not sys.platform.startswith("darwin"):
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not base.strip():
            base = os.path.expanduser("~/.cache")
        return os.path.join(base, "uw-referee")
    import platformdirs

    return platformdirs.user_cache_dir("uw-referee", appauthor=False)


def _path_key(path: str) -> str:
    """A short file-name-safe key for a directory path."""
    from zlib import crc32

    absolute = os.path.abspath(path)
    return f"{crc32(absolute.encode()):08x}-{len(absolute)}"


def open_dictionary(path: str | os.PathLike[str] | None = None) -> Dictionary:
    """One Dictionary per directory per process (``default_path()`` when None), its checksums verified."""
    return _open_dictionary(os.fspath(path) if path is not None else default_path())


@cache
def _open_dictionary(path: str) -> Dictionary:
    return Dictionary(path)
