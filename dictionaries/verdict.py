"""Verdicts: is a word playable, and if not, why not (the reasons a table can read)."""
from __future__ import annotations

import re
import unicodedata
from collections import namedtuple

from dictionaries import DEFAULT_LEVEL, LEVELS, MAX_WORD_LETTERS, PHRASE_PIECE, SENSES
from dictionaries.deck import STANDARD, Deck, deck_name
from dictionaries.dictionary import Dictionary, level_code
from dictionaries.errors import InvalidWord
from dictionaries.i18n import Message, msg, nmsg
from dictionaries.rules import CHANCES, MIN_WORD_LETTERS, success_chance

MAX_INPUT_CHARS = 64
_INPUT_RE = re.compile(r"[a-z.']+")
_STRIP_RE = re.compile(r"[.']")

#: Reason codes in their order of precedence.
REASON_CODES: tuple[str, ...] = (
    "too_short", "too_long", "proper_noun", "abbreviation", "acronym", "contraction", "phrase_piece", "uncommon",
    "unknown",
    "deck_limit",
)
_LEVEL_OF = (None, *LEVELS)  # level code -> SCOWL size
_CHANCES = CHANCES
_DICTIONARY_CODES = frozenset({"proper_noun", "abbreviation", "acronym", "contraction", "phrase_piece", "uncommon",
                               "unknown"})
_SENSE_AT = {sense: i for i, sense in enumerate(SENSES)}


TYPE_CHECKING = False  # typing costs more to import than a word check takes: its names are for the checkers
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NamedTuple

    class _Reason(NamedTuple):
        code: str
        message: str

    class _Verdict(NamedTuple):
        word: str
        legal: bool
        reasons: tuple[Reason, ...]
        score: int
        points: bytes
        level: int | None
        success_chance: float
else:  # the same fields, as plain named tuples (tests/test_verdict.py holds them to the typed ones)
    _Reason = namedtuple("_Reason", ("code", "message"))
    _Verdict = namedtuple("_Verdict", ("word", "legal", "reasons", "score", "points", "level", "success_chance"))


class Reason(_Reason):
    """Why a word is not playable: a stable code and a sentence for the table."""

    __slots__ = ()

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class Verdict(_Verdict):
    """One word judged at one level: ``word, legal, reasons, score, points, level, success_chance``.

    ``points`` holds each letter's points, in order. Bytes, not a tuple of pairs: CPython keeps
    freed tuples of every length on free lists, so a tuple per verdict left ~3 MB resident after
    100,000 words.
    """

    __slots__ = ()

    @property
    def letters(self) -> tuple[tuple[str, int], ...]:
        """Each letter with its points."""
        return tuple(zip(self.word, self.points))

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.code for r in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "word": self.word,
            "legal": self.legal,
            "reasons": [r.to_dict() for r in self.reasons],
            "score": self.score,
            "letters": [{"letter": letter, "points": points} for letter, points in zip(self.word, self.points)],
            "level": self.level,
            "success_chance": self.success_chance,
        }


_new_verdict = _new_reason = tuple.__new__  # Reason(code, message) without the generated __new__: the reasons path is hot


def _reason(code: str, message: str) -> Reason:
    return _new_reason(Reason, (code, message))


def normalize_word(text: str) -> str:
    """The letters of ``text`` in lower case (accents folded; ' and . dropped), or InvalidWord."""
    if type(text) is str and text.isascii() and text.isalpha() and len(text) <= MAX_INPUT_CHARS:
        return text.lower()  # the common case: plain letters
    if not isinstance(text, str):
        raise InvalidWord(msg("a word must be a string, not {kind}", kind=type(text).__name__))
    stripped = text.strip()
    if not stripped:
        raise InvalidWord(msg("the word is empty"))
    if len(stripped) > MAX_INPUT_CHARS:
        raise InvalidWord(msg("{start!r}... is {n} characters; at most {most}", start=stripped[:20], n=len(stripped),
                              most=MAX_INPUT_CHARS))
    lowered = stripped.lower()
    if not _INPUT_RE.fullmatch(lowered):
        folded = "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))
        if not _INPUT_RE.fullmatch(folded):
            bad = sorted({c for c in folded if not ("a" <= c <= "z" or c in ".'")})
            raise InvalidWord(msg("{text!r} has characters that are not letters: {characters} (only A-Z, with an "
                                  "apostrophe or period inside)", text=stripped, characters=" ".join(map(repr, bad))))
        lowered = folded
    key = _STRIP_RE.sub("", lowered)
    if not key:
        raise InvalidWord(msg("{text!r} has no letters", text=stripped))
    return key


