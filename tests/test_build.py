"""The dictionary build, on toy inputs (tests/data: scowl/, wordnet/, frequencies.tsv), never the real packages."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import DATA, build_toy

from dictionaries import DATA_FILES, DEFINITION_FILES, METADATA
from dictionaries.dictionary import Dictionary
from dictionaries.verdict import judge
from tools.build_dictionary import build, main
from tools.build_inputs import BuildError
from tools.frequencies import Frequencies
from tools.scowl import classify
from tools.wordnet import read_wordnet


def digest(directory: Path) -> dict[str, str]:
    return {name: hashlib.sha256((directory / name).read_bytes()).hexdigest()
            for name in (*DATA_FILES, *DEFINITION_FILES, METADATA)}


def test_build_twice_is_byte_identical(tmp_path: Path) -> None:
    build_toy(tmp_path / "a")
    build_toy(tmp_path / "b")
    assert digest(tmp_path / "a") == digest(tmp_path / "b")


@pytest.mark.parametrize(
    ("word", "legal", "codes", "level"),
    [
        ("cat", True, [], 10),
        ("cats", True, [], 10),            # the possessive cat's is dropped, the plural stays
        ("colour", True, [], 20),          # british spelling counts
        ("color", True, [], 20),           # american too
        ("cafe", True, [], 35),            # café folded to a-z
        ("naive", True, [], 50),           # naïve folded
        ("tenets", True, [], 60),          # variant_1 counts
        ("colr", False, ["uncommon"], 95),  # variant_2 enters at size 95, and nobody writes it
        ("ignored", False, ["unknown"], None),  # size 7 is not a SCOWL size we read
        ("london", False, ["proper_noun"], 50),  # frequent, but the name's frequency is not the word's
        ("dave", False, ["proper_noun"], 50),
        ("flam", False, ["uncommon"], 70),
        ("nasa", False, ["acronym"], 40),
        ("blvd", False, ["abbreviation"], 40),
        ("dont", False, ["contraction"], 10),
        ("apts", False, ["abbreviation"], 10),   # overlay replaces the size-95 word
        ("cthulhu", False, ["proper_noun"], 10),  # overlay adds
        ("jazz", False, ["deck_limit"], 35),
    ],
)
def test_toy_verdicts(toy_dictionary: Dictionary, word: str, legal: bool, codes: list[str], level: int | None) -> None:
    verdict = judge(toy_dictionary, word)
    assert verdict.legal is legal
    assert list(verdict.codes) == codes
    assert verdict.level == level


@pytest.mark.parametrize(
    ("word", "at_60", "codes_at_60", "codes_at_50"),
    [
        # clipped words: a lower-case abbreviation people write, whose plural is a word
        ("app", True, [], ["abbreviation"]),
        ("etc", False, ["abbreviation"], ["abbreviation"]),   # written often, but no word vouches for it
        # spellings from files the build did not read (variant_2 at size 35)
        ("donut", True, [], ["uncommon"]),
        # modern words SCOWL ranks rare
        ("ramen", True, [], ["uncommon"]),
        ("noir", False, ["uncommon"], ["uncommon"]),          # written more in French: not lifted
        ("muon", False, ["uncommon"], ["uncommon"]),          # size 70 and nobody writes it: stays
        # a rare form of a legal adjective that grades follows its base (issue 19); a rare verb form WordNet knows stays
        ("soberer", True, [], []),
        ("gnashes", True, [], []),
        # a size-95 spelling people write that WordNet does not know is left out (a name in lower case)
        ("abid", False, ["unknown"], ["unknown"]),
        # a trademark spelling the overlay makes a word
        ("wifi", True, [], ["uncommon"]),
        # capitalised apostrophes are proper nouns, typed with or without the apostrophe
        ("obrien", False, ["proper_noun"], ["proper_noun"]),
        ("O'Brien", False, ["proper_noun"], ["proper_noun"]),
        ("I'm", False, ["too_short", "contraction"], ["too_short", "contraction"]),  # SCOWL's contraction list says so
        ("cds", False, ["acronym"], ["acronym"]),              # the plural of an acronym
        ("sep", False, ["abbreviation"], ["abbreviation"]),    # capitalised in SCOWL's abbreviation list
    ],
)
def test_policy_classes(toy_dictionary: Dictionary, word: str, at_60: bool, codes_at_60: list[str],
                        codes_at_50: list[str]) -> None:
    assert judge(toy_dictionary, word, 60).legal is at_60
    assert list(judge(toy_dictionary, word, 60).codes) == codes_at_60
    assert list(judge(toy_dictionary, word, 50).codes) == codes_at_50


def test_soberer_was_a_default_word_before_the_policy(tmp_path: Path) -> None:
    """Without the frequency signal SCOWL's size 50 stands: the policy is what refuses SOBERER at 60."""
    build(DATA / "scowl", DATA / "overlay.txt", tmp_path, "toy", frequencies=None, wordnet=None)
    scowl_only = Dictionary(tmp_path)
    assert judge(scowl_only, "soberer").legal and not judge(scowl_only, "ramen").legal
    assert not (tmp_path / DEFINITION_FILES[0]).exists()
    assert scowl_only.metadata["definitions"] is None


