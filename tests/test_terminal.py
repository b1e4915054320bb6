"""referee/terminal.py: the JSON the commands print."""
from __future__ import annotations

import json
from typing import Any

import pytest

from referee.terminal import json_text, json_text_long

CASES: list[dict[str, Any]] = [
    {"events": []},
    {"events": [{}]},
    {"events": [{"a": {}}, {"b": []}, {"c": 1}]},
    {"events": [{"a": {}}, {"b": 1}]},
    {"events": [{"a": 1, "b": {"c": 2}}, {"a": 2}, {"x": "},\n      {"}, {"y": [1]}, {"z": None, "w": True}]},
    {"events": [{"q": "é\u2028\x1b\"\\", "n": -3, "big": 10**30}, {"f": 1.5}]},
    {"x": 1, "events": [{"a": 1}], "y": {"events": []}},
    {"events": "not a list"},
    {"events": [[1], 2, {"a": 1}, "s"]},
]


@pytest.mark.parametrize("data", CASES)
def test_the_long_list_text_is_json_text_to_the_byte(data: dict[str, Any]) -> None:
    assert json_text_long(data, "events") == json_text(data) == json.dumps(data, indent=2, ensure_ascii=False)


def test_a_long_game_exports_the_same_text() -> None:
    events = [{"seq": 0, "at": "t", "type": "created", "setup": {"players": ["Ann", "Bob"], "target": 50}},
              {"seq": 1, "at": "t", "type": "roll_off", "rounds": [], "first": "Ann"}]
    events += [{"seq": i, "at": f"2026-12-01T00:00:{i % 60:02d}", "type": "word_played", "player": "Ann",
                "word": "TAPS", "score": 5, "legal": i % 3 > 0, "reasons": [] if i % 3 else ["proper"], "allowed": False}
               for i in range(2, 3000)]
    data = {"game": 1, "setup": events[0]["setup"], "events": events, "corrections": [{"at": "t", "events": []}],
            "state": {"game": 1, "events": 3000, "waiting_for": "Ann's turn."}}
    assert json_text_long(data, "events") == json_text(data)