def letters_of(word: str, deck: Deck = STANDARD) -> tuple[tuple[str, int], ...]:
    """Each letter with its points."""
    points = deck.points
    return tuple((c, points.get(c, 0)) for c in word.upper())


def judge(dictionary: Dictionary, text: str, level: int | str | None = DEFAULT_LEVEL, deck: Deck = STANDARD) -> Verdict:
    """The verdict for one word: legal in a standard game at ``level``, or the reasons why not."""
    code = level_code(level)
    key = normalize_word(text)
    word = key.upper()
    point_of = deck._points_of.get
    points = [point_of(c, 0) for c in word]
    score = sum(points)
    n = len(key)
    senses = dictionary.senses(key)
    if (senses is not None and 0 < senses[0] <= code and MIN_WORD_LETTERS <= n <= MAX_WORD_LETTERS
            and text.isalpha() and deck.can_spell(word)):
        # The common case: a playable word (the smallest level of any sense is the word's, or below).
        smallest = min(senses.replace(b"\x00", b""))
        return _new_verdict(Verdict, (word, True, (), score, bytes(points), _LEVEL_OF[smallest],
                                      _CHANCES[score] if score < len(_CHANCES) else success_chance(score)))
    reasons = word_reasons(lambda sense: shown_form(dictionary, key, sense), text, len(key), word, senses, code)
    reasons.extend(deck_reasons(word, deck))
    smallest = min(senses.replace(b"\x00", b"") or b"\x00") if senses is not None else 0
    return _new_verdict(Verdict, (word, not reasons, tuple(reasons), score, bytes(points), _LEVEL_OF[smallest],
                                  _CHANCES[score] if score < len(_CHANCES) else success_chance(score)))


def shown_form(dictionary: Dictionary, key: str, sense: str) -> str | None:
    """The spelling a reason of ``sense`` names for ``key``: a phrase piece's phrase as it is (None
    when it is no phrase piece); for an exclusion SCOWL's spelling, or None when it is the key itself."""
    form = dictionary.form(key, sense)
    if sense == PHRASE_PIECE:
        return form
    return form if form and form != key else None


def length_reasons(n: int, word: str) -> list[Reason]:
    """A word of ``n`` letters is too short or too long for a hand ([] when it fits)."""
    if n < MIN_WORD_LETTERS:
        return [_reason("too_short", nmsg("{word} has {n} letter; a word needs at least {least}",
                                          "{word} has {n} letters; a word needs at least {least}",
                                          n, word=word, least=MIN_WORD_LETTERS))]
    if n > MAX_WORD_LETTERS:
        return [_reason("too_long", msg("{word} has {n} letters; a hand holds only {most}", word=word, n=n,
                                        most=MAX_WORD_LETTERS))]
    return []


def dictionary_reasons(form_of: Callable[[str], str | None], word: str, senses: bytes | None,
                       code: int) -> list[Reason]:
    """The dictionary's reason against a key of these ``senses`` at level ``code`` ([] when it is a word there)."""
    if senses is None:
        return [_reason("unknown", msg("{word} is not in the dictionary at any level", word=word))]
    if not senses[0] or senses[0] > code:
        return [_dictionary_reason(form_of, word, senses, code)]
    return []


def word_reasons(form_of: Callable[[str], str | None], text: str, n: int, word: str, senses: bytes | None,
                 code: int) -> list[Reason]:
    """Every reason the dictionary and the rules give against a word of ``n`` letters as written in
    ``text``, most important first (the deck's aside: ``deck_reasons``). ``form_of(sense)`` is
    ``shown_form`` of the word's key; ``word`` only fills the sentences (the service's templates
    pass a stand-in, service/verdict_text.py)."""
    reasons = length_reasons(n, word) + dictionary_reasons(form_of, word, senses, code)
    written = text.strip()
    if "'" in written or "." in written:
        # Cards carry no apostrophes or periods: writing one names a contraction or an abbreviation.
        sense = "contraction" if "'" in written else "abbreviation"
        # A name keeps its reason whatever punctuation it is written with (O'BRIEN), unless the
        # spelling is also that contraction or abbreviation (I'M).
        name = senses is not None and not senses[_SENSE_AT[sense]] and any(r.code == "proper_noun" for r in reasons)
        if not name and not any(r.code == sense for r in reasons):
            reasons = [r for r in reasons if r.code not in _DICTIONARY_CODES]
            at = 1 if reasons and reasons[0].code in ("too_short", "too_long") else 0
            if sense == "contraction":
                why = msg("{written} is a contraction: written with an apostrophe, it is not a word the cards spell",
                          written=written.upper())
            else:
                why = msg("{written} is an abbreviation: written with periods, it is not a word the cards spell",
                          written=written.upper())
            reasons.insert(at, _reason(sense, why))
    return reasons