def test_toy_rack_and_counts(toy_dictionary: Dictionary) -> None:
    assert [w.word for w in toy_dictionary.rack("taepsnt")] == [
        "PATS", "SPAT", "TAPS", "TENT", "APT", "NET", "TEN"]  # 10 (longer first, then alphabetical), then 8
    assert [w.word for w in toy_dictionary.rack("tteenps")][:2] == ["TENETS", "TENT"]  # 14 first (a rack is a hand)
    meta = toy_dictionary.metadata
    assert meta["version"] == "toy"
    assert meta["counts_by_sense_and_level"]["word"]["10"] == 8  # a cat cats taps spat pats apt look ("I" is capitalised)
    assert meta["overlay_entries"] == 3
    assert meta["policy_changes"] == {"promoted": 2, "clipped": 1, "forms": 0, "kept": 1, "demoted": 0, "left_out": 1,
                                      "capitalised_word": 0, "contraction": 0, "name_twin": 0, "abbreviation_name": 0,
                                      "surname": 0, "named": 0, "numeral": 0,
                                      "foreign": 0, "foreign_name": 0, "phrase_piece": 0,
                                      "calendar_abbreviation": 0, "follows_base": 0, "judged_forms": 0}  # test_lexicon_policy.py


def test_metadata_records_every_source(toy_dictionary: Dictionary) -> None:
    sources = {source["name"]: source for source in toy_dictionary.metadata["sources"]}
    assert set(sources) == {"SCOWL", "frequencies.tsv", "WordNet"}
    assert all(source["version"] and source["licence"] for source in sources.values())
    definitions = toy_dictionary.metadata["definitions"]
    assert set(definitions["files"]) == set(DEFINITION_FILES)
    assert not set(DEFINITION_FILES) & set(DATA_FILES)  # the word loader never needs them
    files = Path(toy_dictionary.path)
    for name, info in definitions["files"].items():
        assert hashlib.sha256((files / name).read_bytes()).hexdigest() == info["sha256"]


