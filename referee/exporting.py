"""A game as one JSON document (``uw-referee export``, and the hosted board's download of a finished game): its
set-up, every event with its time, the corrections (undo, redo, amend) and the state now, as stored (no replay)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dictionaries.i18n import msg

if TYPE_CHECKING:
    from referee.store import Store


class GameInPlay(ValueError):
    """The game is not over: its export (``finished=True``) is refused, since its set-up's seed foretells every
    virtual roll still to come."""


def export_document(store: Store, game_id: int | None, *, finished: bool = False) -> dict[str, Any]:
    """The game's document (``game_id`` None: the most recently active game): each event is its ``to_dict()`` as
    stored, numbered, with its time. ``finished``: only of a game that is over (else ``GameInPlay``), read in the
    same read as the document."""
    gid, game, history = store.records(game_id)
    if finished and not game.state.is_over():
        raise GameInPlay(msg("game {game} is still being played: it can be downloaded once it is over", game=gid))
    _gid, corrections = store.corrections(gid)
    return {"game": gid, "setup": game.setup.to_dict(),
            "events": [{"seq": i, "at": at, **e} for i, (at, e) in enumerate(history)],
            "corrections": [{"at": at, **record} for at, record in corrections],
            "state": {"game": gid, **game.state.to_dict()}}


def export_text(store: Store, game_id: int | None, *, finished: bool = False) -> str:
    """The document as ``uw-referee export`` prints it, to the byte (its last newline included)."""
    from referee.terminal import json_text_long

    return json_text_long(export_document(store, game_id, finished=finished), "events") + "\n"


__all__ = ["GameInPlay", "export_document", "export_text"]
