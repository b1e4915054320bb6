"""The referee's words for people: verdicts, results and the state of a game as lines of text.

Pure functions of library values (no Click, no I/O), so every face (the one-shot commands, the
quick path, the ``table`` loop) says the same thing the same way.
"""
from __future__ import annotations

from dictionaries.i18n import _, message_from_json, ngettext, say
from referee.terminal import Style, shown
from referee.words import action_groups, actions_words, correction_message

TYPE_CHECKING = False  # the types only: rendering never needs these modules (nor typing) loaded
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from dictionaries.verdict import Verdict
    from referee.actions import Result
    from referee.engine import Correction, Game
    from referee.store import GameSummary


def letters_text(letters: Iterable[tuple[str, int]]) -> str:
    """Each letter with its points: ``C0 H4 A5 M3 P3``."""
    return " ".join(f"{letter}{points}" for letter, points in letters)


def check_lines(verdicts: list[Verdict], style: Style) -> list[str]:
    """``check``: each word legal or not, with its score and chance, or its reasons."""
    lines = []
    for v in verdicts:
        head = style.bold(v.word)
        if v.legal:
            lines.append(ngettext("{word}: legal, {n} point ({letters}); sanity check passes {chance}% of the time",
                                  "{word}: legal, {n} points ({letters}); sanity check passes {chance}% of the time",
                                  v.score).format(word=head, n=v.score, letters=letters_text(v.letters),
                                                  chance=round(v.success_chance * 100)))
        else:
            lines.append(_("{word}: {not_legal}").format(word=head, not_legal=style.red(_("not legal"))))
            lines.extend(f"  - {say(reason.message)}" for reason in v.reasons)
    return lines


def play_verdict_lines(verdict: Verdict) -> list[str]:
    """What the dictionary says about a word being played."""
    lines: list[str] = []  # with --allow, the play's own note says what the table overrules, if anything
    lines.extend(_("The dictionary says: {reason}.").format(reason=say(reason.message)) for reason in verdict.reasons)
    return lines


def say_lines(notes: list[str], style: Style) -> list[str]:
    """Notes of what happened; the last one (what the game waits for, or who won) in bold."""
    said = [say(note) for note in notes]
    return [*said[:-1], style.bold(said[-1])] if said else []


def scoreboard_line(state: dict[str, Any]) -> str:
    """Every player's score and pawns (or out, or left) against the target, in one line (from ``State.to_dict()``)."""
    parts = []
    for p in state["players"]:
        mark = "->" if p["name"] == state["turn"] else ""
        if p.get("left"):
            part = _("{player} {score} (left)")
        elif p["out"]:
            part = _("{player} {score} (out)")
        else:
            part = ngettext("{player} {score} ({n} pawn)", "{player} {score} ({n} pawns)", p["pawns"])
        parts.append(mark + part.format(player=p["name"], score=p["score"], n=p["pawns"]))
    return _("Scores, target {target}: {players}.").format(target=state["target"], players=", ".join(parts))


def command_hint(phase: str, db: str | None = None) -> str | None:
    """What the one-shot commands add to what the game waits for (the table loop's prompts say it instead); the
    commands name ``db`` when it is not the default database (``referee.paths.suggested``)."""
    from referee.paths import suggested

    # TRANSLATORS: {referee} is the command's start, "uw-referee" (with --db PATH when the games are elsewhere).
    if phase == "sanity":
        text = _("Enter it with: {referee} roll N")
    elif phase == "spell_binding":
        text = _("Name a word with: {referee} bind WORD --by NAME; then close with: {referee} bind --done")
    elif phase == "psychotherapy":
        text = _("Enter it with: {referee} roll N (or {referee} roll --skip)")
    else:
        return None
    return text.format(referee=suggested("", db))


def result_lines(result: Result, style: Style, mode: str = "command", db: str | None = None) -> list[str]:
    """What an action did, the scoreboard, then what the game waits for (or, at the end, who won).

    ``mode`` is the face in use: "command" adds the one-shot command to type next (naming ``db``, the database
    given with ``--db``, when it is not the default); "table" does not (its prompt asks)."""
    notes = list(result.notes)
    board = scoreboard_line(result.state.to_dict())
    if result.state.is_over():
        return say_lines([*notes[:-1], board, notes[-1]] if notes else [board], style)
    lines = say_lines([*notes, board, result.waiting.text], style)
    hint = command_hint(result.waiting.phase.value, db) if mode == "command" else None
    if hint and not (result.waiting.phase.value != "spell_binding" and result.game.setup.dice == "virtual"):
        lines.append(hint)
    return lines


