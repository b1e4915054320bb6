"""The letter deck: how many cards of each letter, and what each card scores.

Points are the angles in the printed letter (RULES.md section 1). A deck is an immutable value;
the built-ins are ``standard`` (96 cards) and ``double`` (two of every card, for 7-8 players).
"""
from __future__ import annotations

import json
import os
from itertools import repeat
from types import MappingProxyType

from dictionaries.i18n import msg, nmsg
from dictionaries.json_depth import json_depth_within
from dictionaries.rules import MAX_POINTS

TYPE_CHECKING = False  # typing costs more to import than a word check takes: its names are for the checkers
if TYPE_CHECKING:
    from collections.abc import Mapping

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: RULES.md section 1: letter -> (count, points).
STANDARD_TABLE: dict[str, tuple[int, int]] = {
    "A": (10, 5), "B": (2, 5), "C": (2, 0), "D": (3, 2), "E": (10, 4), "F": (2, 3),
    "G": (2, 2), "H": (3, 4), "I": (9, 4), "J": (1, 2), "K": (1, 3), "L": (5, 1),
    "M": (3, 3), "N": (5, 2), "O": (8, 0), "P": (2, 3), "Q": (1, 2), "R": (5, 4),
    "S": (5, 0), "T": (5, 2), "U": (4, 0), "V": (2, 1), "W": (2, 3), "X": (1, 4),
    "Y": (2, 3), "Z": (1, 2),
}
STANDARD_POINTS: dict[str, int] = {letter: points for letter, (_, points) in STANDARD_TABLE.items()}
MAX_COUNT = 1000  # cards of one letter (the double deck has 20 A); more is no game anyone plays
MAX_DECK_FILE_BYTES = 64 * 1024  # a deck file is under 1 KiB; this refuses a wrong file unread
MAX_DECK_FILE_DEPTH = 2  # {"counts": {...}, "points": {...}}
_EXAMPLE = '{"counts": {"A": 10, ...}, "points": {...}}'



def deck_name(name: str) -> str:
    """A deck's name as a sentence says it: a built-in deck's in the language in use (a ``Message``), a
    custom deck's as it was given."""
    if name == "standard":
        return msg("standard")
    if name == "double":
        return msg("double")
    return name

class DeckError(ValueError):
    """A deck description that cannot be a deck (names the bad entry)."""


class Deck:
    """Card counts and points per letter, immutable. Points never change between decks (RULES.md ruling).

    A plain class rather than a dataclass: ``uw-referee check`` imports this, and dataclasses
    pull in ``inspect`` (about 1 MB and several ms at start-up).
    """

    __slots__ = ("name", "counts", "points", "_count_of", "_points_of", "_held", "_holds_every_letter")
    name: str
    counts: Mapping[str, int]
    points: Mapping[str, int]
    _count_of: dict[str, int]
    _points_of: dict[str, int]
    _held: frozenset[str]
    _holds_every_letter: bool

    def __init__(self, name: str, counts: Mapping[str, int], points: Mapping[str, int] | None = None) -> None:
        points = dict(STANDARD_POINTS) if points is None else points
        for letter, count in counts.items():
            if letter not in STANDARD_POINTS:
                raise DeckError(msg("deck {name!r}: {letter!r} is not a letter A-Z", name=name, letter=letter))
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_COUNT:
                raise DeckError(msg("deck {name!r}: count for {letter} must be a whole number from 0 to {most}, "
                                    "not {value}", name=name, letter=letter, most=MAX_COUNT, value=str(count)[:20]))
        for letter, value in points.items():
            if letter not in STANDARD_POINTS:
                raise DeckError(msg("deck {name!r}: {letter!r} is not a letter A-Z", name=name, letter=letter))
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_POINTS:
                raise DeckError(msg("deck {name!r}: points for {letter} must be a whole number from 0 to {most}, "
                                    "not {value}", name=name, letter=letter, most=MAX_POINTS, value=str(value)[:20]))
        if sum(counts.values()) == 0:
            raise DeckError(msg("deck {name!r} has no cards", name=name))
        held = frozenset(k for k, v in counts.items() if v > 0)
        count_of, points_of = dict(counts), dict(points)  # plain dicts for the hot paths (a proxy's get is slower)
        fields: tuple[tuple[str, object], ...] = (
            ("name", name), ("counts", MappingProxyType(count_of)), ("points", MappingProxyType(points_of)),
            ("_count_of", count_of), ("_points_of", points_of), ("_held", held),
            ("_holds_every_letter", len(held) == len(LETTERS)))
        for attr, field_value in fields:
            object.__setattr__(self, attr, field_value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Deck is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Deck):
            return NotImplemented
        return (self.name, dict(self.counts), dict(self.points)) == (other.name, dict(other.counts), dict(other.points))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.counts.items())), tuple(sorted(self.points.items()))))

    def __repr__(self) -> str:
        return f"Deck({self.name!r}, {self.size} cards)"

    def __copy__(self) -> Deck:
        return self  # immutable: a copy is the same value

    def __deepcopy__(self, _memo: dict[int, object]) -> Deck:
        return self

    @property
    def size(self) -> int:
        """Number of cards in the deck."""
        return sum(self.counts.values())

    def count(self, letter: str) -> int:
        return self.counts.get(letter.upper(), 0)

    def letter_points(self, letter: str) -> int:
        return self.points.get(letter.upper(), 0)

    def score(self, word: str) -> int:
        """Sum of the card points of the letters of ``word`` (any letters, gibberish too)."""
        return sum(map(self._points_of.get, word.upper(), repeat(0)))

    def over_limit(self, word: str) -> dict[str, tuple[int, int]]:
        """Letters that ``word`` needs more copies of than the deck holds: letter -> (needed, held)."""
        word = word.upper()
        over: dict[str, tuple[int, int]] = {}
        for letter in set(word):
            needed = word.count(letter)
            held = self.counts.get(letter, 0)
            if needed > held:
                over[letter] = (needed, held)
        return dict(sorted(over.items()))

    def can_spell(self, word: str) -> bool:
        """True when the deck holds enough cards of every letter of ``word``."""
        if not word.isupper():
            word = word.upper()
        letters = set(word)
        if len(letters) == len(word) and (self._holds_every_letter or letters <= self._held):
            return True  # no letter repeats, and the deck has at least one of each
        counts = self._count_of
        for letter in letters:
            if word.count(letter) > counts.get(letter, 0):
                return False
        return True

    def table(self) -> list[dict[str, object]]:
        """The card table, A to Z: letter, count, points."""
        return [
            {"letter": letter, "count": self.counts.get(letter, 0), "points": self.points.get(letter, 0)}
            for letter in LETTERS
        ]


