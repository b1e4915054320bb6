"""Loading the built dictionary, and the rack search checked against a brute-force scan."""
from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from dictionaries import DATA_FILES, FORMAT_VERSION, METADATA
from dictionaries.deck import DOUBLE, STANDARD, Deck
from dictionaries.dictionary import MAX_RACK_LETTERS, Dictionary
from dictionaries.errors import DictionaryError, InvalidLevel, InvalidRack
from dictionaries.rules import HAND_SIZE
from dictionaries.verdict import judge


def brute_force(dictionary: Dictionary, rack: str, level: int, deck: Deck) -> list[tuple[int, int, str]]:
    """Every legal word from the rack, by scanning all keys: an oracle independent of the rack index."""
    have = Counter(rack.lower())
    found = []
    for key in dictionary._words.iterkeys():
        if 3 <= len(key) <= 7 and not Counter(key) - have:
            verdict = judge(dictionary, key, level, deck)
            if verdict.legal:
                found.append((-verdict.score, -len(key), key.upper()))
    return sorted(found)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_rack_search_matches_brute_force(dictionary: Dictionary, seed: int) -> None:
    rng = random.Random(seed)
    cards = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for _ in range(STANDARD.count(c))]
    rack = "".join(rng.sample(cards, MAX_RACK_LETTERS))
    got = [(-w.score, -len(w.word), w.word) for w in dictionary.rack(rack, 60)]
    assert got == brute_force(dictionary, rack, 60, STANDARD)
    assert got, rack


def test_rack_of_the_rulebook(dictionary: Dictionary) -> None:
    words = [w.word for w in dictionary.rack("taps")]
    assert {"TAPS", "SPAT", "PATS", "PAST"} <= set(words)
    assert "APTS" not in words
    assert words[:4] == ["PAST", "PATS", "SPAT", "TAPS"]  # equal score and length: alphabetical
    first = dictionary.rack("taps")[0]
    assert first.score == 10 and first.success_chance == 0.55


def test_rack_respects_level_and_deck(dictionary: Dictionary) -> None:
    assert "FLAM" not in {w.word for w in dictionary.rack("flam", 60)}
    assert "FLAM" in {w.word for w in dictionary.rack("flam", 70)}
    assert "JAZZ" not in {w.word for w in dictionary.rack("jazz")}
    assert "JAZZ" in {w.word for w in dictionary.rack("jazz", deck=DOUBLE)}


def test_rack_limit_and_order(dictionary: Dictionary) -> None:
    full = dictionary.rack("oofmakl")
    assert dictionary.rack("oofmakl", limit=3) == full[:3]
    assert all((a.score, len(a.word)) >= (b.score, len(b.word)) for a, b in zip(full, full[1:]))


def test_a_full_hand_rack(dictionary: Dictionary) -> None:
    found = dictionary.rack("aeilnrs", 95)
    assert len(found) > 200 and all(3 <= len(w.word) <= 7 for w in found)
    assert len({w.word for w in found}) == len(found)


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 8, 13, 40, 1000])
def test_the_limit_picks_the_best_of_all(dictionary: Dictionary, limit: int) -> None:
    """Only the best ``limit`` words are spelled out, ties at the cut ordered as in the whole answer."""
    for rack in ("aeilnrs", "oofmakl", "tapsxeo", "eeeeeee", "qzjxkvw"):
        whole, total = dictionary.rack_search(rack, 95)
        assert total == len(whole)
        assert dictionary.rack_search(rack, 95, limit=limit) == (whole[:limit], total), rack


def test_a_rack_holds_at_most_a_hand() -> None:
    assert MAX_RACK_LETTERS == HAND_SIZE == 7


@pytest.mark.parametrize(("rack", "message"), [("", "empty"), ("ab1", "'1'"),
                                               ("a" * 8, "8 letters; a rack is a hand, at most 7 letters")])
def test_bad_racks(dictionary: Dictionary, rack: str, message: str) -> None:
    with pytest.raises(InvalidRack, match=message):
        dictionary.rack(rack)


def test_bad_level_in_rack(dictionary: Dictionary) -> None:
    with pytest.raises(InvalidLevel):
        dictionary.rack("taps", 61)


def test_seven_letters_accepted(dictionary: Dictionary) -> None:
    assert isinstance(dictionary.rack("a" * 7), list)


# -- files ----------------------------------------------------------------------------------------

@pytest.fixture
def copy_of(toy_dictionary_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "dict"
    shutil.copytree(toy_dictionary_dir, target)
    return target


def test_missing_file_is_named(copy_of: Path) -> None:
    (copy_of / DATA_FILES[0]).unlink()
    with pytest.raises(DictionaryError, match=DATA_FILES[0]):
        Dictionary(copy_of)


def test_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(DictionaryError, match="metadata.json is missing"):
        Dictionary(tmp_path / "nowhere")


def test_truncated_file_is_named(copy_of: Path) -> None:
    trie = copy_of / "words.marisa"
    trie.write_bytes(trie.read_bytes()[:-10])
    with pytest.raises(DictionaryError, match="words.marisa.*truncated"):
        Dictionary(copy_of)


def test_other_format_version_is_refused(copy_of: Path) -> None:
    meta = json.loads((copy_of / METADATA).read_text())
    meta["format_version"] = FORMAT_VERSION + 1
    (copy_of / METADATA).write_text(json.dumps(meta))
    with pytest.raises(DictionaryError, match="format version"):
        Dictionary(copy_of)


def test_garbage_metadata_is_refused(copy_of: Path) -> None:
    (copy_of / METADATA).write_text("not json")
    with pytest.raises(DictionaryError, match="not JSON"):
        Dictionary(copy_of)


def test_env_variable_points_elsewhere(toy_dictionary_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UW_DICTIONARY", str(toy_dictionary_dir))
    assert Dictionary().metadata["version"] == "toy"


def test_shipped_metadata(dictionary: Dictionary) -> None:
    meta = dictionary.metadata
    assert meta["format_version"] == FORMAT_VERSION
    assert meta["version"] == "2020.12.07-2"
    assert "SCOWL" in meta["source"]
    assert meta["counts_by_sense_and_level"]["word"]["60"] > 1000
    assert len(meta["checksum"]) == 64
    assert (Path(dictionary.path) / "SCOWL-COPYRIGHT").is_file()


@pytest.mark.parametrize("xdg", [None, "", "  ", "/tmp/xdg cache"])
def test_stamps_live_where_platformdirs_puts_the_cache(xdg: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    from dictionaries.dictionary import stamp_directory

    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert stamp_directory() == platformdirs.user_cache_dir("uw-referee", appauthor=False)


def test_a_command_verifies_the_files_once_until_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from dictionaries import DATA_DIR
    from dictionaries.dictionary import open_for_command

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    copy = tmp_path / "dictionary"
    shutil.copytree(DATA_DIR, copy)
    calls: list[int] = []
    original = Dictionary.verify
    def counted(self: Dictionary) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(Dictionary, "verify", counted)
    open_for_command(copy)
    open_for_command(copy)
    assert calls == [1]  # the second command trusted the stamp
    levels = copy / "words.levels"
    data = bytearray(levels.read_bytes())
    data[100:110] = b"\xff" * 10  # same size, other bytes: only the checksum can tell
    levels.write_bytes(bytes(data))
    with pytest.raises(DictionaryError, match="words.levels"):
        open_for_command(copy)