def after_the_end_lines(game_id: int, setup: Any, db: str | None = None) -> list[str]:
    """What a table can still do once its game is over (at ``table``'s last prompt): correct a mistake, which
    may undo the end, or start the next game with the same players and choices, its commands naming ``db``
    when it is not the default database."""
    from referee.paths import suggested
    from referee.starting import same_table_args

    return [_("A mistake can still be corrected: type 'undo' to take back the last action, or 'amend N' if the "
              "latest roll was N; the game goes on if the end changes."),
            _("At the shell: {undo} or {amend}.").format(undo=shown(suggested("undo", db, game_id)),
                                                         amend=shown(suggested("amend --roll N", db, game_id))),
            _("The next game, same players and rules: {new}, then {table}.").format(
                new=shown(suggested(same_table_args(setup), db)), table=shown(suggested("table", db)))]


#: Reason codes the table may overrule for one action (RULES.txt 6), and what the overrule overrules.
OVERRULABLE = {"proper_noun": "dictionary", "abbreviation": "dictionary", "acronym": "dictionary",
               "contraction": "dictionary", "phrase_piece": "dictionary", "uncommon": "dictionary", "unknown": "dictionary",
               "discard_pile": "cards"}


def refusal_lines(message: str, codes: Iterable[str], style: Style, mode: str = "command",
                  action: str = "play") -> list[str]:
    """A refusal and, when the table may overrule it, how, in the form of the mode in use."""
    lines = [refused_line(message, style)]
    what = {OVERRULABLE[c] for c in codes if c in OVERRULABLE}
    if what and action in ("play", "discard", "bind"):
        lines.append(overrule_hint(action, mode, "cards" in what, "dictionary" in what))
    return lines


def overrule_hint(action: str, mode: str, cards: bool, dictionary: bool) -> str:
    """How the table overrules a refusal of ``action`` (play, discard, bind) in this mode."""
    if mode != "table":
        how = _("add --allow")
    elif action == "play":
        how = _("add '!' after the word (e.g. 'cthulhu!')")
    elif action == "discard":
        how = _("add '!' after the letters (e.g. 'discard QXZ!')")
    else:
        how = _("add '!' after the word (e.g. 'Ann cthulhu!')")
    if cards and dictionary:
        text = {"play": _("The table may overrule the card count and the dictionary for this play: {how}."),
                "discard": _("The table may overrule the card count and the dictionary for this discard: {how}."),
                "bind": _("The table may overrule the card count and the dictionary for this bind: {how}.")}[action]
    elif cards:
        text = {"play": _("The table may overrule the card count for this play: {how}."),
                "discard": _("The table may overrule the card count for this discard: {how}."),
                "bind": _("The table may overrule the card count for this bind: {how}.")}[action]
    else:
        text = {"play": _("The table may overrule the dictionary for this play: {how}."),
                "discard": _("The table may overrule the dictionary for this discard: {how}."),
                "bind": _("The table may overrule the dictionary for this bind: {how}.")}[action]
    return text.format(how=how)


def correction_lines(verb: str, events: list[Any], result: Result, style: Style) -> list[str]:
    """What ``undo`` or ``redo`` did, in words ("Undid Ben's CHAMP: 15 points, roll 16."), then the game."""
    count = len(action_groups(events))
    actions = say(actions_words(events))
    if verb == "Undid":
        line = (ngettext("Undid {n} action: {actions}.", "Undid {n} actions: {actions}.", count) if count > 1
                else _("Undid {actions}."))
    else:
        line = (ngettext("Redid {n} action: {actions}.", "Redid {n} actions: {actions}.", count) if count > 1
                else _("Redid {actions}."))
    lines = [line.format(n=count, actions=actions)]
    state = result.state
    if state.is_over():
        return [*lines, scoreboard_line(state.to_dict()), style.bold(say(state.waiting_for()))]
    return [*lines, scoreboard_line(state.to_dict()), style.bold(say(result.waiting.text))]