STANDARD = Deck("standard", {letter: count for letter, (count, _) in STANDARD_TABLE.items()})
DOUBLE = Deck("double", {letter: 2 * count for letter, (count, _) in STANDARD_TABLE.items()})
BUILT_IN: dict[str, Deck] = {"standard": STANDARD, "double": DOUBLE}


def _upper_keys(name: str, what: str, mapping: Mapping[str, int]) -> dict[str, int]:
    """``mapping`` with upper-case letters; DeckError when two keys differ only in case."""
    upper: dict[str, int] = {}
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise DeckError(msg("deck {name!r}: {letter!r} is not a letter A-Z", name=name, letter=key))
        if key.upper() in upper:
            if what == "counts":
                raise DeckError(msg("deck {name!r}: the counts name {letter} twice (letters that differ only in case "
                                    "are the same card); give each letter once", name=name, letter=key.upper()))
            raise DeckError(msg("deck {name!r}: the points name {letter} twice (letters that differ only in case "
                                "are the same card); give each letter once", name=name, letter=key.upper()))
        upper[key.upper()] = value
    return upper


def custom_deck(name: str, counts: Mapping[str, int], points: Mapping[str, int] | None = None) -> Deck:
    """A deck from letter counts (and optionally points; missing points are the standard ones)."""
    merged = dict(STANDARD_POINTS)
    merged.update(_upper_keys(name, "points", points or {}))
    return Deck(name, _upper_keys(name, "counts", counts), merged)


def load_deck(spec: str) -> Deck:
    """``standard``, ``double``, or a JSON file ``{"counts": {"A": 12, ...}, "points": {...}}``.

    A plain ``{"A": 12, ...}`` object is read as counts.
    """
    if spec in BUILT_IN:
        return BUILT_IN[spec]
    path = spec
    if not os.path.isfile(path):
        raise DeckError(msg("deck {deck!r} is neither 'standard', 'double' nor a readable JSON file", deck=spec))
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_DECK_FILE_BYTES + 1)
    except OSError as exc:
        raise DeckError(msg("deck file {path}: cannot be read ({why})", path=spec, why=exc.strerror or exc)) from None
    if len(raw) > MAX_DECK_FILE_BYTES:
        raise DeckError(msg("deck file {path} is over {size} KiB; a deck file is {example}, well under 1 KiB",
                            path=spec, size=MAX_DECK_FILE_BYTES // 1024, example=_EXAMPLE))
    if not json_depth_within(raw, MAX_DECK_FILE_DEPTH):
        raise DeckError(msg("deck file {path} nests objects or arrays more than {depth} deep; a deck file is {example}",
                            path=spec, depth=MAX_DECK_FILE_DEPTH, example=_EXAMPLE))
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # bad UTF-8, bad JSON, or an integer over Python's 4,300 digits
        raise DeckError(msg("deck file {path}: not valid JSON ({why})", path=spec, why=exc)) from None
    if not isinstance(data, dict):
        raise DeckError(msg("deck file {path}: expected a JSON object of letter counts", path=spec))
    unknown = sorted(map(repr, set(data) - {"counts", "points"})) if "counts" in data else []
    if unknown:
        raise DeckError(nmsg("deck file {path}: unknown key {keys}; a deck file holds only 'counts' and 'points'",
                             "deck file {path}: unknown keys {keys}; a deck file holds only 'counts' and 'points'",
                             len(unknown), path=spec, keys=", ".join(unknown)))
    counts = data.get("counts", data)
    points = data.get("points")
    if not isinstance(counts, dict) or (points is not None and not isinstance(points, dict)):
        raise DeckError(msg("deck file {path}: 'counts' and 'points' must be objects mapping letters to numbers",
                            path=spec))
    return custom_deck(os.path.splitext(os.path.basename(path))[0], counts, points)
