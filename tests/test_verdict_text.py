"""The service's verdict JSON from templates and records (service/verdict_text.py) is the full path's,
byte for byte; the records are what tools/records.py makes of the shipped files, and checked like them."""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dictionaries import LEVELS, METADATA, RECORD_FILES, WORDS_RECORDS
from dictionaries.deck import DOUBLE, STANDARD, Deck, custom_deck
from dictionaries.dictionary import Dictionary
from dictionaries.errors import DictionaryError, InvalidWord
from dictionaries.i18n import LANGUAGES
from dictionaries.verdict import judge
from service.answers import VERDICT_CACHE_WORDS, Verdicts
from service.verdict_text import (
    MAX_DECK_TEMPLATES,
    VerdictWriter,
    check_word,
    verdict_json,
)
from tools.records import write_records

ODD = custom_deck("odd", {"A": 1, "E": 1, "S": 2, "T": 1}, {"A": 7})
DECKS: dict[str, Deck] = {"standard": STANDARD, "double": DOUBLE, "odd": ODD}
SPECIAL = ["Jazz", "JAZZ", "qi", "QI", "it", "a", "ibm", "IBM", "dont", "quo", "ain", "zzz", "aaa", "oooooooooo",
           "xylophones", "taps", "Paris", "paris", "nasa", "q" * 64, "e" * 65, "", "don't", "u.s.a.", "caf\u00e9",
           "t4ps", "k\u00f6nig", "mississippi", "jj", "x"]


def full(dictionary: Dictionary, word: str, level: int, deck: str, language: str) -> str:
    """The reference: the API's check, judge, and the verdict's JSON."""
    check_word(word)
    return verdict_json(judge(dictionary, word, level, DECKS[deck]), deck, language)


def same(writer: VerdictWriter, dictionary: Dictionary, word: str) -> None:
    try:
        expected = full(dictionary, word, writer.level, writer.deck_name, writer.language)
    except InvalidWord as exc:
        with pytest.raises(InvalidWord) as raised:
            writer(word)
        assert str(raised.value) == str(exc)
        return
    assert writer(word) == expected, word


@pytest.fixture(scope="module")
def sample(dictionary: Dictionary) -> list[str]:
    rng = random.Random(37)
    keys = list(dictionary._words.iterkeys())
    gibberish = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 70)))
                 for _ in range(300)]
    return [*rng.sample(keys, 500), *gibberish, *SPECIAL]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("deck", list(DECKS))
@pytest.mark.parametrize("level", LEVELS)
def test_the_writer_is_the_full_path(dictionary: Dictionary, sample: list[str], level: int, deck: str,
                                     language: str) -> None:
    writer = VerdictWriter(dictionary, level, DECKS[deck], deck, language)
    for word in sample:
        same(writer, dictionary, word)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzJQXZ.'\u00e9 1"), max_size=70),
       st.sampled_from(LEVELS), st.sampled_from(list(DECKS)), st.sampled_from(LANGUAGES))
def test_the_writer_is_the_full_path_for_any_input(dictionary: Dictionary, word: str, level: int, deck: str,
                                                   language: str) -> None:
    same(VerdictWriter(dictionary, level, DECKS[deck], deck, language), dictionary, word)


@pytest.mark.slow
@pytest.mark.parametrize(("level", "language"), [(60, "en"), (60, "es"), (95, "en"), (10, "es")])
def test_every_spelling_of_the_dictionary(dictionary: Dictionary, level: int, language: str) -> None:
    writer = VerdictWriter(dictionary, level, STANDARD, "standard", language)
    for key in dictionary._words.iterkeys():
        assert writer(key) == full(dictionary, key, level, "standard", language), key


def body(writer: VerdictWriter, words: list[str]) -> bytes:
    """The batch body as the API wrote it before ``write_body``: each verdict of ``write_all``, joined."""
    return ('{"results":[' + ",".join(writer.write_all(words)) + "]}").encode()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("deck", ["standard", "double"])