def amend_lines(amended: Any, style: Style) -> list[str]:
    """What ``amend`` did: the roll corrected, what changed for each player and in the game, then the game."""
    before, after = amended.before, amended.state.to_dict()
    if amended.action == 0:
        lines = [_("Amended {player}'s roll-off roll: {old} is now {new}; the roll-off was checked again.").format(
            player=amended.player, old=amended.old, new=amended.new)]
    else:
        lines = [_("Amended {player}'s roll in action {action}: {old} is now {new}; every later action was checked "
                   "again.").format(player=amended.player, action=amended.action, old=amended.old, new=amended.new)]
    lines += [say(note) for note in amended.notes]
    for old, new in zip(before["players"], after["players"]):
        changes = []
        if old["score"] != new["score"]:
            changes.append(ngettext("{old} -> {n} point", "{old} -> {n} points", new["score"]).format(
                old=old["score"], n=new["score"]))
        if old["pawns"] != new["pawns"]:
            changes.append(ngettext("{old} -> {n} pawn", "{old} -> {n} pawns", new["pawns"]).format(
                old=old["pawns"], n=new["pawns"]))
        if old["out"] != new["out"]:
            changes.append(_("now out of the game") if new["out"] else _("back in the game"))
        if changes:
            lines.append(_("{player}: {changes}.").format(player=new["name"], changes=", ".join(changes)))
    if before["winner"] != after["winner"]:
        if not before["winner"]:
            lines.append(_("Now {player} wins.").format(player=after["winner"]))
        elif after["winner"]:
            lines.append(_("The winner was {old}; now {new} wins.").format(old=before["winner"], new=after["winner"]))
        else:
            lines.append(_("The winner was {old}; now the game goes on.").format(old=before["winner"]))
    lines.append(scoreboard_line(after))
    lines.append(style.bold(say(amended.state.waiting_for() if amended.state.is_over() else amended.waiting.text)))
    return lines


def correction_words(fix: Correction) -> str:
    """A recorded correction (undo, redo, amend) in words, for ``log``."""
    return say(correction_message(fix))


def describe_setup(game_id: int, view: dict[str, Any]) -> str:
    """One line: the players, target, dictionary size, deck, dice and optional rules (from ``State.view()``)."""
    state = view["state"]
    options = [option_name(name) for name, on in state["options"].items() if on]
    players = ", ".join(p["name"] for p in state["players"])
    from dictionaries.deck import deck_name

    text = (_("Game {game}: {players}. Target {target}, dictionary size {level}, {deck} deck ({cards} cards), {dice} "
              "dice. Optional rules: {options}.") if options else
            _("Game {game}: {players}. Target {target}, dictionary size {level}, {deck} deck ({cards} cards), {dice} "
              "dice. Optional rules: none."))
    return shown(text.format(game=game_id, players=players, target=state["target"], level=state["level"],
                             deck=say(deck_name(state["deck"])), cards=view["deck_size"], dice=dice_name(state["dice"]),
                             options=", ".join(options)))


def option_name(option: str) -> str:
    """An optional rule's name for people (the CLI and the board)."""
    names = {
        # TRANSLATORS: the names of the optional rules, as the Spanish rulebook calls them.
        "oath": _("oath"), "spell_binding": _("spell binding"), "psychotherapy": _("psychotherapy"),
        "last_words": _("last words"),
    }
    return names.get(option, option.replace("_", " "))


def part_of_speech(name: str) -> str:
    """A definition's part of speech, for people (the CLI and the board; the glosses stay English)."""
    names = {"noun": _("noun"), "verb": _("verb"), "adjective": _("adjective"), "adverb": _("adverb"),
             "preposition": _("preposition"), "pronoun": _("pronoun"), "conjunction": _("conjunction"),
             "interjection": _("interjection")}
    return names.get(name, name)


def dice_name(dice: str) -> str:
    """``physical`` or ``virtual`` dice, for people."""
    return {"physical": _("physical"), "virtual": _("virtual")}.get(dice, dice)


def describe_game(game_id: int, game: Game) -> str:
    """``describe_setup`` of a game in hand."""
    return describe_setup(game_id, game.state.view())


