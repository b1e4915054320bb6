"""The engine's words (referee.notes): every kind the rules name has its sentence, every sentence is named by
the rules, no sentence is left in the engine's rooms, and a value is the very Message it stood for before."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dictionaries.i18n import Message, msg, nmsg
from referee.notes import NOTES, REFUSALS, Happened, Refusal

ROOMS = [Path(__file__).resolve().parent.parent / "referee" / f"{name}.py" for name in ("events", "state", "rules")]


def kinds_named(function: str) -> set[str]:
    """The kinds the engine's rooms pass to ``function`` (``said`` or ``refusal``)."""
    found = set()
    for path in ROOMS:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function:
                first = node.args[0]
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), ast.unparse(node)
                found.add(first.value)
    return found


@pytest.mark.parametrize(("function", "table"), [("said", NOTES), ("refusal", REFUSALS)])
def test_every_kind_has_its_sentence_and_every_sentence_is_used(function: str, table: dict[str, object]) -> None:
    named = kinds_named(function)
    assert named and named == set(table)


def test_no_sentence_is_left_in_the_engine() -> None:
    """No message is made in the engine's rooms: no msg(), nmsg() nor gettext call."""
    for path in ROOMS:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("msg", "nmsg", "_", "ngettext"), f"{path.name}: {ast.unparse(node)}"


def test_a_value_is_the_message_it_says() -> None:
    played = Happened("plays", n=3, player="Ann", word="CAT")
    before = nmsg("{player} plays {word} for {n} point.", "{player} plays {word} for {n} points.", 3, player="Ann",
                  word="CAT")
    assert isinstance(played, Message) and played == before and played.to_json() == before.to_json()
    assert played.kind == "plays" and played.facts == {"n": 3, "player": "Ann", "word": "CAT"}
    moved = Refusal("game_moved_on")
    assert moved == msg("the game moved on") and moved.kind == "game_moved_on" and moved.facts == {}
    with pytest.raises(KeyError):
        Happened("no such kind")
