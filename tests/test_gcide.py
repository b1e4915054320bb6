"""GCIDE's first current sense (tools/gcide.py) and its place in the build: on a toy dictd file (tests/data/gcide)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

from dictionaries.definitions import Definition, Definitions
from tools.build_dictionary import build
from tools.frequencies import Frequencies
from tools.gcide import GcideError, first_sense, read_gcide
from tools.wordnet import read_wordnet

TOY = DATA / "gcide"


def test_first_current_sense_passes_over_obsolete_senses_and_quotations() -> None:
    """NET's first sense is marked [Obs.] and followed by a quotation: the second is the one meant."""
    assert read_gcide(TOY).define("net") == ("adjective", "Free from all charges or deductions")


def test_a_bare_cross_reference_is_no_definition() -> None:
    """LOOK's first entry only says "See {Behold}": the next entry's sense is taken, its usage note cut."""
    assert read_gcide(TOY).define("look") == ("interjection", "Attend; pay attention; used to call notice")


def test_a_word_only_mentioned_under_another_headword_has_none() -> None:
    """SPAT is indexed under SPAWN ("Written also spat"): that is not a definition of SPAT."""
    assert read_gcide(TOY).define("spat") is None
    assert read_gcide(TOY).define("zebra") is None


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ('Eh \\Eh\\, interj. [OE. ei, ey.]\n   An expression of inquiry or slight surprise.\n   [1913 Webster]\n',
         ("interjection", "An expression of inquiry or slight surprise")),
        ('Ape \\Ape\\, n. [AS. apa; akin to D. aap.]\n   1. (Zool.) A quadrumanous mammal.\n   [1913 Webster]\n',
         ("noun", "A quadrumanous mammal")),
        # issue 19: the headline's plural is no sense ("pl. Lapides"), nor is an inflection alone
        ('Lapis \\La"pis\\, n.; pl. {Lapides}. [L.]\n   A stone.\n   [1913 Webster]\n', ("noun", "A stone")),
        ('Torah \\To"rah\\, n.; pl. {Toroth}. [Heb.\n   t[=o]r[=a]h.] (Jewish Lit.)\n   (a) A law; a precept.\n',
         ("noun", "A law; a precept")),
        ('Hers \\Hers\\ (h[~e]rz), pron.\n   See the Note under {Her}, pron.\n   [1913 Webster]\n', None),
        ('Thee \\Thee\\, v. i. [AS. theon.]\n   To thrive; to prosper. [Obs.] "He shall never thee."\n', None),
        ('Whose \\Whose\\, pron. [OE. whos.]\n   The possessive case of who or which. See {Who}, and {Which}.\n',
         ("pronoun", "The possessive case of who or which")),
    ],
)
def test_first_sense_reads_gcide_markup(entry: str, expected: tuple[str, str] | None) -> None:
    word = entry.split(" ", 1)[0].lower()
    assert first_sense(word, entry) == expected


def test_same_as_is_the_other_headword_s_sense_of_that_part() -> None:
    """HOOKEY, n. is "Same as {hooky}, n.": HOOKY's noun, not its first entry (an adjective); once only."""
    from tools.gcide import Gcide

    entries = ['Hookey \\Hook"ey\\, n.\n   Same as {hooky}, n.\n',
               'Hooky \\Hook"y\\, a.\n   Full of hooks.\n',
               'Hooky \\Hook"y\\, n.\n   A word used only in the expression to play hooky, to be truant.\n',
               'Loop \\Loop\\, n.\n   Same as {loopy}.\n', 'Loopy \\Loop"y\\, n.\n   Same as {loop}.\n']
    text = "".join(entries).encode()
    starts = [sum(len(e.encode()) for e in entries[:i]) for i in range(len(entries))]
    spans = [(start, len(e.encode())) for start, e in zip(starts, entries)]
    gcide = Gcide({"hookey": [spans[0]], "hooky": spans[1:3], "loop": [spans[3]], "loopy": [spans[4]]}, text)
    assert gcide.define("hookey") == ("noun", "A word used only in the expression to play hooky, to be truant")
    assert gcide.define("loop") is None  # a loop of references defines nothing


def test_missing_or_damaged_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(GcideError, match="dict-gcide"):
        read_gcide(tmp_path)
    (tmp_path / "gcide.index").write_text("net\tnot a dictd line\n")
    with pytest.raises(GcideError, match="gcide.index:1"):
        read_gcide(tmp_path)


@pytest.fixture(scope="module")
def with_gcide(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("toy-gcide")
    metadata = build(DATA / "scowl", DATA / "overlay.txt", out, "toy", frequencies=Frequencies.from_file(
        DATA / "frequencies.tsv"), wordnet=read_wordnet(DATA / "wordnet"), gcide=read_gcide(TOY))
    return out, metadata


def test_build_defines_words_wordnet_lacks_from_gcide_and_credits_it(
        with_gcide: tuple[Path, dict[str, object]]) -> None:
    out, metadata = with_gcide
    shipped = Definitions(out)
    assert shipped.lookup("net") == [Definition("adjective", "Free from all charges or deductions", "GCIDE")]
    assert shipped.lookup("pats") == [Definition("noun", "A light, quick blow or stroke with the fingers or hand",
                                                 "GCIDE")]  # a plural reaches its base in GCIDE too
    assert shipped.lookup("spat") == []
    sources = metadata["sources"]
    assert isinstance(sources, list)
    assert [s["licence"] for s in sources if s["name"] == "GCIDE"] == [
        "GPL-2.0-or-later (see GCIDE-LICENSE; GCIDE 0.48 says version 2 or any later)"]


def test_wordnet_s_definition_wins_where_it_has_one(with_gcide: tuple[Path, dict[str, object]]) -> None:
    cat = Definitions(with_gcide[0]).lookup("cat")
    assert cat and all(d.source == "WordNet" for d in cat) and "feline" in cat[0].text


def test_a_word_whose_wordnet_senses_are_names_takes_gcide_s_first(with_gcide: tuple[Path, dict[str, object]],
                                                                  toy_dictionary_dir: Path) -> None:
    """LOOK is an acronym in the toy WordNet and TENT a name (issue 19): GCIDE's sense of the lower-case
    word comes first when it has one (WHO: the pronoun); else the names' stay (BAPTIST, COGNAC, WIFI)."""
    assert Definitions(with_gcide[0]).lookup("look") == [
        Definition("interjection", "Attend; pay attention; used to call notice", "GCIDE")]
    toy = Definitions(toy_dictionary_dir)
    assert toy.lookup("look") == [Definition("noun", "a toy acronym that no lower-case look means")]  # no GCIDE
    assert toy.lookup("tent") == [Definition("noun", "a toy name written with a capital")]
