"""JSON text whose nesting is bounded before the parser sees it: Python's ``json`` recurses once per
nested array or object, so a document of ``[`` by the thousand would reach its recursion limit.

Any reader of untrusted JSON uses it with its own limit: the deck loader (a deck file nests two deep)
and the word service (its request bodies; the HTTP limits live in ``service.core``).
"""
from __future__ import annotations


def json_depth_within(data: bytes, limit: int) -> bool:
    """True when no array or object in the JSON text ``data`` nests deeper than ``limit``.

    Checked before parsing, so a deeply nested document never reaches the recursive parser.
    Brackets inside strings do not count. Text with few brackets (any real request or deck
    file) is passed by one C-speed count; only the rest is scanned byte by byte.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return True
    depth, in_string, escaped = 0, False, False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x5B or byte == 0x7B:  # [ {
            depth += 1
            if depth > limit:
                return False
        elif byte == 0x5D or byte == 0x7D:  # ] }
            depth -= 1
    return True
