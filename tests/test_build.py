"""The dictionary build, on a tiny SCOWL-shaped fixture tree (tests/data/scowl), never the real package."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dictionaries import DATA_FILES, METADATA
from dictionaries.build import BuildError, build, classify, main
from dictionaries.dictionary import Dictionary
from dictionaries.verdict import judge

DATA = Path(__file__).parent / "data"


def digest(directory: Path) -> dict[str, str]:
    return {name: hashlib.sha256((directory / name).read_bytes()).hexdigest() for name in (*DATA_FILES, METADATA)}


def test_build_twice_is_byte_identical(tmp_path: Path) -> None:
    build(DATA / "scowl", DATA / "overlay.txt", tmp_path / "a", "toy")
    build(DATA / "scowl", DATA / "overlay.txt", tmp_path / "b", "toy")
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
        ("colr", False, ["unknown"], None),  # variant_2 does not
        ("ignored", False, ["unknown"], None),  # size 7 is not a SCOWL size we read
        ("london", False, ["proper_noun"], 50),
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


def test_toy_rack_and_counts(toy_dictionary: Dictionary) -> None:
    assert [w.word for w in toy_dictionary.rack("ttaeenps")] == [
        "TENETS", "PATS", "SPAT", "TAPS", "TENT", "APT", "NET", "TEN"]  # 14, then 10 (longer first), then 8
    meta = toy_dictionary.metadata
    assert meta["version"] == "toy"
    assert meta["counts_by_sense_and_level"]["word"]["10"] == 8  # a cat cats taps spat pats apt look ("I" is capitalised)
    assert meta["overlay_entries"] == 2


@pytest.mark.parametrize(
    ("raw", "category", "expected"),
    [
        ("cat", "words", ("cat", "word")),
        ("cat's", "words", None),
        ("Dave", "proper-names", ("dave", "proper_noun")),
        ("London", "upper", ("london", "proper_noun")),
        ("NASA", "abbreviations", ("nasa", "acronym")),
        ("blvd", "abbreviations", ("blvd", "abbreviation")),
        ("don't", "contractions", ("dont", "contraction")),
        ("o'clock", "words", ("oclock", "contraction")),
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
        build(DATA / "scowl", overlay, tmp_path / "out", "toy")


@pytest.mark.parametrize("line", ["apts noun 10  # x", "apts abbreviation 11  # x"])
def test_overlay_refuses_unknown_sense_or_level(tmp_path: Path, line: str) -> None:
    overlay = tmp_path / "overlay.txt"
    overlay.write_text(line + "\n")
    with pytest.raises(BuildError):
        build(DATA / "scowl", overlay, tmp_path / "out", "toy")


def test_main_reports_a_missing_scowl_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scowl", str(tmp_path / "none"), "--out", str(tmp_path / "out")]) == 1
    assert "scowl" in capsys.readouterr().err


def test_shipped_overlay_has_a_reason_on_every_line() -> None:
    from dictionaries.build import DEFAULT_OVERLAY, read_overlay

    entries = read_overlay(DEFAULT_OVERLAY)
    assert entries and all(why for senses in entries.values() for _, _, why in senses)
