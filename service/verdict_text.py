"""A verdict's JSON for any word at a few microseconds: the sentences come from templates, one per shape.

``verdict_json(judge(...))`` builds a Message, a Reason and a Verdict for every word, then
translates and serialises them: about 15 us for a word that is not playable. Yet the reasons of a
plain-letter word depend on only a few things: which reason its level codes give (a few hundred
records), its length when that is a reason, and whether SCOWL writes it another way (the form). So
each ``VerdictWriter`` (one level, deck and language) builds the reasons' JSON once per shape, through
``verdict``'s own reason functions with a stand-in for the word and the form, and fills in the word
afterwards; ``words.records`` (tools/records.py) gives a key's level codes, deck flags and form in one
read. A word the deck cannot spell gets its deck reason made for it alone; anything else (accents,
apostrophes, periods, a word over 64 characters) takes the full path, ``verdict_json(judge(...))``.
tests/test_verdict_text.py holds the two equal, byte for byte, over every spelling of the dictionary.

Memory stays flat whatever is asked: a writer keeps one entry per record of level codes (bounded by the
files) and one length reason per length (at most 59); there is one writer per level, deck and language
the service accepts; single words are cached ``VERDICT_CACHE_WORDS`` per language.
"""
from __future__ import annotations

import struct
from collections.abc import Mapping
from functools import lru_cache
from json.encoder import encode_basestring  # the C string encoder
from typing import Any

from dictionaries import (
    LEVELS,
    PHRASE_PIECE,
    PHRASE_PIECE_INDEX,
    RECORD_DOUBLE,
    RECORD_FORM,
    RECORD_FORMAT,
    RECORD_STANDARD,
    SENSES,
)
from dictionaries.deck import DOUBLE, STANDARD, Deck
from dictionaries.dictionary import Dictionary, level_code, records_deck_table
from dictionaries.errors import InvalidWord
from dictionaries.i18n import DEFAULT_LANGUAGE, _, ngettext, say_in
from dictionaries.rules import CHANCES, MAX_WORD_LETTERS, MIN_WORD_LETTERS, success_chance
from dictionaries.verdict import (
    MAX_INPUT_CHARS,
    Reason,
    Verdict,
    deck_reasons,
    dictionary_reasons,
    judge,
    length_reasons,
    reason_sense,
)
from service.core import WORD_RE

#: Verdicts (as JSON text) of single words kept per worker and language (about 300 bytes each): a page
#: asks the same words again and again. Few, so that memory stays flat whatever words are asked.
VERDICT_CACHE_WORDS = 1024

#: Stand-ins for the word and the form in a template (private-use characters: JSON leaves them as
#: they are, and no word or form holds them).
_WORD, _FORM = "\ue000", "\ue001"
_N_SENSES = len(SENSES)
_LEVEL_JSON = ("null", *map(str, LEVELS))  # level code -> the JSON of the level's SCOWL size
_CHANCE_JSON = tuple(float.__repr__(float(chance)) for chance in CHANCES)
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SENSE_BYTE = {**{sense: i for i, sense in enumerate(SENSES)}, PHRASE_PIECE: PHRASE_PIECE_INDEX}
_unpack_record = struct.Struct(RECORD_FORMAT).unpack_from
_RECORD_SIZE = struct.calcsize(RECORD_FORMAT)


class WordAt(Exception):
    """The word at ``index`` of a batch is not a string (``error`` None) or not a word (its InvalidWord)."""

    def __init__(self, index: int, error: InvalidWord | None) -> None:
        super().__init__(index, error)
        self.index, self.error = index, error


