"""The card table (RULES.md section 1) and scoring."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

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
def test_over_limit(word: str, over: dict[str, Any]) -> None:
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
def test_bad_custom_decks_name_the_problem(counts: dict[str, Any], message: str) -> None:
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
    assert sum(cast(int, row["count"]) for row in table) == 96


# -- deck file limits (issue 13) ------------------------------------------------------------------

def _deck_file(tmp_path: Path, content: str | bytes) -> str:
    path = tmp_path / "club.json"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


@pytest.mark.parametrize(("content", "message"), [
    ("[" * 100_000 + "]" * 100_000, "over 64 KiB"),
    ("[" * 30_000 + "]" * 30_000, "nests objects or arrays more than 2 deep"),
    ('{"counts": {"A": {"B": 1}}}', "nests objects or arrays more than 2 deep"),
    ('{"A": 100000000000000000000000}', "count for A must be a whole number from 0 to 1000"),
    ('{"A": 1e23}', "count for A must be a whole number from 0 to 1000"),
    ('{"A": ' + "9" * 5000 + "}", "not valid JSON"),
    ('{"A": 1001}', "count for A must be a whole number from 0 to 1000"),
    ('{"A": 3, "a": 4}', "name A twice"),
    ('{"counts": {"E": 3}, "points": {"e": 1, "E": 2}}', "the points name E twice"),
    ('{"counts": {"A": 3}, "extra": 1}', "unknown key 'extra'"),
    (b"\xff\xfe{}", "not valid JSON"),
])
def test_deck_file_limits_each_with_a_clear_message(tmp_path: Path, content: str | bytes, message: str) -> None:
    with pytest.raises(DeckError, match=message) as raised:
        load_deck(_deck_file(tmp_path, content))
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 300


def test_a_file_over_the_limit_is_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 100 MB file is refused after reading 64 KiB + 1 bytes."""
    from dictionaries import deck as deck_module

    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    asked: list[int] = []
    real_open = open

    def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        if str(file) == str(path):
            read = handle.read

            def counted_read(size: int = -1) -> Any:
                asked.append(size)
                return read(size)

            handle.read = counted_read  # type: ignore[method-assign]  # the test counts the bytes asked for
        return handle

    monkeypatch.setattr("builtins.open", counting_open)
    with pytest.raises(DeckError, match="over 64 KiB"):
        load_deck(str(path))
    assert asked == [deck_module.MAX_DECK_FILE_BYTES + 1]


def test_limits_at_their_boundary_are_accepted(tmp_path: Path) -> None:
    deck = load_deck(_deck_file(tmp_path, '{"counts": {"A": 1000, "b": 0, "Z": 1}, "points": {"z": 255}}'))
    assert deck.count("A") == 1000 and deck.letter_points("Z") == 255
