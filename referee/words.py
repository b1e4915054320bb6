"""Small translatable words shared by the engine and the renderers: reasons, lists, actions, what a game waits for.

Only ``dictionaries.i18n`` (and the rule numbers) are imported: the engine and the quick path's renderers both load
it.
"""
from __future__ import annotations

from dictionaries.i18n import Message, msg, nmsg
from dictionaries.rules import DIE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

def cut(text: str, most: int = 40) -> str:
    """Typed text as a message shows it: at most ``most`` characters, an ellipsis when cut (a 10 KB name is not
    echoed whole)."""
    return text if len(text) <= most else text[:most] + "…"


def reason_words(code: str, level: int | str = 60) -> Message:
    """One reason code in a few words for the table, to follow "it is" ({level}: the game's size)."""
    if code == "too_short":
        return msg("too short")
    if code == "too_long":
        return msg("too long")
    if code == "proper_noun":
        return msg("a proper noun")
    if code == "abbreviation":
        return msg("an abbreviation")
    if code == "acronym":
        return msg("an acronym")
    if code == "contraction":
        return msg("a contraction")
    if code == "phrase_piece":
        return msg("only part of a phrase")
    if code == "uncommon":
        return msg("not common enough at size {level}", level=level)
    if code == "unknown":
        return msg("not a word at size {level}", level=level)
    if code == "deck_limit":
        return msg("not playable with this deck")
    if code == "used":
        return msg("already used")
    if code == "discard_pile":
        return msg("its cards lie face up in the discard pile")
    return msg("not legal")


def reasons_words(codes: Iterable[str], level: int | str = 60) -> Message:
    """Reason codes as words for people: ``a proper noun and not a word at size 60``."""
    words = [reason_words(code, level) for code in codes]
    return and_list(words) if words else msg("not legal")


def and_list(items: list[Message]) -> Message:
    """``A``, ``A and B``, ``A, B and C``: items joined as the language joins a list."""
    if len(items) == 1:
        return items[0]
    head = items[0]
    for item in items[1:-1]:
        head = msg("{head}, {item}", head=head, item=item)
    return msg("{head} and {last}", head=head, last=items[-1])


def join_list(items: list[Message]) -> Message:
    """Items of a list separated by commas: ``1 more A, 2 more B``."""
    joined = items[0]
    for item in items[1:]:
        joined = msg("{head}, {item}", head=joined, item=item)
    return joined


def join_clauses(items: list[Message]) -> Message:
    """Clauses separated by semicolons (each a whole clause on its own)."""
    joined = items[0]
    for item in items[1:]:
        joined = msg("{head}; {clause}", head=joined, clause=item)
    return joined


def over_words(over: dict[str, tuple[int, int]]) -> Message:
    """Letters needed beyond the deck: ``2 Z (the deck holds 1)``."""
    return join_list([msg("{n} {letter} (the deck holds {held})", n=n, letter=c, held=h) for c, (n, h) in over.items()])


def cannot_words(doing: str, player: str, word: str = "") -> Message:
    """What a player whose turn it is not cannot do: ``Ben cannot play CHAMP``."""
    if doing == "play":
        return msg("{player} cannot play {word}", player=player, word=word)
    if doing == "sanity":
        return msg("{player} cannot roll the sanity check", player=player)
    if doing == "discard":
        return msg("{player} cannot discard", player=player)
    return msg("{player} cannot roll for Psychotherapy", player=player)


def action_groups(events: Iterable[Any]) -> list[list[Any]]:
    """Events grouped into actions as the table sees them (a play with its roll is one)."""
    groups: list[list[Any]] = []
    for event in events:
        if event.starts_action or not groups:
            groups.append([event])
        else:
            groups[-1].append(event)
    return groups


