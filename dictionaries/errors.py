"""Errors of the word logic. Each subclasses ValueError and names the bad input."""
from __future__ import annotations


class WordError(ValueError):
    """Bad input to the word logic (a word, a level, a rack)."""


class InvalidWord(WordError):
    """A word that cannot be judged: empty, too long to be input, digits or symbols."""


class InvalidLevel(WordError):
    """A level that is not a SCOWL size."""


class InvalidRack(WordError):
    """A rack that is not 1 to MAX_RACK_LETTERS (a hand: 7) letters."""


class InvalidDeck(WordError):
    """A deck name that is not one of the decks on offer."""


class DictionaryError(Exception):
    """The built dictionary files are missing, truncated or of another format (names the file)."""