@pytest.mark.parametrize(
    ("raw", "category", "expected"),
    [
        ("cat", "words", ("cat", "word")),
        ("cat's", "words", None),
        ("Dave", "proper-names", ("dave", "proper_noun")),
        ("London", "upper", ("london", "proper_noun")),
        ("NASA", "abbreviations", ("nasa", "acronym")),
        ("CDs", "upper", ("cds", "acronym")),
        ("blvd", "abbreviations", ("blvd", "abbreviation")),
        ("Ltd.", "abbreviations", ("ltd", "abbreviation")),
        ("don't", "contractions", ("dont", "contraction")),
        ("I'm", "contractions", ("im", "contraction")),
        ("o'clock", "words", ("oclock", "contraction")),
        ("O'Brien", "upper", ("obrien", "proper_noun")),
        ("D'Arcy", "proper-names", ("darcy", "proper_noun")),
        ("MHz", "upper", ("mhz", "abbreviation")),       # short and mixing cases: an abbreviation (issue 19)
        ("VoIP", "proper-names", ("voip", "abbreviation")),
        ("EdD", "proper-names", ("edd", "abbreviation")),
        ("OFr", "upper", ("ofr", "abbreviation")),
        ("McCoy", "upper", ("mccoy", "proper_noun")),    # a name's two capitals are apart, the last letter small
        ("MySQL", "proper-names", ("mysql", "proper_noun")),  # longer: mostly products' names
        ("Joe", "upper", ("joe", "proper_noun")),
        ("café", "words", ("cafe", "word")),
        ("Ångström", "words", ("angstrom", "proper_noun")),
        ("ǆ", "words", ("dz", "word")),
        ("x-ray", "words", None),
        ("日本", "words", None),
    ],
)
def test_classify(raw: str, category: str, expected: tuple[str, str] | None) -> None:
    entry = classify(raw, category)
    assert (entry and (entry.key, entry.sense)) == expected


def test_overlay_lines_need_a_reason(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay.txt"
    overlay.write_text("apts abbreviation 10\n")
    with pytest.raises(BuildError, match="overlay.txt:1"):
        build_toy(tmp_path / "out", overlay)


@pytest.mark.parametrize("line", ["apts noun 10  # x", "apts abbreviation 11  # x"])
def test_overlay_refuses_unknown_sense_or_level(tmp_path: Path, line: str) -> None:
    overlay = tmp_path / "overlay.txt"
    overlay.write_text(line + "\n")
    with pytest.raises(BuildError):
        build_toy(tmp_path / "out", overlay)


def test_frequency_file_errors_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "frequencies.tsv"
    bad.write_text("cat\ten\t4.6\ndog\ten\tmany\n")
    with pytest.raises(BuildError, match="frequencies.tsv:2"):
        Frequencies.from_file(bad)


def test_missing_wordnet_is_named(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="wordnet-base"):
        read_wordnet(tmp_path)


def test_main_reports_a_missing_scowl_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scowl", str(tmp_path / "none"), "--out", str(tmp_path / "out")]) == 1
    assert "scowl" in capsys.readouterr().err


def test_main_builds_from_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scowl", str(DATA / "scowl"), "--wordnet", str(DATA / "wordnet"), "--frequencies",
                 str(DATA / "frequencies.tsv"),  # every input from tests/data: nothing of the machine's
                 "--overlay", str(DATA / "overlay.txt"), "--out", str(tmp_path),
                 "--source-version", "toy"]) == 0
    assert "defined spellings" in capsys.readouterr().out
    assert json.loads((tmp_path / METADATA).read_text())["sources"][2]["version"] == "unknown"


def test_shipped_overlay_has_a_reason_on_every_line() -> None:
    from tools.scowl import DEFAULT_OVERLAY, read_overlay

    entries = read_overlay(DEFAULT_OVERLAY)
    assert entries and all(why for senses in entries.values() for _, _, why in senses)


def test_shipped_metadata_records_sources_with_licences(dictionary: Dictionary) -> None:
    names = [source["name"] for source in dictionary.metadata["sources"]]
    assert names == ["SCOWL", "wordfreq", "WordNet", "own glosses"]  # no GCIDE (GPL) since issue 36
    for source in dictionary.metadata["sources"]:
        assert source["version"] not in ("", "unknown") and source["licence"]
    licences = Path(__file__).resolve().parent.parent / "dictionaries" / "data"
    assert {p.name for p in licences.iterdir() if p.name.endswith(("LICENSE", "COPYRIGHT"))} == {
        "SCOWL-COPYRIGHT", "WordNet-LICENSE", "wordfreq-LICENSE"}


