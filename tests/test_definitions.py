"""Definitions: the toy WordNet (tests/data/wordnet) for the rules, the shipped file for coverage."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dictionaries import DEFINITIONS_TEXT, DEFINITIONS_TRIE, METADATA
from dictionaries.definitions import Definition, Definitions, definitions, open_definitions
from dictionaries.dictionary import Dictionary
from dictionaries.errors import DictionaryError, InvalidWord


@pytest.fixture(scope="module")
def toy(toy_dictionary_dir: Path) -> Definitions:
    return Definitions(toy_dictionary_dir)


def test_an_inflection_reaches_its_lemma(toy: Definitions) -> None:
    """TAPS has its own noun sense, which comes first (issue 19), then every sense of TAP; among the base's
    parts of speech the one tagged most comes first."""
    assert toy.lookup("taps") == [
        Definition("noun", "(military) signal to turn the lights out"),
        Definition("verb", "strike lightly"),
        Definition("noun", "a faucet for drawing water from a pipe"),  # the toy has no cntlist and no links:
        Definition("noun", "the sound made by a gentle blow"),  # untagged senses go in WordNet's order
    ]


def test_untagged_senses_go_by_links_over_the_place_in_the_synset(toy: Definitions) -> None:
    """FIN heads the synset of the fish's organ and is third in five, cinque, fin, which has more links, two
    of them semantic (its three domain pointers do not count): the organ first (issue 19)."""
    assert [d.text for d in toy.lookup("fin")] == ["organ of locomotion and balance in fishes",
                                                   "the cardinal number that is the sum of four and one"]


def test_an_irregular_form_s_lemma_comes_before_a_regular_reading(toy: Definitions) -> None:
    """TESTES is TESTIS's plural (WordNet's exception list), before the verb TEST (-es), which is tagged more."""
    assert [d.part_of_speech for d in toy.lookup("testes")] == ["noun", "verb"]


def test_a_comparative_borrows_no_noun_s_senses() -> None:
    """CURER is no comparative of the noun CURE (issue 19): WordNet's senses of CURE are not its; a plural or
    a verb form may borrow a noun's (DEEDED: DEED)."""
    from tools.definitions import definition_ids
    from tools.wordnet import read_wordnet

    wordnet = read_wordnet(Path(__file__).parent / "data" / "wordnet")
    assert definition_ids(wordnet, "curer") == [] == definition_ids(wordnet, "curest")
    assert definition_ids(wordnet, "cured") == definition_ids(wordnet, "cures") == [("noun", 123)]


def test_irregular_forms_and_other_parts_of_speech(toy: Definitions) -> None:
    assert toy.lookup("geese") == [Definition("noun", "web-footed long-necked migratory aquatic birds")]
    assert toy.lookup("gnashes") == [Definition("verb", "grind together, of teeth")]
    assert toy.lookup("soberer") == [Definition("adjective", "not affected by a chemical substance (especially alcohol)")]


def test_examples_are_dropped_and_empty_means_none(toy: Definitions) -> None:
    assert [d.text for d in toy.lookup("tap")][0] == "strike lightly"  # the quoted example is gone
    assert toy.lookup("the") == []
    assert toy.lookup("zzz") == []


def test_to_dict(toy: Definitions) -> None:
    assert toy.lookup("donut")[0].to_dict() == {"part_of_speech": "noun", "text": "a small ring-shaped friedcake"}


def test_definitions_reads_words_as_a_verdict_does(toy_dictionary_dir: Path) -> None:
    path = str(toy_dictionary_dir)
    assert definitions("TAPS", path) == definitions(" taps ", path) == open_definitions(path).lookup("taps")
    with pytest.raises(InvalidWord):
        definitions("t@ps", path)


