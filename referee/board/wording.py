"""The board's words for a game: what it waits for and how it ended, said for a room, one action's notes, and a
store's message as a sentence. Reading games is ``referee.board.source``'s; what a game waits for is the engine's
one answer (``referee.state.waiting``), said here in the board's words."""
from __future__ import annotations

from dictionaries.i18n import _, ngettext, say
from dictionaries.rules import DIE
from referee.state import Phase, State, waiting


def action_words(notes: list[str]) -> str:
    """One action's notes (whole sentences each) in the language in use, one after the other."""
    return " ".join(say(note) for note in notes)


def waiting_text(state: State) -> str:
    """What the game waits for, in words for a room ("Sue rolls for COLUMNS: 6 or more passes")."""
    now = waiting(state)
    if now.phase is Phase.SANITY and now.word and now.needs:
        if now.needs <= 1:
            text = _("{player} rolls for {word}: any roll passes.")
        elif now.needs >= DIE:
            text = _("{player} rolls for {word}: only a 20 passes.")
        else:
            # TRANSLATORS: {needs} is the lowest roll of the 20-sided die that passes the sanity check.
            text = _("{player} rolls for {word}: {needs} or more passes.")
        return text.format(player=now.player, word=now.word, needs=now.needs)
    return say(now.text)


def sentence(text: str) -> str:
    """A store message (written to follow "Error: ") as a sentence on its own."""
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else text


def ending_text(state: State) -> str:
    """Who won and why, from the engine's Outcome, in the language in use."""
    outcome = getattr(state, "outcome", None)
    if outcome is None:
        return _("{winner} wins!").format(winner=state.winner)
    why = outcome.termination.value
    if why == "target":
        text = ngettext("{winner} wins with {n} point, reaching the target of {target}.",
                        "{winner} wins with {n} points, reaching the target of {target}.", outcome.score)
    elif why == "last_words":
        text = ngettext("{winner} wins with {n} point after Last Words.",
                        "{winner} wins with {n} points after Last Words.", outcome.score)
    elif why == "last_standing":
        text = ngettext("{winner} wins with {n} point, as the last player with pawns.",
                        "{winner} wins with {n} points, as the last player with pawns.", outcome.score)
    else:
        text = ngettext("{winner} wins with {n} point.", "{winner} wins with {n} points.", outcome.score)
    return text.format(winner=outcome.winner, n=outcome.score, target=state.setup.target)


__all__ = ["action_words", "ending_text", "sentence", "waiting_text"]