def deck_reasons(word: str, deck: Deck) -> list[Reason]:
    """The deck's reason against ``word`` (upper case): more copies of a letter than it holds ([] when none)."""
    over = None if deck.can_spell(word) else deck.over_limit(word)
    if not over:
        return []
    parts = ", ".join(f"{needed} {letter}" for letter, (needed, held) in over.items())
    held = ", ".join(f"{held} {letter}" for letter, (needed, held) in over.items())
    return [_reason("deck_limit", msg("{word} needs {needed}; the {deck} deck holds {held}", word=word,
                                      needed=parts, deck=deck_name(deck.name), held=held))]


def reason_sense(senses: bytes) -> tuple[str, int]:
    """The sense whose form a dictionary reason names, and its level code: ``phrase_piece`` with the
    word's own code when the word sense is the most common (a phrase piece or else uncommon), else
    the most common exclusion (the earlier one on a tie)."""
    _, proper, abbreviation, acronym, contraction = senses
    best_index, best_code = 0, 256
    # Exclusions in their order of precedence: a strict < keeps the earlier one on a tie.
    if proper and proper < best_code:
        best_index, best_code = 1, proper
    if abbreviation and abbreviation < best_code:
        best_index, best_code = 2, abbreviation
    if acronym and acronym < best_code:
        best_index, best_code = 3, acronym
    if contraction and contraction < best_code:
        best_index, best_code = 4, contraction
    word_code = senses[0]
    if word_code and word_code < best_code:
        return PHRASE_PIECE, word_code
    return SENSES[best_index], best_code


def _dictionary_reason(form_of: Callable[[str], str | None], word: str, senses: bytes, code: int) -> Reason:
    """The word's most common sense names why it is not playable (exclusions win a tie)."""
    sense, sense_code = reason_sense(senses)
    if sense == PHRASE_PIECE:
        phrase = form_of(PHRASE_PIECE)
        if phrase is not None:
            if phrase:
                return _reason("phrase_piece", msg("{word} is only part of a phrase ({phrase}), not a word on its own",
                                                   word=word, phrase=phrase))
            return _reason("phrase_piece", msg("{word} is only part of a longer word or phrase, not a word on its own",
                                               word=word))
        return _reason("uncommon", msg("{word} is only a size-{size} word; this game allows size {level} and below",
                                       word=word, size=_LEVEL_OF[sense_code], level=_LEVEL_OF[code]))
    return _reason(sense, _exclusion(sense, word, form_of(sense), _LEVEL_OF[sense_code]))


def _exclusion(sense: str, word: str, form: str | None, size: int | None) -> Message:
    """Why a word's most common sense excludes it, with the spelling SCOWL gives it when that differs."""
    if sense == "proper_noun":
        if form:
            return msg("{word} is a proper noun ({form}, SCOWL size {size})", word=word, form=form, size=size)
        return msg("{word} is a proper noun (SCOWL size {size})", word=word, size=size)
    if sense == "abbreviation":
        if form:
            return msg("{word} is an abbreviation ({form}, SCOWL size {size})", word=word, form=form, size=size)
        return msg("{word} is an abbreviation (SCOWL size {size})", word=word, size=size)
    if sense == "acronym":
        if form:
            return msg("{word} is an acronym ({form}, SCOWL size {size})", word=word, form=form, size=size)
        return msg("{word} is an acronym (SCOWL size {size})", word=word, size=size)
    if form:
        return msg("{word} is a contraction ({form}, SCOWL size {size})", word=word, form=form, size=size)
    return msg("{word} is a contraction (SCOWL size {size})", word=word, size=size)