@pytest.mark.parametrize("level", LEVELS)
def test_a_batch_body_is_its_verdicts_joined(dictionary: Dictionary, sample: list[str], level: int, deck: str,
                                             language: str) -> None:
    writer = VerdictWriter(dictionary, level, DECKS[deck], deck, language)
    plain = [word for word in sample if word.isascii() and word.isalpha() and len(word) <= 64]
    plain += [word.upper() for word in plain[:50]] + [word.title() for word in plain[50:100]]
    random.Random(level).shuffle(plain)
    for start in range(0, len(plain), 97):
        assert writer.write_body(plain[start:start + 97]) == body(writer, plain[start:start + 97])
    for words in (["jazz"], ["qi"], ["zzzzzz"], ["q" * 64], ["Paris", "taps"]):
        assert writer.write_body(words) == body(writer, words), words


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("deck", list(DECKS))
@pytest.mark.parametrize("level", [10, 60, 95])
def test_one_word_is_its_verdict(dictionary: Dictionary, sample: list[str], level: int, deck: str,
                                 language: str) -> None:
    """write_one (the single words' answer) is the verdict in UTF-8, or the same InvalidWord."""
    writer = VerdictWriter(dictionary, level, DECKS[deck], deck, language)
    for word in [*sample, *(word.upper() for word in sample[:50])]:
        try:
            expected = writer(word).encode()
        except InvalidWord as exc:
            with pytest.raises(InvalidWord) as raised:
                writer.write_one(word)
            assert str(raised.value) == str(exc)
            continue
        assert writer.write_one(word) == expected, word


@pytest.mark.parametrize("words", [[], ["taps", "don't"], ["taps", "caf\u00e9"], ["taps", ""], ["taps", "e" * 65],
                                   ["taps", 3], ["taps", None], ["t4ps"], ["taps", "ta ps"], ["ta\nps"]])
def test_a_batch_of_other_words_is_left_to_write_all(dictionary: Dictionary, words: list[object]) -> None:
    """Anything but plain ASCII letters (and an empty batch) is written by write_all, which names what is wrong."""
    assert VerdictWriter(dictionary, 60, STANDARD, "standard", "en").write_body(words) is None


def test_a_deck_of_its_own_has_no_batch_body(dictionary: Dictionary) -> None:
    assert VerdictWriter(dictionary, 60, ODD, "odd", "en").write_body(["taps", "jazz"]) is None


@pytest.mark.slow
@pytest.mark.parametrize(("level", "language", "deck"), [(60, "en", "standard"), (60, "es", "double"),
                                                         (95, "es", "standard"), (10, "en", "double")])
def test_every_spelling_of_the_dictionary_in_batches(dictionary: Dictionary, level: int, language: str,
                                                     deck: str) -> None:
    writer = VerdictWriter(dictionary, level, DECKS[deck], deck, language)
    keys = [key for key in dictionary._words.iterkeys() if key.isascii() and key.isalpha()]
    random.Random(level).shuffle(keys)
    for start in range(0, len(keys), 1000):
        assert writer.write_body(keys[start:start + 1000]) == body(writer, keys[start:start + 1000])
    for key in keys[::7]:
        assert writer.write_one(key) == writer(key).encode(), key


def test_deck_reasons_are_kept_per_shortfall(dictionary: Dictionary) -> None:
    """A deck reason is made once per shortfall and filled in with each word; at most MAX_DECK_TEMPLATES."""
    writer = VerdictWriter(dictionary, 60, STANDARD, "standard", "es")
    for word in ("zzzz", "ZZZZ", "qzzzz", "zzzzq", "xxxxxxx", "jjjjjjjjjjjjjjjjj"):
        same(writer, dictionary, word)
    assert len(writer._deck_templates) == 3
    rng = random.Random(3)
    for _ in range(3000):
        writer("".join(rng.choice("jqxzkw") for _ in range(rng.randint(2, 64))))
    assert len(writer._deck_templates) == MAX_DECK_TEMPLATES
    same(writer, dictionary, "jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjqqqqqqqqqqqqqqqqqqxxxxx")


def test_the_shipped_records_are_read(dictionary: Dictionary) -> None:
    assert dictionary.records is not None and dictionary.record_forms is not None
    assert VerdictWriter(dictionary, 60, STANDARD, "standard", "en").record_flag
    assert VerdictWriter(dictionary, 60, DOUBLE, "double", "en").record_flag
    assert not VerdictWriter(dictionary, 60, ODD, "odd", "en").record_flag, "a deck of its own reads no record"


def test_the_shipped_records_are_what_the_files_make(dictionary: Dictionary, tmp_path: Path) -> None:
    """After the word files change, ``python -m tools.records`` must be run (the build runs it)."""
    for name in ("words.marisa", "words.levels", "forms.marisa"):
        shutil.copy(Path(dictionary.path) / name, tmp_path / name)
    entry = write_records(tmp_path)
    assert entry == dictionary.metadata["records"], "run: python -m tools.records"
    for name in RECORD_FILES:
        assert (tmp_path / name).read_bytes() == (Path(dictionary.path) / name).read_bytes(), name