def action_words(events: list[Any]) -> Message:
    """One action in words: "Ben's CHAMP: 15 points, roll 16"."""
    first = events[0]
    rolls = [e for e in events[1:] if e.kind == "sanity_rolled"]
    therapy = [e for e in events[1:] if e.kind == "psychotherapy_rolled"]
    parts: list[Message]
    if first.kind == "word_played":
        parts = [nmsg("{player}'s {word}: {n} point", "{player}'s {word}: {n} points", first.score,
                      player=first.player, word=first.word),
                 msg("roll {roll}", roll=rolls[0].roll) if rolls else msg("not yet rolled")]
    elif first.kind == "discarded":
        parts = [msg("{player}'s discard of {letters}", player=first.player, letters=first.letters.upper())
                 if first.letters else msg("{player}'s discard", player=first.player)]
    elif first.kind == "bind_named":
        parts = [msg("{namer} naming {word} for Spell Binding", namer=first.by, word=first.word)]
    elif first.kind == "bind_passed":
        parts = [msg("{player}'s pass in Spell Binding", player=first.by)]
    elif first.kind == "bind_done":
        parts = [msg("the close of Spell Binding (the forced word's roll {roll})", roll=rolls[0].roll) if rolls
                 else msg("the close of Spell Binding")]
    elif first.kind == "player_left":
        parts = [msg("{player} leaving the game", player=first.player)]
    elif first.kind == "sanity_rolled":
        parts = [msg("{player}'s sanity roll {roll}", player=first.player, roll=first.roll)]
    elif first.kind == "psychotherapy_rolled":
        therapy = [first]
        parts = [msg("{player}'s Psychotherapy", player=first.player)]
    else:
        parts = [msg("the set-up")]
    if therapy:
        parts.append(msg("Psychotherapy roll {roll}", roll=therapy[0].roll) if therapy[0].roll is not None
                     else msg("no Psychotherapy roll"))
    return join_list(parts)


def done_words(events: list[Any]) -> Message:
    """One action as something that happened: "Cy played ORAL" (for what another device did meanwhile)."""
    first = events[0]
    kind = first.kind
    if kind == "word_played":
        return msg("{player} played {word}", player=first.player, word=first.word)
    if kind == "discarded":
        return msg("{player} discarded", player=first.player)
    if kind == "bind_named":
        return msg("{namer} named {word} for Spell Binding", namer=first.by, word=first.word)
    if kind == "bind_passed":
        return msg("{player} passed in Spell Binding", player=first.by)
    if kind == "bind_done":
        return msg("Spell Binding was closed")
    if kind == "player_left":
        return msg("{player} left the game", player=first.player)
    if kind == "sanity_rolled":
        return msg("{player} rolled {roll}", player=first.player, roll=first.roll)
    if kind == "psychotherapy_rolled":
        return (msg("{player} rolled {roll} for Psychotherapy", player=first.player, roll=first.roll)
                if first.roll is not None else msg("{player} passed on Psychotherapy", player=first.player))
    return msg("the game was set up")


def meanwhile_words(events: list[Any], corrections: list[Any]) -> Message:
    """What another device did to a game since the table saw it: the corrections (undo, redo, amend; the engine's
    ``Correction``s) recorded since, each with who made it (a seat's player, the host or terminal, or 'someone' for
    a correction recorded before the store kept that), then the actions taken since."""
    items: list[Message] = []
    for correction in corrections:
        kind, taken, by = correction.kind, correction.events, correction.by
        if kind == "undo" and taken:
            items.append(msg("{player} undid {actions}", player=by, actions=actions_words(taken)) if by else
                         msg("the host undid {actions}", actions=actions_words(taken)) if by == "" else
                         msg("someone undid {actions}", actions=actions_words(taken)))
        elif kind == "redo" and taken:
            items.append(msg("{player} redid {actions}", player=by, actions=actions_words(taken)) if by else
                         msg("the host redid {actions}", actions=actions_words(taken)) if by == "" else
                         msg("someone redid {actions}", actions=actions_words(taken)))
        elif kind == "amend":
            facts = {"seq": correction.seq, "old": correction.old, "new": correction.new}
            items.append(msg("{player} amended the roll of event {seq} from {old} to {new}", player=by, **facts) if by
                         else msg("the host amended the roll of event {seq} from {old} to {new}", **facts)
                         if by == "" else msg("someone amended the roll of event {seq} from {old} to {new}", **facts))
    items += [done_words(group) for group in action_groups(events)]
    return and_list(items) if items else msg("the game moved on")


