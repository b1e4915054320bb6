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
the service accepts. The single words' caches live in ``service.answers`` (``Verdicts``).
"""
from __future__ import annotations

import struct
from codecs import charmap_encode
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

#: Stand-ins for the word and the form in a template (private-use characters: JSON leaves them as
#: they are, and no word or form holds them).
_WORD, _FORM = "\ue000", "\ue001"
_N_SENSES = len(SENSES)
_LEVEL_JSON = ("null", *map(str, LEVELS))  # level code -> the JSON of the level's SCOWL size
_CHANCE_JSON = tuple(float.__repr__(float(chance)) for chance in CHANCES)
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SENSE_BYTE = {**{sense: i for i, sense in enumerate(SENSES)}, PHRASE_PIECE: PHRASE_PIECE_INDEX}
#: The form's place in a head of ``VerdictWriter.write_body`` (a control character: JSON escapes any in the text).
_FORM_MARK = b"\x01"
#: What comes before a verdict's word: in a batch, after the one before it, and alone.
_NEXT_WORD, _FIRST_WORD = b',{"word":"', b'{"word":"'
#: Word lengths a head tells apart (0 for a length that is no reason, else up to MAX_INPUT_CHARS).
_SHAPES = MAX_INPUT_CHARS + 1
#: Most deck reasons a writer keeps as templates (one per shortfall: a batch of odd words cannot grow it further).
MAX_DECK_TEMPLATES = 1024
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
        #: The deck reason's JSON by shortfall (``_deck_json``).
        self._deck_templates: dict[tuple[tuple[str, tuple[int, int]], ...], str] = {}
        #: ``write_body``'s heads by shape (see ``_head``), and the tables it reads.
        self._heads: dict[int, tuple[tuple[bytes, ...], bytes]] = {}
        # A word's score is the sum of its bytes through this table, the separator between words made a byte
        # that no letter is worth.
        separator = next(code for code in range(255, -1, -1) if code not in self.point_bytes[65:91])
        score_bytes = bytearray(self.point_bytes)
        score_bytes[10] = separator
        self._body_bound = (dictionary._words.get, self.records, self.record_forms, self.record_flag, deck.can_spell,
                            bytes(score_bytes), bytes([separator]),
                            {**{code: text.encode() for code, text in self.letters.items()}, 10: b"\n"},
                            self._heads, self._head, [f'{score},"letters":['.encode() for score in range(len(self.chance_tail))],
                            [text.encode() for text in self.chance_tail], self._each)

    def __call__(self, word: str) -> str:
        try:
            return self.write_all([word])[0]
        except WordAt as at:
            if at.error is None:  # a program's mistake: the API checks a word's type before (WordAt)
                raise TypeError(type(word)) from None
            raise at.error from None

    def write_all(self, words: list[Any]) -> list[str]:
        """The verdict JSON of each word, in order; ``WordAt`` names the first that is not a string or
        not a word (its InvalidWord)."""
        return self._each(words)

    def write_body(self, words: list[Any]) -> bytes | None:
        """The body of a batch's answer, ``{"results":[...]}`` in UTF-8: byte for byte ``write_all(words)``
        joined with commas, for a batch of plain ASCII words (None for any other batch, or a deck without
        records: the caller takes ``write_all``).

        The work common to every word runs once over the whole batch in C (``str``, ``bytes``, ``map`` and the
        charmap codec): the keys looked up as bytes, the upper-case words, the scores, the letters' JSON. What
        remains per word is its record, one kept head (the verdict up to its score, cut where the word goes:
        ``_head``) and five pieces of the body, joined once at the end: no string per verdict. A word the deck
        cannot spell is written by ``write_all``."""
        if not (words and self.record_flag):
            return None
        try:
            joined = "\n".join(words)
        except TypeError:  # not all strings: write_all names the first
            return None
        if not (joined.isascii() and set(map(type, words)) == {str} and all(map(str.isalpha, words))
                and max(map(len, words)) <= MAX_INPUT_CHARS):
            return None
        (get, records, record_forms, record_flag, can_spell, score_bytes, separator, letter_bytes, heads, head,
         score_mid, chance_tail, each) = self._body_bound
        keys = map(get, joined.lower().encode().split(b"\n"))
        upper_joined = joined.upper()
        upper_bytes = upper_joined.encode()
        scores = map(sum, upper_bytes.translate(score_bytes).split(separator))
        # Each letter's JSON ends with a comma: the last one of each word is cut with the separator.
        letters = charmap_encode(upper_joined, "strict", letter_bytes)[0][:-1].split(b",\n")
        pieces = [b'{"results":[']
        extend, append = pieces.extend, pieces.append
        for word, upper, key, score, letter_json in zip(words, upper_bytes.split(b"\n"), keys, scores, letters):
            n = len(word)
            shape = 0 if MIN_WORD_LETTERS <= n <= MAX_WORD_LETTERS else n
            form = None
            if key is None:
                if not can_spell(word):
                    append(b"," + each([word])[0].encode())
                    continue
                shape = -1 - shape
            else:
                number, flags, form_bytes, offset = _unpack_record(records, key * _RECORD_SIZE)
                if not flags & record_flag:
                    append(b"," + each([word])[0].encode())
                    continue
                if flags & RECORD_FORM:
                    if form_bytes:
                        form = record_forms[offset:offset + form_bytes]
                        shape = (number * _SHAPES + shape) * 3 + 1
                    else:
                        shape = (number * _SHAPES + shape) * 3 + 2
                else:
                    shape = (number * _SHAPES + shape) * 3
            parts, level_json = heads.get(shape) or head(shape)
            try:
                extend((_NEXT_WORD, upper.join(parts) if form is None else upper.join(parts).replace(_FORM_MARK, form),
                        score_mid[score], letter_json, level_json, chance_tail[score]))
            except IndexError:  # a score past the tables (a long word of dear letters)
                extend((_NEXT_WORD, upper.join(parts) if form is None else upper.join(parts).replace(_FORM_MARK, form),
                        f'{score},"letters":['.encode(), letter_json, level_json, self._chance_tail(score).encode()))
        pieces[1] = pieces[1][1:]  # no comma before the first verdict
        append(b"]}")
        return b"".join(pieces)

    def write_one(self, word: str) -> bytes:
        """``write_all([word])[0]`` in UTF-8, a plain ASCII word through ``write_body``'s heads (the same shapes,
        one word: tests/test_verdict_text.py holds the two equal), anything else through ``write_all``."""
        if not (self.record_flag and len(word) <= MAX_INPUT_CHARS and word.isascii() and word.isalpha()):
            return self(word).encode()
        (get, records, record_forms, record_flag, can_spell, score_bytes, _separator, letter_bytes, heads, head,
         score_mid, chance_tail, _each) = self._body_bound
        key = get(word.lower().encode())
        n = len(word)
        shape = 0 if MIN_WORD_LETTERS <= n <= MAX_WORD_LETTERS else n
        form = None
        if key is None:
            if not can_spell(word):
                return self(word).encode()
            shape = -1 - shape
        else:
            number, flags, form_bytes, offset = _unpack_record(records, key * _RECORD_SIZE)
            if not flags & record_flag:
                return self(word).encode()
            if flags & RECORD_FORM:
                if form_bytes:
                    form = record_forms[offset:offset + form_bytes]
                    shape = (number * _SHAPES + shape) * 3 + 1
                else:
                    shape = (number * _SHAPES + shape) * 3 + 2
            else:
                shape = (number * _SHAPES + shape) * 3
        parts, level_json = heads.get(shape) or head(shape)
        upper = word.upper()
        upper_bytes = upper.encode()
        score = sum(upper_bytes.translate(score_bytes))
        text = upper_bytes.join(parts) if form is None else upper_bytes.join(parts).replace(_FORM_MARK, form)
        if score >= len(score_mid):  # a score past the tables (a long word of dear letters)
            return b"".join((_FIRST_WORD, text, f'{score},"letters":['.encode(),
                             charmap_encode(upper, "strict", letter_bytes)[0][:-1], level_json,
                             self._chance_tail(score).encode()))
        return b"".join((_FIRST_WORD, text, score_mid[score], charmap_encode(upper, "strict", letter_bytes)[0][:-1],
                         level_json, chance_tail[score]))

    def _head(self, shape: int) -> tuple[tuple[bytes, ...], bytes]:
        """A verdict's JSON from its word up to its score, cut where the word goes (so its first part is
        empty), and its JSON from the end of its letters to its success chance (UTF-8), for a ``shape`` of ``write_body``: its record's level codes (numbered), its length when
        that is a reason, and whether its dictionary reason names a form (which ``_FORM_MARK`` stands for),
        names an empty one, or none. Negative: a word the dictionary does not hold. Kept: the files bound them
        (about 1,400 per writer)."""
        if shape < 0:
            n, level_json, playable, reason = -1 - shape, ',"level":null,"success_chance":', False, self.unknown
        else:
            rest, kind = divmod(shape, 3)
            number, n = divmod(rest, _SHAPES)
            level_json, playable, reason, with_form, empty_form = self.numbered[number] or self._numbered(number)
            reason = "" if playable else (reason, with_form, empty_form)[kind]
        if playable and not n:
            template = f'{_WORD}","legal":true,"reasons":[],"score":'
        else:
            if n:
                length = self.lengths.get(n) or self._length(n)
                reason = f"{length},{reason}" if reason else length
            template = f'{_WORD}","legal":false,"reasons":[{reason}],"score":'
        made = tuple(part.encode() for part in template.replace(_FORM, _FORM_MARK.decode()).split(_WORD)), f"]{level_json}".encode()
        self._heads[shape] = made
        return made

    def _each(self, words: list[Any]) -> list[str]:
        """The verdict JSON of each word, in order, word by word; ``WordAt`` names the first that is not a
        string or not a word (its InvalidWord)."""
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
        """The deck's reason against a word it cannot spell, as JSON with the word's stand-in: made once per
        shortfall (the letters over the deck's count, each with what is needed and held), from a stand-in word
        of that shortfall alone, and kept (at most ``MAX_DECK_TEMPLATES``)."""
        over = self.deck.over_limit(upper)
        shortfall = tuple(over.items())
        found = self._deck_templates.get(shortfall)
        if found is None:
            stand_in = "".join(letter * needed for letter, (needed, _held) in over.items())
            text = self._json(deck_reasons(stand_in, self.deck))
            if text.count(stand_in) != 1 or len(self._deck_templates) >= MAX_DECK_TEMPLATES:
                return self._json(deck_reasons(upper, self.deck))  # the stand-in is not one place only: no template
            found = self._deck_templates[shortfall] = text.replace(stand_in, _WORD)
        return found

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