def copy_of(toy_dictionary_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(toy_dictionary_dir, target)
    return target


def test_a_truncated_file_is_named(toy_dictionary_dir: Path, tmp_path: Path) -> None:
    copy = copy_of(toy_dictionary_dir, tmp_path)
    text = copy / DEFINITIONS_TEXT
    text.write_bytes(text.read_bytes()[:-1])
    with pytest.raises(DictionaryError, match="definitions.text"):
        Definitions(copy)


def test_a_missing_file_is_named(toy_dictionary_dir: Path, tmp_path: Path) -> None:
    copy = copy_of(toy_dictionary_dir, tmp_path)
    (copy / DEFINITIONS_TRIE).unlink()
    with pytest.raises(DictionaryError, match="definitions.marisa is missing"):
        Definitions(copy)


def test_a_dictionary_built_without_definitions_says_so(toy_dictionary_dir: Path, tmp_path: Path) -> None:
    copy = copy_of(toy_dictionary_dir, tmp_path)
    meta = json.loads((copy / METADATA).read_text())
    meta["definitions"] = None
    (copy / METADATA).write_text(json.dumps(meta))
    with pytest.raises(DictionaryError, match="without definitions"):
        Definitions(copy)
    assert Dictionary(copy).word_code("cat")  # the words still open: definitions are apart


def test_a_replaced_text_file_is_refused(toy_dictionary_dir: Path, tmp_path: Path) -> None:
    copy = copy_of(toy_dictionary_dir, tmp_path)
    text = copy / DEFINITIONS_TEXT
    text.write_bytes(b"X" * len(text.read_bytes()))  # same size, wrong header
    with pytest.raises(DictionaryError, match="does not match"):
        Definitions(copy)


@pytest.mark.parametrize("word, part", [("taps", "verb"), ("donut", "noun"), ("quickly", "adverb"), ("snuck", "verb")])
def test_shipped_definitions(word: str, part: str) -> None:
    found = definitions(word)
    assert found and part in {d.part_of_speech for d in found}
    assert len([d for d in found if d.part_of_speech == part]) <= 3  # a few senses per part of speech


def test_shipped_taps_reaches_tap() -> None:
    assert set(definitions("tap")) <= set(definitions("taps")) | set(definitions("tap")[3:])
    assert any("strike lightly" == d.text for d in definitions("taps"))


@pytest.mark.parametrize(
    ("word", "part", "text"),
    [
        ("rebid", "verb", "bid again (RE- + BID)"),        # issue 19: built from the rule table
        ("guiders", "noun", "one who guides (from GUIDE)"),
        ("dankly", "adverb", "in a dank manner (from DANK)"),
        ("catlike", "adjective", "like a cat (from CAT)"),
    ],
)
def test_shipped_words_wordnet_lacks_get_the_rule_table_s_definition(word: str, part: str, text: str) -> None:
    assert open_definitions().lookup(word)[0] == Definition(part, text)


def test_shipped_own_senses_lead_and_names_go() -> None:
    """Issue 19: BACKER is one who backs (not BACK); RAVELS is not Maurice Ravel; WHO is the pronoun (the project's own gloss),
    not the World Health Organization."""
    shipped = open_definitions()
    assert shipped.lookup("backer")[0].part_of_speech == "noun"
    assert all("Ravel" not in d.text and "composer" not in d.text for d in shipped.lookup("ravels"))
    assert shipped.lookup("who")[0].part_of_speech == "pronoun"
    assert shipped.lookup("deeded")  # a form WordNet does not reach borrows its base's senses


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("fins", "organ of locomotion"),       # not five (FIN is ninth in five, 5, V, ...)
        ("clones", "genetically identical"),   # not a person almost identical to another
        ("prodigy", "gifted"),                 # not an omen
        ("versos", "left-hand page"),          # not the back of a coin
        ("ginned", "cotton gin"),              # not to snare
        ("testes", "reproductive glands"),     # TESTIS's plural (WordNet's exceptions), not TEST
        ("curer", "one who cures"),            # the rule table's agent noun, not the noun CURE
        ("unmet", "not met"),                  # a participle with UN- is "not", not "undo"
    ],
)
def test_shipped_first_sense_is_the_one_meant(word: str, meant: str) -> None:
    """Issue 19's sense order on the shipped data: words the judged samples found led by another sense."""
    assert meant in open_definitions().lookup(word)[0].text