@pytest.mark.parametrize(
    ("word", "codes"),
    [
        ("intro", []), ("stat", []),          # clipped words whose plural is a written word
        ("mph", ["abbreviation"]),           # no word vouches for it
        ("dwarves", []), ("aunty", []),      # spellings only SCOWL's rarer spelling lists hold
        ("gamers", []), ("roadmap", []),     # modern words SCOWL ranks at 70-80
        ("noir", []),                        # issue 36: a plain word (crime fiction), in the overlay
        ("bahai", ["proper_noun"]), ("Baha'i", ["proper_noun"]),  # a capitalised apostrophe is a name
        ("loyaler", ["uncommon"]), ("uniquer", ["uncommon"]),     # nonce comparatives (issue 19)
        ("babiest", ["uncommon"]),
        ("staler", []), ("relist", []), ("gabbing", []), ("ankhs", []),  # forms follow their base word
        ("asker", []), ("dankly", []), ("unbaked", []), ("catlike", []),
        ("gaol", []), ("foetus", []), ("bureaux", []),           # British variants at size 60 or below
        ("dojo", []), ("convo", []), ("mojo", []), ("dumbass", []),  # promoted (Zipf >= 2.5)
        ("tesla", []), ("gauss", []),                            # units named after people
        ("ive", ["contraction"]), ("reddy", ["proper_noun"]), ("tait", ["proper_noun"]),
        ("prima", ["phrase_piece"]), ("quo", ["phrase_piece"]),
        ("tatoo", ["unknown"]), ("seige", ["unknown"]),          # misspellings SCOWL held at size 95: left out
    ],
)
def test_shipped_policy(dictionary: Dictionary, word: str, codes: list[str]) -> None:
    assert list(judge(dictionary, word).codes) == codes


def test_shipped_accepted_sample_is_judged(dictionary: Dictionary) -> None:
    """The judged sample of legal words (tests/data/lexicon) matches the shipped data; at most 1% refused outright."""
    from benchmarks.lexicon_report import ACCEPTED, SAMPLE_SEED, SAMPLE_SIZE, legal_words, read_judged, stable_sample

    sample = stable_sample(legal_words(dictionary), SAMPLE_SIZE, SAMPLE_SEED)
    judged = read_judged(ACCEPTED)
    assert set(sample) == set(judged)  # rebuild the data, then: lexicon_report.py --samples and judge the new words
    assert all(judged[w][0] in ("accept", "refuse", "borderline") for w in sample)
    assert sum(judged[w][0] == "refuse" for w in sample) <= 0.01 * SAMPLE_SIZE


def test_overlay_phrase_pieces_and_unknown_spellings(tmp_path: Path) -> None:
    """Issue 19: the overlay says a spelling is only part of a phrase (the verdict names the phrase) or
    not in the dictionary at all."""
    overlay = tmp_path / "overlay.txt"
    overlay.write_text((DATA / "overlay.txt").read_text() + 'look  phrase_piece  95  # only in "look see" here\n'
                       "taps  unknown  95  # left out here\n", encoding="utf-8")
    out = tmp_path / "out"
    build(DATA / "scowl", overlay, out, "toy", frequencies=None, wordnet=None)
    toy = Dictionary(out)
    verdict = judge(toy, "look")
    assert list(verdict.codes) == ["phrase_piece"] and "(look see)" in verdict.reasons[0].message
    assert judge(toy, "look", 95).legal
    assert list(judge(toy, "taps").codes) == ["unknown"] and "taps" not in toy


def test_overlay_senses_are_checked(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay.txt"
    overlay.write_text("look  piece  95  # not a sense\n", encoding="utf-8")
    with pytest.raises(BuildError, match="phrase_piece"):
        build(DATA / "scowl", overlay, tmp_path / "out", "toy", frequencies=None, wordnet=None)
