"""The project's own glosses (tools/glosses.py): the file's checks, their place in the build (on the toy
inputs), and the shipped tools/glosses.tsv."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

from dictionaries.definitions import Definition, Definitions, open_definitions
from tools.build_dictionary import build
from tools.build_inputs import BuildError
from tools.frequencies import Frequencies
from tools.glosses import DEFAULT_GLOSSES, LINKS, NOT_A_WORD, Glosses, read_glosses
from tools.wordnet import read_wordnet

TOY = DATA / "glosses.tsv"


def test_reads_senses_links_and_non_words() -> None:
    glosses = read_glosses(TOY)
    assert glosses.senses["ramen"] == [("noun", "quick-cooking Japanese wheat noodles in broth"),
                                       ("noun", "a dish of such noodles")]
    assert glosses.links == {"apps": ("form", "app"), "colour": ("variant", "color")}
    assert glosses.not_words == {"onya": "a phrase (good on ya), not a word"}
    assert len(glosses.sha256) == 64


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("meh\tinterjection", "want word"),                       # two fields
        ("meh\tinterjection\t an expression of boredom", "want word"),  # stray space
        ("Meh\tinterjection\tboredom", "lower-case a-z"),
        ("meh\texclamation\tboredom", "no part of speech"),
        ("meh\tinterjection\tBoredom", "lower case"),
        ("meh\tinterjection\tboredom.", "final period"),
        ("meh\tinterjection\t" + "x" * 91, "at most 90"),
        ("mehs\tform\tMeh", "another lower-case"),
        ("meh\tvariant\tmeh", "another lower-case"),
        ("meh\tinterjection\tboredom\nmeh\tinterjection\tboredom", "repeats"),
        ("meh\tinterjection\tboredom\nmeh\tnot\ta sound", "stands alone"),
        ("meh\tnot\ta sound\nmeh\tinterjection\tboredom", "already"),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "glosses.tsv"
    path.write_text("# header\n" + line + "\n", encoding="utf-8")
    with pytest.raises(BuildError, match=says) as raised:
        read_glosses(path)
    assert f"{path}:" in str(raised.value)


def toy_build(out: Path, glosses: Glosses) -> dict[str, object]:
    return build(DATA / "scowl", DATA / "overlay.txt", out, "toy", frequencies=Frequencies.from_file(
        DATA / "frequencies.tsv"), wordnet=read_wordnet(DATA / "wordnet"), glosses=glosses)


def test_build_defines_words_no_source_defines_and_credits_them(tmp_path: Path) -> None:
    metadata = toy_build(tmp_path, read_glosses(TOY))
    shipped = Definitions(tmp_path)
    assert shipped.lookup("ramen") == [Definition("noun", "quick-cooking Japanese wheat noodles in broth", "own glosses"),
                                       Definition("noun", "a dish of such noodles", "own glosses")]
    assert shipped.lookup("apps") == shipped.lookup("app") == [
        Definition("noun", "(informal) a program for a phone or computer", "own glosses")]  # a form: its base's
    assert shipped.lookup("colour") == shipped.lookup("color") != []  # a variant: its base's
    cat = shipped.lookup("cat")
    assert cat and all(d.source == "WordNet" for d in cat)  # WordNet's senses win where it has them
    assert shipped.lookup("onya") == []
    sources = metadata["sources"]
    assert isinstance(sources, list)
    assert [s["name"] for s in sources][-1] == "own glosses" and sources[-1]["licence"]
    definitions = metadata["definitions"]
    assert isinstance(definitions, dict) and "own glosses (tools/glosses.tsv) for 4 glosses" in definitions["source"]


def test_without_the_glosses_those_words_have_none(tmp_path: Path) -> None:
    toy_build(tmp_path, Glosses())
    assert Definitions(tmp_path).lookup("ramen") == [] == Definitions(tmp_path).lookup("apps")


def test_a_form_of_a_word_nothing_defines_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "glosses.tsv"
    path.write_text("apps\tform\tapp\n", encoding="utf-8")  # APP has no definition in the toy sources
    with pytest.raises(BuildError, match="apps is a form of app, which no source defines"):
        toy_build(tmp_path / "out", read_glosses(path))


def test_shipped_glosses_are_sorted_and_checked() -> None:
    glosses = read_glosses(DEFAULT_GLOSSES)  # every line's fields and part of speech (BuildError otherwise)
    lines = [line for line in DEFAULT_GLOSSES.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    assert lines == sorted(lines, key=lambda line: line.split("\t")[0]) and lines
    assert {line.split("\t")[1] for line in lines} <= {"noun", "verb", "adjective", "adverb", "preposition", "pronoun",
                                                       "conjunction", "interjection", *LINKS, NOT_A_WORD}
    assert glosses.senses


def test_shipped_forms_and_variants_reach_a_defined_base() -> None:
    """Every form and variant line's base has a definition from some source in the shipped data or a gloss
    of its own, and its word has a definition (the build refuses a base it cannot define)."""
    glosses, shipped = read_glosses(DEFAULT_GLOSSES), open_definitions()
    undefined = sorted(f"{word} -> {base}" for word, (_kind, base) in glosses.links.items()
                       if not shipped.lookup(base) and base not in glosses.senses)  # BURB: glossed for BURBS
    assert undefined == []
    assert all(shipped.lookup(word) for word in glosses.links)


def test_shipped_own_glosses_fill_only_what_no_source_defines() -> None:
    glosses, shipped = read_glosses(DEFAULT_GLOSSES), open_definitions()
    own = {word for word in glosses.senses if shipped.lookup(word) and shipped.lookup(word)[0].source == "own glosses"}
    assert own  # the shipped data uses them
    for word in own:
        assert [(d.part_of_speech, d.text) for d in shipped.lookup(word)] == glosses.senses[word]


def test_a_chain_of_links_reaches_the_defined_word(tmp_path: Path) -> None:
    path = tmp_path / "glosses.tsv"
    path.write_text("apps\tform\tapp\napp\tvariant\tapt\napt\tadjective\tfitting\n", encoding="utf-8")
    toy_build(tmp_path / "out", read_glosses(path))
    assert Definitions(tmp_path / "out").lookup("apps") == [Definition("adjective", "fitting", "own glosses")]


def test_a_base_only_the_glosses_hold_defines_its_forms(tmp_path: Path) -> None:
    path = tmp_path / "glosses.tsv"
    path.write_text("apps\tform\tappz\nappz\tnoun\tno word of the toy list\n", encoding="utf-8")
    toy_build(tmp_path / "out", read_glosses(path))
    shipped = Definitions(tmp_path / "out")
    assert shipped.lookup("apps") == [Definition("noun", "no word of the toy list", "own glosses")]
    assert shipped.lookup("appz") == []  # not a word of the list: only its forms show it


def test_a_form_the_glosses_do_not_list_reaches_its_glossed_base(tmp_path: Path) -> None:
    """APPS is read as APP's plural by the rule table when no line names it (HOMIES: HOMIE)."""
    path = tmp_path / "glosses.tsv"
    path.write_text("app\tnoun\ta program for a phone\n", encoding="utf-8")
    toy_build(tmp_path / "out", read_glosses(path))
    assert Definitions(tmp_path / "out").lookup("apps") == [Definition("noun", "a program for a phone", "own glosses")]
