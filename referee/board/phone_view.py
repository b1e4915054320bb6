"""A game as a player's phone sees it (``board --players``): its state, whose turn, what the seat may undo, the last
actions in words (each correction told, as on the TV) and, once it is over, the game the board shows next."""
from __future__ import annotations

from typing import Any

from flask import current_app

from dictionaries.i18n import say
from referee.board.runtime import runtime
from referee.board.seats import seat_book
from referee.board.source import BoardError, sentence

#: The last actions a phone shows (newest first).
PHONE_RECENT = 3


def game_view(game_id: int, game: Any, seat: str | None = None, can_undo: bool = False) -> dict[str, Any]:
    """A game as a phone needs it: the state, its version (what the next write sends as ``seen``), what it waits
    for and the last actions (newest first, in the request's language, as the board shows them), from what the
    store's read or write returned (no read of its own). ``can_undo``: whether the seat may undo the last action."""
    from referee.actions import waiting

    state = game.state
    w = waiting(state)
    shows = current_game() if state.is_over() else None  # a finished game's phone links the board's next game
    binding = state.phase.value == "spell_binding"  # whom the naming waits for: the phones still to name or pass
    return {"game": game_id, "version": game.version, "events": game.count, "undos": game.generation,
            "phase": state.phase.value, "over": state.is_over(), "winner": state.winner, "dice": state.setup.dice,
            "players": [{"name": p.name, "score": p.score, "hand": p.hand, "left": p.left} for p in state.players],
            "waiting": {"player": w.player, "text": sentence(say(w.text)), "word": w.word, "needs": w.needs,
                        "letters": w.letters},
            "seat": seat,
            "your_turn": bool(seat and w.player and w.player.casefold() == seat.casefold()),
            "can_undo": bool(seat and can_undo),
            "recent": recent_for(game_id, game), "next_game": shows if shows != game_id else None,
            "binding_waits_for": state.binding_waits_for(seat_book().taken(game_id)) if binding else [],
            "acted_in_binding": bool(binding and seat and state.window and seat in (
                *state.window.passed, *(by for by, _, _ in state.window.named)))}


def recent_for(game_id: int, game: Any) -> list[str]:
    """The last actions in words, newest first: the board's own copy when it is at this version (it tells the table
    each correction too, as the TV does), else the words the store keeps with the game's snapshot (read or written
    with the game); only a game kept without them is asked of the board's own copy."""
    from dictionaries.i18n import message_from_json
    from referee.board.wording import action_words

    kept = runtime(current_app).kept(game_id)
    shown = kept.shown() if kept is not None and kept.problem is None else None
    if shown is not None and shown.version is not None and shown.version == game.version:
        return list(reversed(shown.recent))[:PHONE_RECENT]
    if game.recent is not None:
        try:
            actions = [[message_from_json(note) for note in action] for action in game.recent]
            said = [[note for note in action if note is not None] for action in actions]
            if said == actions:  # every note readable (else: the board's copy)
                return [action_words(list(a)) for a in reversed(said)][:PHONE_RECENT]
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    rt = runtime(current_app)
    rt.watcher.poll()
    try:
        shown = rt.feed(game_id).shown()
        return list(reversed(shown.recent))[:PHONE_RECENT] if shown.game.count == game.count else []
    except BoardError:
        return []


def current_game() -> int | None:
    """The game the board shows on its front page (pinned, else the most recently active), if any; none on a hosted
    board (each table is its own)."""
    if current_app.config.get("BOARD_HOSTED"):
        return None
    game_id = current_app.config.get("BOARD_GAME")
    if game_id is not None:
        return int(game_id)
    try:
        rt = runtime(current_app)
        rt.watcher.poll()  # a game started at the terminal a moment ago is the board's current one
        return rt.feed(None).shown().id
    except BoardError:
        return None


__all__ = ["PHONE_RECENT", "current_game", "game_view", "recent_for"]
