"""A game as one JSON document (``uw-referee export``, and the hosted board's download of a finished game): its
set-up, every event with its time, the corrections (undo, redo, amend) and the state now, as stored (no replay)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.store import Store


def export_document(store: Store, game_id: int | None) -> dict[str, Any]:
    """The game's document (``game_id`` None: the most recently active game): each event is its ``to_dict()`` as
    stored, numbered, with its time."""
    gid, game, history = store.records(game_id)
    _gid, corrections = store.corrections(gid)
    return {"game": gid, "setup": game.setup.to_dict(),
            "events": [{"seq": i, "at": at, **e} for i, (at, e) in enumerate(history)],
            "corrections": [{"at": at, **record} for at, record in corrections],
            "state": {"game": gid, **game.state.to_dict()}}


def export_text(store: Store, game_id: int | None) -> str:
    """The document as ``uw-referee export`` prints it, to the byte (its last newline included)."""
    from referee.terminal import json_text_long

    return json_text_long(export_document(store, game_id), "events") + "\n"


__all__ = ["export_document", "export_text"]