@pytest.fixture
def copy_of(dictionary: Dictionary, tmp_path: Path) -> Path:
    target = tmp_path / "dict"
    shutil.copytree(dictionary.path, target)
    return target


def test_a_damaged_record_file_is_refused(copy_of: Path) -> None:
    records = copy_of / WORDS_RECORDS
    data = bytearray(records.read_bytes())
    data[100] ^= 1
    records.write_bytes(bytes(data))
    with pytest.raises(DictionaryError, match=WORDS_RECORDS):
        Dictionary(copy_of)
    Dictionary(copy_of, verify=False).records  # noqa: B018 - without verifying, it opens (sizes match)
    with pytest.raises(DictionaryError, match=WORDS_RECORDS):
        Dictionary(copy_of, verify=False).verify()


def test_a_truncated_record_file_is_refused_unverified(copy_of: Path) -> None:
    records = copy_of / WORDS_RECORDS
    records.write_bytes(records.read_bytes()[:-8])
    with pytest.raises(DictionaryError, match=WORDS_RECORDS):
        Dictionary(copy_of, verify=False)


def test_without_records_the_verdicts_are_the_same(copy_of: Path, dictionary: Dictionary, sample: list[str]) -> None:
    """A dictionary whose metadata lists no records (built before them) still answers, from the other files."""
    meta = json.loads((copy_of / METADATA).read_text())
    del meta["records"]
    (copy_of / METADATA).write_text(json.dumps(meta))
    bare = Dictionary(copy_of)
    assert bare.records is None
    for language in LANGUAGES:
        writer = VerdictWriter(bare, 60, STANDARD, "standard", language)
        assert not writer.record_flag
        for word in sample:
            same(writer, dictionary, word)


def test_what_a_writer_keeps_is_bounded(dictionary: Dictionary) -> None:
    """Templates per level record and per length only: a million words leave them as they were."""
    writer = VerdictWriter(dictionary, 60, STANDARD, "standard", "es")
    rng = random.Random(1)
    keys = list(dictionary._words.iterkeys())
    for word in rng.sample(keys, 20000):
        writer(word)
    for n in range(1, 65):
        writer("q" * n)
    distinct = {dictionary._levels[i * 5:i * 5 + 5] for i in range(len(keys))}
    assert len(writer.entries) <= len(distinct) and len(writer.lengths) <= 2 + 64 - 7


def test_single_words_are_kept_in_a_small_cache(dictionary: Dictionary) -> None:
    verdicts = Verdicts(dictionary, DECKS, "en", 60, "standard")
    words = [f"zq{i}".translate(str.maketrans("0123456789", "abcdefghij")) for i in range(3 * VERDICT_CACHE_WORDS)]
    for word in words:
        verdicts(word, 60, "standard")
    assert verdicts.one.cache_info().currsize == verdicts.cache_info().currsize == VERDICT_CACHE_WORDS
    for word in words:  # other levels and decks share a second cache, as small
        verdicts(word, 70, "standard")
        verdicts(word, 60, "double")
    assert verdicts.one.cache_info().currsize == VERDICT_CACHE_WORDS
    assert verdicts.cache_info().currsize == 2 * VERDICT_CACHE_WORDS


def test_the_service_level_and_deck_are_cached_by_the_word_alone(dictionary: Dictionary) -> None:
    verdicts = Verdicts(dictionary, DECKS, "en", 60, "standard")
    assert verdicts.body("flam", 60, "standard") is verdicts.one("flam"), "one cache, whichever way it is asked"
    assert verdicts.one.cache_info().misses == 1 and verdicts.cache_info().hits == 1
    # FLAM is uncommon at 60 and legal at 70; JAZZ needs the double deck's second Z.
    assert b'"legal":true' in verdicts.body("flam", 70, "standard") == verdicts.writer(70, "standard").write_one("flam")
    assert b'"legal":true' in verdicts.body("jazz", 60, "double") == verdicts.writer(60, "double").write_one("jazz")
    assert b'"legal":false' in verdicts.body("jazz", 60, "standard")
    assert verdicts.one.cache_info().currsize == 2, "other levels and decks are not kept in the service's own cache"
    for level, deck in ((70, "double"), (80, "double"), (70, "standard")):  # the second cache keys by all three
        assert verdicts.body("jazz", level, deck) == verdicts.writer(level, deck).write_one("jazz")
    assert verdicts.body("jazz", 70, "double") != verdicts.body("jazz", 70, "standard")
