"""The nesting bound on JSON text (moved from test_deck.py with the function it checks)."""
from __future__ import annotations

import pytest

from dictionaries.json_depth import json_depth_within


@pytest.mark.parametrize(("data", "limit", "within"), [
    (b'{"words": ["a", "b"]}', 2, True),
    (b'{"words": [["a"]]}', 2, False),
    (b'{"words": ["[[[[[[[[[[", "{{{{{{{{"]}', 2, True),            # brackets inside strings do not count
    (b'{"words": ["\\"[[[[[[[[[[", "]"]}', 2, True),              # nor after an escaped quote
    (b'{"words": ["\\\\", [[[[1]]]]]}', 4, False),                # an escaped backslash ends the escape
    (b"[" * 30000, 8, False),
    (b"[]" * 30000, 1, True),
])
def test_json_depth_is_bounded_before_parsing(data: bytes, limit: int, within: bool) -> None:
    assert json_depth_within(data, limit) is within
