"""The card table (RULES.md section 1) and scoring."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dictionaries.deck import DOUBLE, STANDARD, DeckError, custom_deck, load_deck

# letter: (count, points), typed from RULES.md section 1 independently of service/deck.py.
RULES_TABLE = """
A 10 5  B 2 5  C 2 0  D 3 2  E 10 4  F 2 3  G 2 2  H 3 4  I 9 4  J 1 2  K 1 3  L 5 1  M 3 3
N 5 2  O 8 0  P 2 3  Q 1 2  R 5 4  S 5 0  T 5 2  U 4 0  V 2 1  W 2 3  X 1 4  Y 2 3  Z 1 2
""".split()
EXPECTED = {RULES_TABLE[i]: (int(RULES_TABLE[i + 1]), int(RULES_TABLE[i + 2])) for i in range(0, len(RULES_TABLE), 3)}


@pytest.mark.parametrize("letter", sorted(EXPECTED))
def test_every_letter_count_and_points(letter: str) -> None:
    count, points = EXPECTED[letter]
    assert STANDARD.count(letter) == count
    assert STANDARD.letter_points(letter) == points


def test_standard_deck_has_96_cards_and_double_192() -> None:
    assert len(EXPECTED) == 26
    assert STANDARD.size == 96
    assert DOUBLE.size == 192
    assert all(DOUBLE.count(c) == 2 * STANDARD.count(c) for c in EXPECTED)
    assert DOUBLE.points == STANDARD.points


@pytest.mark.parametrize(
    ("word", "score"),
    [
        ("TAPS", 10), ("LOOK", 4), ("TEN", 8), ("COLUMNS", 6),
        # Erratum (RULES.md ruling): the rulebook prints CHAMP 14, TOP 4 and RUM 6, which contradict
        # its own card table; the card table wins, so these are 15, 5 and 7.
        ("CHAMP", 15), ("TOP", 5), ("RUM", 7),
        ("taps", 10), ("", 0), ("ZZZ", 6),
    ],
)
def test_rulebook_scores(word: str, score: int) -> None:
    assert STANDARD.score(word) == score


@pytest.mark.parametrize(
    ("word", "over"),
    [("JAZZ", {"Z": (2, 1)}), ("KAYAK", {"K": (2, 1)}), ("TAPS", {}), ("AAAAAAAAAAA", {"A": (11, 10)})],
)
def test_over_limit(word: str, over: dict) -> None:
    assert STANDARD.over_limit(word) == over
    assert STANDARD.can_spell(word) is (not over)


def test_double_deck_spells_jazz() -> None:
    assert DOUBLE.can_spell("JAZZ")


def test_custom_deck_from_counts_and_points(tmp_path: Path) -> None:
    deck = custom_deck("mine", {"a": 3, "z": 4}, {"z": 9})
    assert deck.size == 7 and deck.score("ZA") == 14 and deck.can_spell("ZZZZ") and not deck.can_spell("TAP")
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"counts": {"A": 20, "Z": 2}}))
    loaded = load_deck(str(path))
    assert loaded.name == "big" and loaded.count("Z") == 2 and loaded.letter_points("A") == 5


@pytest.mark.parametrize(
    ("counts", "message"),
    [({"1": 2}, "not a letter"), ({"A": -1}, "whole number"), ({"A": 0}, "no cards"), ({"A": 1.5}, "whole number")],
)
def test_bad_custom_decks_name_the_problem(counts: dict, message: str) -> None:
    with pytest.raises(DeckError, match=message):
        custom_deck("bad", counts)


def test_load_deck_refuses_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="neither"):
        load_deck(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DeckError, match="not valid JSON"):
        load_deck(str(bad))


def test_table_lists_all_letters() -> None:
    table = STANDARD.table()
    assert [row["letter"] for row in table] == sorted(EXPECTED)
    assert sum(row["count"] for row in table) == 96