def status_lines(game_id: int, view: dict[str, Any], style: Style) -> list[str]:
    """``status``: the set-up, each player, the piles and used words, and what the game waits for."""
    state = view["state"]
    over = state["phase"] == "over"
    lines = [style.bold(describe_setup(game_id, view))]
    for p in state["players"]:
        mark = "->" if p["name"] == state["turn"] and not over else "  "
        tail = _(" (left)") if p.get("left") else (_(" (out)") if p["out"] else (
            _(" (winner)") if p["name"] == state["winner"] else ""))
        pawns = ngettext("{n} pawn", "{n} pawns", p["pawns"]).format(n=p["pawns"])
        points = ngettext("{score:>4} point", "{score:>4} points", p["score"]).format(score=p["score"])
        lines.append(f"{mark} {shown(p['name']):<12} {points}  {pawns}{tail}")
    if state["used_words"]:
        lines.append(_("Draw pile {draw}, discard pile {discard}. Words used: {words}.").format(
            draw=state["draw_pile"], discard=state["discard_pile"], words=shown(", ".join(state["used_words"]))))
    else:
        lines.append(_("Draw pile {draw}, discard pile {discard}. Words used: none.").format(
            draw=state["draw_pile"], discard=state["discard_pile"]))
    waiting = message_from_json(view.get("waiting"))
    lines.append(style.bold(shown(say(waiting) if waiting is not None else state["waiting_for"])))
    return lines


def game_state_words(summary: GameSummary) -> str:
    """A game's state in words: "Sue's turn", "over: Paul won with 104"."""
    if summary.phase == "over" and summary.winner is not None:
        score = dict(zip(summary.players, summary.scores)).get(summary.winner)
        return _("over: {player} won with {score}").format(player=summary.winner, score=score)
    states = {
        "roll_off": _("waiting for the roll-off"),
        "action": _("{turn}'s turn"),
        "last_words": _("{turn}'s last turn (Last Words)"),
        "sanity": _("{turn}'s sanity roll"),
        "spell_binding": _("Spell Binding on {turn}'s discard"),
        "psychotherapy": _("{turn}'s Psychotherapy roll"),
    }
    return states.get(summary.phase, summary.phase).format(turn=summary.turn)


def games_lines(summaries: list[GameSummary], where: str) -> list[str]:
    """``games``: each game with its last activity, players and state; or how to start one."""
    if not summaries:
        from referee.paths import suggested

        return [_("No games yet in {where}. Start one with: {command}").format(
            where=shown(where), command=shown(suggested(_("new NAME NAME"), where)))]
    return [_("Games in {where}, most recently active first:").format(where=shown(where))] + [
        shown(f"{g.id:>4}  {g.updated_at[:19].replace('T', ' ')}  {', '.join(g.players)}  ({game_state_words(g)})")
        for g in summaries]


def verify_lines(path: str, games: int, events: int, problems: list[str], db: str | None = None) -> list[str]:
    """``verify``: what was checked and that nothing is damaged, or each problem found and what to do (the
    commands naming ``db``, the database as ``--db`` gives it, unless it is the default)."""
    from referee.paths import suggested_quoted

    counted = ngettext("{n} game", "{n} games", games).format(n=games)
    counted_events = ngettext("{n} event", "{n} events", events).format(n=events)
    if not problems and path.startswith("postgresql://"):  # a server's pages are its own to check: no SQLite check
        return [_("Checked {path}: {games} and {events}: every event matches its digest, every game replays, every "
                  "saved state and summary matches its replay. No damage found."
                  ).format(path=shown(path), games=counted, events=counted_events)]
    if not problems:
        return [_("Checked {path}: SQLite's integrity check passed; {games} and {events}: every event matches its "
                  "digest, every game replays, every saved state and summary matches its replay. No damage found."
                  ).format(path=shown(path), games=counted, events=counted_events)]
    return [_("Damage found in {path} ({games} and {events} checked):").format(path=shown(path), games=counted,
                                                                               events=counted_events),
            *(f"  - {shown(say(problem))}" for problem in problems),
            _("Nothing was changed. Stop any board serving the file, then restore it from a backup, or start a "
              "damaged game again from an earlier {export}; the undamaged games can still be exported ({one})."
              ).format(export=shown(suggested_quoted("export", db)), one=shown(suggested_quoted("export --game N", db)))]


def refused_line(message: str, style: Style) -> str:
    """A refusal by the rules: what was refused and that nothing changed."""
    text = say(message)
    text = text if text.endswith(".") else text + "."
    return _("{refused} {message} Nothing was changed.").format(refused=style.red_bold(_("Refused:")), message=text)