class VerdictWriter:
    """``writer(word) -> verdict JSON`` at one level, deck and language: exactly
    ``verdict_json(judge(dictionary, word, level, deck), deck_name, language)``, or that path's InvalidWord."""

    def __init__(self, dictionary: Dictionary, level: int, deck: Deck, deck_name: str, language: str) -> None:
        self.dictionary, self.level, self.deck, self.deck_name, self.language = (dictionary, level, deck, deck_name,
                                                                               language)
        self.code = level_code(level)
        self.tail = f',"deck":{encode_basestring(deck_name)}}}'
        points = [deck._points_of.get(c, 0) for c in _UPPER]
        # Each letter's points as a byte (a card has at most MAX_POINTS = 255): a word's score is the sum of
        # its bytes through this table.
        self.point_bytes = bytes(points[code - 65] if 65 <= code <= 90 else 0 for code in range(256))
        # Each letter's JSON object and a comma: a word's letters are the word through this table, less the last comma.
        self.letters = {ord(c): f'{{"letter":"{c}","points":{int(p)}}},' for c, p in zip(_UPPER, points)}
        # The records serve the built-in decks, made with the points and counts they were made with.
        self.record_flag = 0
        if (dictionary.records is not None and dictionary.records_deck == records_deck_table(STANDARD)
                and deck.points == STANDARD.points):
            if deck.counts == STANDARD.counts:
                self.record_flag = RECORD_STANDARD
            elif deck.counts == DOUBLE.counts:
                self.record_flag = RECORD_DOUBLE
        self.records = dictionary.records if dictionary.records is not None else b""
        self.record_forms = dictionary.record_forms if dictionary.record_forms is not None else b""
        #: Level codes per sense -> (the level's JSON and the next key, playable at this level, the dictionary
        #: reason's JSON when it names no form, names a form, names an empty phrase): one per distinct record
        #: of the files (~600).
        self.entries: dict[bytes, tuple[str, bool, str, str, str]] = {}
        #: The same by their number in the records' table of level codes (None until first needed).
        self.numbered: list[tuple[str, bool, str, str, str] | None] = [None] * (len(dictionary.record_levels) // _N_SENSES)
        #: Letters -> the length reason's JSON (words of 1, 2 and 8 to 64 letters: at most 59).
        self.lengths: dict[int, str] = {}
        self.unknown = self._json(dictionary_reasons(_no_form, _WORD, None, self.code))
        #: Score -> its success chance and the deck: the end of a verdict's JSON.
        self.chance_tail = [f"{chance}{self.tail}" for chance in _CHANCE_JSON]
        # What write_all reads, bound once (a single word's call costs one look-up, not a dozen).
        self._bound = (dictionary, dictionary._words.get, self.records, self.record_forms, self.record_flag, self.entries,
                       self._entry, deck.can_spell, self.point_bytes, self.letters, self.unknown, self.full,
                       self.chance_tail, self.lengths, self.numbered)

    def __call__(self, word: str) -> str:
        try:
            return self.write_all([word])[0]
        except WordAt as at:
            if at.error is None:  # a program's mistake: the API checks a word's type before (WordAt)
                raise TypeError(type(word)) from None
            raise at.error from None

    def write_all(self, words: list[Any]) -> list[str]:
        """The verdict JSON of each word, in order; ``WordAt`` names the first that is not a string or
        not a word (its InvalidWord). One loop with its names bound: this is the cost of a batch."""
        (dictionary, get, records, record_forms, record_flag, entries, entry, can_spell, point_bytes, letters_of, unknown,
         full, chance_tail, lengths, numbered) = self._bound
        texts: list[str] = []
        append = texts.append
        for index, word in enumerate(words):
            if type(word) is not str:
                raise WordAt(index, None)
            if not (len(word) <= MAX_INPUT_CHARS and word.isascii() and word.isalpha()):
                try:
                    append(full(word))
                except InvalidWord as exc:
                    raise WordAt(index, exc) from None
                continue
            upper = word.upper()
            key = get(word if word.islower() else word.lower())
            if key is None:
                spells = can_spell(upper)
                score = sum(upper.encode().translate(point_bytes))
                level_json, reason = ',"level":null,"success_chance":', unknown
            else:
                score = sum(upper.encode().translate(point_bytes))
                if record_flag:
                    number, flags, form_bytes, offset = _unpack_record(records, key * _RECORD_SIZE)
                    spells = flags & record_flag
                    form = record_forms[offset:offset + form_bytes].decode() if flags & RECORD_FORM else None
                    level_json, playable, reason, with_form, empty_form = numbered[number] or self._numbered(number)
                else:
                    spells = can_spell(upper)
                    senses = dictionary._levels[key * _N_SENSES:(key + 1) * _N_SENSES]
                    form = _shown_form(dictionary, word.lower(), senses)
                    level_json, playable, reason, with_form, empty_form = entries.get(senses) or entry(senses)
                if playable:
                    if spells and MIN_WORD_LETTERS <= len(word) <= MAX_WORD_LETTERS:
                        append(f'{{"word":"{upper}","legal":true,"reasons":[],"score":{score},'
                               f'"letters":[{upper.translate(letters_of)[:-1]}]{level_json}'
                               f'{chance_tail[score] if score < len(chance_tail) else self._chance_tail(score)}')
                        continue
                    reason = ""
                elif form:
                    reason = with_form.replace(_FORM, form)
                elif form is not None:
                    reason = empty_form
            n = len(word)
            if not MIN_WORD_LETTERS <= n <= MAX_WORD_LETTERS:
                length = lengths.get(n) or self._length(n)
                reason = f"{length},{reason}" if reason else length
            if not spells:  # the deck's reason comes last, as the full path gives it
                reason = f"{reason},{self._deck_json(upper)}" if reason else self._deck_json(upper)
            append(f'{{"word":"{upper}","legal":false,"reasons":[{reason.replace(_WORD, upper)}],"score":{score},'
                   f'"letters":[{upper.translate(letters_of)[:-1]}]{level_json}'
                   f'{chance_tail[score] if score < len(chance_tail) else self._chance_tail(score)}')
        return texts

    def _deck_json(self, upper: str) -> str:
        """The deck's reason against a word it cannot spell, as JSON (made for each such word: they are few)."""
        return self._json(deck_reasons(upper, self.deck))

    def _chance_tail(self, score: int) -> str:
        """The success chance of a score past the table, and the deck: the end of a verdict's JSON."""
        return f"{float.__repr__(float(success_chance(score)))}{self.tail}"

    def _entry(self, senses: bytes) -> tuple[str, bool, str, str, str]:
        """What a verdict at this level needs of a key of these level codes (kept: they are few)."""
        nonzero = senses.replace(b"\x00", b"")
        playable = 0 < senses[0] <= self.code
        level_json = f',"level":{_LEVEL_JSON[min(nonzero) if nonzero else 0]},"success_chance":'
        if playable:
            made = (level_json, True, "", "", "")
        else:
            made = (level_json, False, self._dictionary_json(senses, None), self._dictionary_json(senses, _FORM),
                    self._dictionary_json(senses, ""))
        self.entries[senses] = made
        return made

    def _dictionary_json(self, senses: bytes, form: str | None) -> str:
        """The dictionary reason's JSON for these level codes, naming ``form`` (a stand-in) or none."""
        def form_of(_sense: str) -> str | None:
            return form

        return self._json(dictionary_reasons(form_of, _WORD, senses, self.code))

    def _numbered(self, number: int) -> tuple[str, bool, str, str, str]:
        """``_entry`` of the level codes numbered ``number`` in the records' table."""
        senses = self.dictionary.record_levels[number * _N_SENSES:(number + 1) * _N_SENSES]
        made = self.numbered[number] = self.entries.get(senses) or self._entry(senses)
        return made

    def _length(self, n: int) -> str:
        made = self.lengths[n] = self._json(length_reasons(n, _WORD))
        return made

    def _json(self, reasons: list[Reason]) -> str:
        """Reasons as verdict_json writes them, in this writer's language."""
        language = self.language
        return ",".join([f'{{"code":{encode_basestring(r.code)},"message":{encode_basestring(say_in(r.message, language))}}}'
                         for r in reasons])

    def full(self, word: str) -> str:
        """The full path: checked as the API checks a word, judged, then written as JSON."""
        check_word(word)
        return verdict_json(judge(self.dictionary, word, self.level, self.deck), self.deck_name, self.language)


def _no_form(_sense: str) -> None:
    return None


def _shown_form(dictionary: Dictionary, key: str, senses: bytes) -> str | None:
    """The form the dictionary reason names, as JSON string content, read from the forms trie (a
    dictionary without records, or a deck of its own): what the records keep (tools/records.py)."""
    sense, _code = reason_sense(senses)
    wanted = _SENSE_BYTE[sense]
    for value in dictionary._forms.get(key, ()):
        if value[0] == wanted:
            form: str = value[1:].decode("utf-8")
            if sense == PHRASE_PIECE or (form and form != key):
                return encode_basestring(form)[1:-1]
            return None
    return None


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


class Verdicts:
    """One language's verdicts as JSON: ``verdicts(word, level, deck name)`` for single words, through a
    small cache (a word asked again, by a page or a player, costs a dict look-up), and ``writer(level,
    deck name)`` for batches, which go round any cache (a batch's words are seldom asked again)."""

    def __init__(self, dictionary: Dictionary, decks: Mapping[str, Deck], language: str) -> None:
        self.dictionary, self.decks, self.language = dictionary, decks, language
        self._writers: dict[tuple[int, str], VerdictWriter] = {}
        self._cached = lru_cache(maxsize=VERDICT_CACHE_WORDS)(self._text)
        self.cache_info = self._cached.cache_info

    def __call__(self, word: str, level: int, deck: str) -> str:
        return self._cached(word, level, deck)

    def writer(self, level: int, deck: str) -> VerdictWriter:
        """The writer of one level and deck, made once (the service's levels and decks: a bounded set)."""
        found = self._writers.get((level, deck))
        if found is None:
            found = self._writers[(level, deck)] = VerdictWriter(self.dictionary, level, self.decks[deck], deck,
                                                                 self.language)
        return found

    def _text(self, word: str, level: int, deck: str) -> str:
        return self.writer(level, deck)(word)
