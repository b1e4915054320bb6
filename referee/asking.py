"""What a seat asks the table's host for and the host confirms (``board --players``): an undo, a redo, a corrected
roll, leaving, or an overrule (RULES.txt 6: the table allows a word the dictionary or the card count refuses),
as the move the referee makes when it is confirmed and as the command that makes it at the terminal.

An overrule keeps its word with its kind (``allow:CTHULHU``) in the request's ``action``, so the seats' schema needs
no new column; nothing else reads that field."""
from __future__ import annotations

import shlex

from referee.moves import Amend, Leave, Move, Play, Redo, Undo

#: What a seat may ask for.
ASKABLE = ("allow", "amend", "leave", "redo", "undo")


def asked_action(kind: str, word: str | None = None) -> str:
    """The request's ``action`` as kept: its kind, and for an overrule its word (upper case)."""
    return f"allow:{(word or '').strip().upper()}" if kind == "allow" else kind


def asked_kind(action: str) -> tuple[str, str | None]:
    """The kind of a request kept as ``action``, and its word (an overrule's; else None)."""
    kind, _colon, word = action.partition(":")
    return kind, (word or None) if kind == "allow" else None


def asked_move(action: str, seat: str, roll: int | None) -> Move:
    """The move a confirmed request makes: an overrule is the seat's play with the table's overrule (as
    ``play --allow`` records it), with its roll when the dice are physical."""
    kind, word = asked_kind(action)
    if kind == "allow":
        return Play(word or "", roll, allow=True)
    if kind == "amend" and roll is not None:
        return Amend(roll)
    if kind == "leave":
        return Leave(seat)
    return Redo() if kind == "redo" else Undo()


def asked_command(action: str, seat: str, roll: int | None) -> str:
    """The arguments of the ``uw-referee`` command that makes the request at the terminal (quoted for the shell)."""
    kind, word = asked_kind(action)
    if kind == "allow":
        rolled = f" --roll {roll}" if roll is not None else ""
        return f"play {(word or '').lower()}{rolled} --allow --as {shlex.quote(seat)}"
    if kind == "amend":
        return f"amend --roll {roll}"
    if kind == "leave":
        return f"leave {'-- ' if seat.startswith('-') else ''}{shlex.quote(seat)}"  # '-x' is a name, not an option
    return kind


__all__ = ["ASKABLE", "asked_action", "asked_command", "asked_kind", "asked_move"]