def actions_words(events: Iterable[Any]) -> Message:
    """Several actions in words, separated by semicolons."""
    return join_clauses([action_words(group) for group in action_groups(events)])


def correction_message(fix: Any) -> Message:
    """A recorded correction (``referee.events.Correction``: undo, redo, amend) in words, for ``log`` and for the
    board's last actions, where every correction is told to the table."""
    events = list(fix.events)  # those it undid or redid
    count = len(action_groups(events))
    if fix.kind in ("undo", "redo") and count > 1:
        if fix.kind == "undo":
            return nmsg("Undid {n} action: {actions}.", "Undid {n} actions: {actions}.", count,
                        actions=actions_words(events))
        return nmsg("Redid {n} action: {actions}.", "Redid {n} actions: {actions}.", count,
                    actions=actions_words(events))
    if fix.kind == "undo":
        return msg("Undid {actions}.", actions=actions_words(events))
    if fix.kind == "redo":
        return msg("Redid {actions}.", actions=actions_words(events))
    if fix.action == 0:
        return msg("Amended {player}'s roll in round {round} of the roll-off from {old} to {new}.",
                   round=fix.round, player=fix.player, old=fix.old, new=fix.new)
    if fix.action is not None:
        return msg("Amended the roll of action {action} ({player}) from {old} to {new}; every later action was checked "
                   "again.", action=fix.action, player=fix.player, old=fix.old, new=fix.new)
    # recorded before actions were numbered
    return msg("Amended the roll of event {seq} ({player}) from {old} to {new}; every later action was checked "
               "again.", seq=fix.seq, player=fix.player, old=fix.old, new=fix.new)


def waiting_words(waiting: Any) -> Message:
    """What a game waits for (``referee.state.Waiting``) in the referee's words."""
    phase, player = waiting.phase, waiting.player
    if phase == "over":
        return nmsg("The game is over: {player} won with {n} point.", "The game is over: {player} won with {n} points.",
                    waiting.points, player=waiting.winner)
    if phase == "roll_off":
        return msg("Waiting for the roll-off.")
    if phase == "sanity":
        score, word = waiting.score, waiting.word
        if score <= 1:
            return msg("Waiting for {player}'s sanity roll for {word} (any roll passes).", player=player, word=word)
        if score >= DIE:
            return msg("Waiting for {player}'s sanity roll for {word} (needs a 20).", player=player, word=word)
        if score in (8, 11, 18):  # "an 8": English's article; other languages translate both alike
            return msg("Waiting for {player}'s sanity roll for {word} (needs an {score} or more, or a 20).",
                       player=player, word=word, score=score)
        return msg("Waiting for {player}'s sanity roll for {word} (needs a {score} or more, or a 20).",
                   player=player, word=word, score=score)
    if phase == "spell_binding":
        return msg("Spell Binding: the others may name words from {player}'s discard {letters}.", player=player,
                   letters=waiting.letters)
    if phase == "psychotherapy":
        return msg("Psychotherapy: {player} may roll against the hand's value {value} (higher than {value} "
                   "regains a pawn), or pass.", player=player, value=waiting.value)
    if waiting.final and waiting.oath:
        return msg("{player}'s turn (final turn: Last Words): play a word or discard the hand. The Unspellable "
                   "Oath: any letters may be played.", player=player)
    if waiting.final:
        return msg("{player}'s turn (final turn: Last Words): play a word or discard the hand.", player=player)
    if waiting.oath:
        return msg("{player}'s turn: play a word or discard the hand. The Unspellable Oath: any letters may be "
                   "played.", player=player)
    return msg("{player}'s turn: play a word or discard the hand.", player=player)


__all__ = ["cut", "reason_words", "reasons_words", "and_list", "join_list", "join_clauses", "over_words", "cannot_words",
           "action_groups", "action_words", "actions_words", "done_words", "meanwhile_words", "waiting_words"]
