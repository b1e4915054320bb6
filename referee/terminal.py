"""Terminal output without Click: colour only on a terminal and never with NO_COLOR, and the exit codes.

The Click commands and the quick path (``referee.quick``) both print through this module, so the
two always write the same bytes.
"""
from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # importing typing costs more than a status command: the names are for the checkers
if TYPE_CHECKING:
    from typing import Any, TextIO

#: Exit status: done, refused by the rules (or the store cannot be used), usage error.
EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


#: Set by ``--no-color`` for the rest of the run.
_COLOR_OFF = [False]


def disable_color() -> None:
    """``--no-color``: no colour for the rest of this run, whatever the terminal."""
    _COLOR_OFF[0] = True


def use_color(stream: TextIO, disabled: bool = False) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org) or --no-color given."""
    if disabled or _COLOR_OFF[0] or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Style:
    """Bold and red when colour is on, plain text otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.color else text

    def red(self, text: str) -> str:
        return f"\x1b[31m{text}\x1b[0m" if self.color else text

    def red_bold(self, text: str) -> str:
        return f"\x1b[31m\x1b[1m{text}\x1b[0m" if self.color else text


def shown(text: str) -> str:
    """Text that came from a user or a file (a name, a deck's name, a word, a path), safe to print: every
    control, escape, format or separator character but the space appears as a visible escape (``\\x1b``,
    ``\\u202e``), so stored text cannot clear the screen, retitle the terminal or reorder a line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def write(lines: list[str], stream: TextIO | None = None) -> None:
    """Print lines (standard output by default) and flush."""
    out = stream if stream is not None else sys.stdout
    if lines:
        out.write("\n".join(lines) + "\n")
    out.flush()


def json_text(data: Any) -> str:
    """The JSON every ``--json`` prints: indented, non-ASCII kept."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def json_text_long(data: dict[str, Any], key: str) -> str:
    """``json_text(data)`` to the byte, for a ``data[key]`` that is a long list of objects (a game's
    events): the standard library indents in Python only, a node at a time, which was most of an
    ``export`` of a long game. Each run of flat objects (values that are strings, numbers, booleans,
    None or empty lists and objects) is written by the C encoder in one call, its separators giving
    the indentation; any other object by ``json.dumps`` as before."""
    items = data[key]
    if type(items) is not list:
        return json_text(data)
    sentinel = f"\x00uw-{key}-{id(items)}\x00"
    head = json_text({**data, key: sentinel})
    quoted = json.dumps(sentinel)
    if head.count(quoted) != 1:  # the marker must be unmistakable
        return json_text(data)
    if not items:
        return head.replace(quoted, "[]")
    parts: list[str] = []
    run: list[dict[str, Any]] = []
    for item in items:
        if type(item) is dict and item and all(type(v) in _FLAT or (type(v) in _EMPTY and not v) for v in item.values()):
            run.append(item)
            continue
        if run:
            parts.append(_flat_run(run))
            run = []
        parts.append(json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    "))
    if run:
        parts.append(_flat_run(run))
    return head.replace(quoted, "[\n    " + ",\n    ".join(parts) + "\n  ]")


_FLAT = frozenset((str, int, bool, type(None)))
_EMPTY = frozenset((list, dict))
_FLAT_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",\n      ", ": ")).encode


def _flat_run(run: list[dict[str, Any]]) -> str:
    """Flat objects as items of a list at depth 1 of ``json_text``: one C call; no raw newline can be
    inside a JSON string, so "},<newline>" followed by "{" only ever joins two of the objects."""
    text = _FLAT_ENCODE(run)[1:-1]  # {"a": 1,\n      "b": 2},\n      {...}
    return "{\n      " + text[1:-1].replace("},\n      {", "\n    },\n    {\n      ") + "\n    }"
