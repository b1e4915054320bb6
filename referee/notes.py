"""The engine's words: what a game's events did (``Game.apply``'s notes) and why the rules refuse, each a value.

``Game.apply`` returns ``Happened`` values, one for each thing an event did: its ``kind`` (a key of ``NOTES``)
and its ``facts`` (the player, the word, the roll, the points...). The rules (``referee.rules``) name only the
kind and the facts; each sentence lives here, once, as the catalogs' message id; the refusals likewise
(``Refusal``, ``REFUSALS``: the rules raise errors whose message is one). A ``Happened`` is also that
sentence (a ``Message``), so every reader that says notes (the CLI, ``log``, the board, the store's window of
last actions) says it, in any language, without a change: the stored JSON is the same template and facts.
"""
from __future__ import annotations

from dictionaries.i18n import Message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self


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
    "passes_binding": note("{player} names no word from {discarder}'s discard."),
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


#: Every sentence and clause the rules' refusals are made of (the errors ``Game.apply`` and the checks raise).
REFUSALS: dict[str, tuple[str, str | None]] = {
    "first_event_not_creation": note("a game's first event must be its creation"),
    "game_already_created": note("the game is already created"),
    "game_over": nnote(
        "the game is over: {player} won with {n} point",
        "the game is over: {player} won with {n} points"),
    "cannot_now_waiting": note("{refusal} {waiting}"),
    "cannot_roll_off_now": note("cannot roll off now."),
    "give_either_roll_off": note("give either the roll-off rolls or the first player, not both"),
    "not_your_turn": note("it is {current}'s turn, not {player}'s: {refusal}"),
    "cannot_play_now": note("cannot play {word} now."),
    "word_not_letters": note("{word!r} is not a word of letters A-Z"),
    "allowed_cannot_hold": note("{word} is not allowed: it is {reasons}; and {player} cannot hold it: {cards}"),
    "word_not_allowed": note("{word} is not allowed: it is {reasons}"),
    "scores_deck": note("{word} scores {expected} with this deck, not {score}"),
    "cannot_hold": note("{player} cannot hold {word}: {cards}"),
    "only_discard_pile": note("the only {letter} is in the discard pile"),
    "all_discard_pile": note("all {held} {letter}s are in the discard pile"),
    "discard_pile_so_most": nnote(
        "{seen} of the {held} {letter}s are in the discard pile, so at most {n} can be in a hand",
        "{seen} of the {held} {letter}s are in the discard pile, so at most {n} can be in a hand"),
    "has_letter_word_here": nnote(
        "{word} has {n} letter; a word here needs {least} to {most}",
        "{word} has {n} letters; a word here needs {least} to {most}"),
    "deck_too_few": note("{word} needs {letters}"),
    "already_played_game": note("{word} was already played in this game"),
    "cannot_roll_sanity_check": note("cannot roll a sanity check now."),
    "cannot_discard_now": note("cannot discard now."),
    "discard_not_letters": note("{letters!r} must be letters A-Z"),
    "spell_binding_psychotherapy_discard": note(
        "with Spell Binding or Psychotherapy on, the discard needs the hand's letters (for example: OCLNUSM)"),
    "holds_card_but_letters": nnote(
        "{player} holds {n} card, but {letters} is {count} letters",
        "{player} holds {n} cards, but {letters} is {count} letters"),
    "cannot_be_hand": note("{letters} cannot be a hand: {detail}"),
    "cannot_be_players_hand": note("{letters} cannot be {player}'s hand: {cards}"),
    "cannot_name_spell_binding": note("cannot name {word} for Spell Binding now."),
    "discarded_only_other_players": note("{player} discarded; only the other players may name words"),
    "out_game_cannot_name": note("{player} is out of the game and cannot name words"),
    "more_letters": note("{n} more {letter}"),
    "cannot_made_needs": note("{word} cannot be made from {letters}: it needs {more}"),
    "not_legal_word": note("{word} is not a legal word: it is {reasons}"),
    "already_named": note("{word} was already named"),
    "already_named_or_passed": note("{player} already named a word or passed"),
    "cannot_pass_spell_binding": note("nothing to pass: Spell Binding is not open."),
    "cannot_close_spell_binding": note("cannot close Spell Binding now."),
    "words_were_named_spell": note("words were named: Spell Binding has something to bind"),
    "cannot_roll_psychotherapy_now": note("cannot roll for Psychotherapy now."),
    "game_not_started": note("the game has not started: set it up again without that player"),
    "has_already_left_game": note("{player} has already left the game"),
    "already_out_game": note("{player} is already out of the game"),
    "not_named_turn": note("it is {player}'s turn, not {named}'s"),
    "game_moved_on": note("the game moved on"),
    "moved_meanwhile": note("{what} meanwhile. {waiting}"),
    "moved_meanwhile_turn": note("{what} meanwhile; it is {player}'s turn now"),
    "player_name_mixes_letters": note(
        "player name {name!r} mixes letters of different scripts, which can look alike: type it in one script"),
    "player_names_look_same": note(
        "player names {first!r} and {second!r} look the same: give them names the table can tell apart"),
    "not_a_roll": note("roll {roll!r} is not a d20 roll: give a whole number from 1 to {most}"),
    "roll_off_needs_least": note("the roll-off needs at least one round of rolls"),
    "roll_off_round_rolled": note("roll-off round {number} must be rolled by {players}, not {names}"),
    "roll_off_decided_round": note("the roll-off was decided in round {number}; later rounds are not needed"),
    "roll_off_still_tied": note("the roll-off is still tied between {players}: they roll again"),
    "undo_needs_number_actions": note("undo needs a number of actions of at least 1, not {actions}"),
    "nothing_to_undo": note("there is nothing to undo yet: the set-up and the roll-off stay"),
    "only_action_undone_set": nnote(
        "only {n} action can be undone, not {actions}: the set-up and the roll-off stay",
        "only {n} actions can be undone, not {actions}: the set-up and the roll-off stay"),
    "nothing_to_redo": note("there is nothing to redo"),
    "only_undone_action_redone": nnote(
        "only {n} undone action can be redone, not {actions}",
        "only {n} undone actions can be redone, not {actions}"),
    "unknown_player": note("{name!r} is not playing; the players are {players}"),
    "players_tuple_names": note("players must be a tuple of names, not {players!r}"),
    "dictionary_size_one": note("dictionary size {level!r} must be one of {levels}"),
    "options_options_true_false": note("options {options!r} must be Options(...) of true or false"),
    "deck_not_deck": note("deck {deck!r} must be a Deck"),
    "seed_whole_number": note("seed {seed!r} must be a whole number"),
    "card_accounting_true_false": note("card_accounting {value!r} must be true or false"),
    "players_count": nnote(
        "{n} player: the game takes {least} to {most}",
        "{n} players: the game takes {least} to {most}"),
    "players_need_larger_deck": note(
        "{n} players need a larger deck than the {deck} deck of {size} cards: use --deck double or a custom "
        "deck"),
    "player_name_printable_characters": note(
        "player name {name!r} must be 1 to {most} printable characters, no outer spaces"),
    "player_name_used_twice": note("player name {name!r} is used twice"),
    "deck_has_cards_too": note("the {deck} deck has {size} cards, too few to deal {hand} to {n} players"),
    "target_whole_number_points": note("target {target!r} must be a whole number of points, at least 1"),
    "deck_changes_points": note(
        "the {deck} deck changes the points of {letters}: in a game points never change (RULES.txt); a custom "
        "deck gives letter counts only"),
    "dice_physical_virtual": note("dice {dice!r} must be 'physical' or 'virtual'"),
    "unknown_event_type": note("unknown event type {kind!r}"),
    "unknown_correction_type": note("unknown correction type {kind!r}"),
}


class Worded(Message):
    """A kind of sentence of ``TABLE`` with its facts: the value, and the sentence it is (a ``Message``)."""

    TABLE: ClassVar[dict[str, tuple[str, str | None]]] = {}
    kind: str

    def __new__(cls, kind: str, /, **facts: Any) -> Self:
        template, plural = cls.TABLE[kind]  # a KeyError names a kind without a sentence: a bug in the rules
        self = super().__new__(cls, template, facts, plural, facts["n"] if plural is not None else None)
        assert isinstance(self, cls)  # Message.__new__ makes an instance of cls
        self.kind = kind
        return self

    @property
    def facts(self) -> dict[str, Any]:
        return self.params


class Happened(Worded):
    """One thing an event did (``NOTES``): what ``Game.apply`` returns."""

    TABLE = NOTES


class Refusal(Worded):
    """Why the rules refuse, or a clause of it (``REFUSALS``): the message of the errors the rules raise."""

    TABLE = REFUSALS


def refusal(kind: str, /, **facts: Any) -> Refusal:
    """The sentence (or clause) of a refusal of ``kind`` with its facts."""
    return Refusal(kind, **facts)


__all__ = ["NOTES", "REFUSALS", "Happened", "Refusal", "Worded", "refusal"]
