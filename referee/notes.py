"""What a game's events did, in the referee's words: the renderer of ``Game.apply``'s notes.

``Game.apply`` returns ``Happened`` values, one for each thing an event did: its ``kind`` (a key of ``NOTES``)
and its ``facts`` (the player, the word, the roll, the points...). The rules (``referee.rules``) name only the
kind and the facts; each sentence lives here, once, as the catalogs' message id. A ``Happened`` is also that
sentence (a ``Message``), so every reader that says notes (the CLI, ``log``, the board, the store's window of
last actions) says it, in any language, without a change: the stored JSON is the same template and facts.
"""
from __future__ import annotations

from dictionaries.i18n import Message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def note(template: str) -> tuple[str, None]:
    """A sentence of ``NOTES`` (the catalogs extract its text: tools/catalogs.py's keywords)."""
    return template, None


def nnote(singular: str, plural: str) -> tuple[str, str]:
    """A sentence with a singular and a plural form, chosen by the fact ``n``."""
    return singular, plural


#: Every kind of thing an event does, and its sentence. The facts fill its fields; ``n`` chooses the plural.
NOTES: dict[str, tuple[str, str | None]] = {
    "first_chosen": note("{player} goes first, as the table rolled."),
    "roll_off_round": note("Roll-off: {rolls}."),
    "re_roll": note("Re-roll {number}: {rolls}."),
    "first_by_roll": note("{player} rolled highest and goes first."),
    "plays_overruling_both": nnote(
        "{player} plays {word} for {n} point (the table overrules the dictionary: {word} is {reasons}; and "
        "the card count: {cards}).",
        "{player} plays {word} for {n} points (the table overrules the dictionary: {word} is {reasons}; and "
        "the card count: {cards})."),
    "plays_overruling_dictionary": nnote(
        "{player} plays {word} for {n} point (the table overrules the dictionary: {word} is {reasons}).",
        "{player} plays {word} for {n} points (the table overrules the dictionary: {word} is {reasons})."),
    "plays_overruling_cards": nnote(
        "{player} plays {word} for {n} point (the table overrules the card count: {cards}).",
        "{player} plays {word} for {n} points (the table overrules the card count: {cards})."),
    "plays_by_oath": nnote(
        "{player} plays {word} for {n} point (the Unspellable Oath).",
        "{player} plays {word} for {n} points (the Unspellable Oath)."),
    "plays": nnote(
        "{player} plays {word} for {n} point.",
        "{player} plays {word} for {n} points."),
    "sanity_passed": note("{player} rolls {roll} and passes the sanity check for {word}."),
    "sanity_failed": note("{player} rolls {roll} and fails the sanity check for {word}."),
    "overshoot_scores_nothing": note("{word} would have reached {score} (the target is {target}): it scores 0."),
    "scores": nnote(
        "{player} scores {scored}: {n} point.",
        "{player} scores {scored}: {n} points."),
    "loses_pawn": nnote(
        "{player} loses a pawn: {n} left.",
        "{player} loses a pawn: {n} left."),
    "loses_last_pawn": note("{player} loses the last pawn and is out of the game."),
    "wins_by_target": note("{player} reaches {score} and wins!"),
    "last_words_begin": note(
        "{player} reaches {score}! Last Words: every other player still in gets one more turn ({players})."),
    "last_words_begin_none": note(
        "{player} reaches {score}! Last Words: every other player still in gets one more turn (none)."),
    "draws_then_reshuffle": nnote(
        "{player} draws {n} card; then the draw pile is empty: shuffle the {shuffled} discards into a new "
        "draw pile, then {player} draws {second} more.",
        "{player} draws {n} cards; then the draw pile is empty: shuffle the {shuffled} discards into a new "
        "draw pile, then {player} draws {second} more."),
    "reshuffle_then_draws": note(
        "The draw pile is empty: shuffle the {shuffled} discards into a new draw pile, then {player} draws "
        "{second} more."),
    "draws": nnote(
        "{player} draws {n} card.",
        "{player} draws {n} cards."),
    "piles_empty": nnote(
        "Both piles are empty: {player} holds {n} card.",
        "Both piles are empty: {player} holds {n} cards."),
    "out_hand_discarded": nnote(
        "{player}'s remaining {n} card goes to the discard pile; {player} draws nothing.",
        "{player}'s remaining {n} cards go to the discard pile; {player} draws nothing."),
    "wins_last_standing": note("{player} is the last player with pawns and wins!"),
    "wins_after_last_words_tied": nnote(
        "Last Words are over: {player} wins with {n} point (tied at {n}; {player} reached it first)!",
        "Last Words are over: {player} wins with {n} points (tied at {n}; {player} reached it first)!"),
    "wins_after_last_words": nnote(
        "Last Words are over: {player} wins with {n} point!",
        "Last Words are over: {player} wins with {n} points!"),
    "discards_overruling_cards": note(
        "{player} discards the hand ({letters}; the table overrules the card count: {cards})."),
    "discards_letters": note("{player} discards the hand ({letters})."),
    "discards": note("{player} discards the hand."),
    "no_psychotherapy_all_pawns": nnote(
        "{player} has all {n} pawn: no Psychotherapy roll.",
        "{player} has all {n} pawns: no Psychotherapy roll."),
    "names_overruling_dictionary": nnote(
        "{namer} names {word} ({n} point) from {player}'s discard (the table overrules the dictionary: {word} "
        "is {reasons}).",
        "{namer} names {word} ({n} points) from {player}'s discard (the table overrules the dictionary: "
        "{word} is {reasons})."),
    "names": nnote(
        "{namer} names {word} ({n} point) from {player}'s discard.",
        "{namer} names {word} ({n} points) from {player}'s discard."),
    "nothing_to_bind": note("No legal unused word can be made from {letters}: Spell Binding has nothing to bind."),
    "no_word_named": note("Spell Binding: no word was named."),
    "must_play_bound": nnote(
        "Spell Binding: {player} must play {word} for {n} point (named by {namer}).",
        "Spell Binding: {player} must play {word} for {n} points (named by {namer})."),
    "psychotherapy_passed": note("{player} does not roll for Psychotherapy."),
    "psychotherapy_regains": note("{player} rolls {roll}, higher than {value}: regains a pawn ({pawns})."),
    "psychotherapy_fails": note("{player} rolls {roll}, not higher than {value}: nothing happens."),
    "leaves": nnote(
        "{player} leaves the game with {n} point.",
        "{player} leaves the game with {n} points."),
    "pending_scores_nothing": note("{word} was not rolled for: it scores nothing."),
    "leaver_hand_discarded": nnote(
        "{player}'s {n} card goes to the discard pile.",
        "{player}'s {n} cards go to the discard pile."),
}


class Happened(Message):
    """One thing an event did: ``kind`` and its ``facts``, and the referee's sentence for it (``NOTES``)."""

    kind: str

    def __new__(cls, kind: str, /, **facts: Any) -> Happened:
        template, plural = NOTES[kind]  # a KeyError names a kind without a sentence: a bug in the rules
        self = super().__new__(cls, template, facts, plural, facts["n"] if plural is not None else None)
        assert isinstance(self, Happened)  # Message.__new__ makes an instance of cls
        self.kind = kind
        return self

    @property
    def facts(self) -> dict[str, Any]:
        return self.params


__all__ = ["NOTES", "Happened"]
