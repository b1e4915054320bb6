"""``uw-referee stats``: the records of the games in the database (or of one game), in words or as JSON. Click code
only: the figures are ``referee.history.stats``'s, read by ``referee.history.reading``."""
from __future__ import annotations

from typing import Any

import click

from dictionaries.i18n import _, ngettext
from referee.cli_common import CONTEXT, Obj, emit_json
from referee.cli_failures import run_store
from referee.game_cli import game_options
from referee.history.stats import GameFigures, PlayerFigures, Word, best_of, table_figures
from referee.terminal import shown, write


def _word(word: Word) -> str:
    from referee.history.page import word_text

    return word_text(word)


def player_lines(p: PlayerFigures) -> list[str]:
    """One player's records: a line of games, then one line per figure."""
    lines = [shown(p.name + ": " + ngettext("{n} game: {won} won, {lost} lost, {in_play} in play",
                                           "{n} games: {won} won, {lost} lost, {in_play} in play", p.games).format(
        n=p.games, won=p.won, lost=p.lost, in_play=p.in_play))]
    if p.best is not None and p.longest is not None and p.average is not None:
        lines.append("    " + _("best word: {word}").format(word=_word(p.best)))
        lines.append("    " + _("longest word: {word}").format(word=_word(p.longest)))
        lines.append("    " + ngettext("{average:.1f} points per word over {n} word",
                                       "{average:.1f} points per word over {n} words", p.words).format(
            average=p.average, n=p.words))
        lines.append("    " + ngettext("sanity checks: {passed} of {n} passed; their words' odds gave {expected:.1f}",
                                       "sanity checks: {passed} of {n} passed; their words' odds gave {expected:.1f}",
                                       p.checks).format(passed=p.passed, n=p.checks, expected=p.expected))
    else:
        lines.append("    " + _("no word played yet"))
    lines.append("    " + _("pawns: {lost} lost, {regained} regained").format(lost=p.pawns_lost,
                                                                              regained=p.pawns_regained))
    lines.append("    " + ngettext("eliminated {n} time", "eliminated {n} times", p.eliminated).format(n=p.eliminated)
                 + ("; " + ngettext("left {n} game", "left {n} games", p.left).format(n=p.left) if p.left else ""))
    return lines


def game_line(g: GameFigures) -> str:
    """One game in a line: its number, players, length and how it ended."""
    names = ", ".join(g.players)
    if g.winner is None:
        text = ngettext("Game {game} ({players}): in play after {n} turn",
                        "Game {game} ({players}): in play after {n} turns", g.turns)
    elif g.ending == "last_standing":
        text = ngettext("Game {game} ({players}): {winner} won as the last player with pawns after {n} turn",
                        "Game {game} ({players}): {winner} won as the last player with pawns after {n} turns",
                        g.turns)
    elif g.ending == "last_words":
        text = ngettext("Game {game} ({players}): {winner} won after Last Words, {n} turn",
                        "Game {game} ({players}): {winner} won after Last Words, {n} turns", g.turns)
    else:
        text = ngettext("Game {game} ({players}): {winner} won at the target after {n} turn",
                        "Game {game} ({players}): {winner} won at the target after {n} turns", g.turns)
    line = text.format(game=g.game, players=names, winner=g.winner, n=g.turns)
    if g.best is not None:
        line += "; " + _("best word {word} by {player}").format(word=_word(g.best), player=g.best.player)
    return shown(line)


def stats_lines(games: list[GameFigures], players: list[PlayerFigures]) -> list[str]:
    """``stats`` in words: the players' records, then each game in a line, then the best word of them all."""
    if not games:
        return [_("No games yet: start one with 'uw-referee new NAME NAME'.")]
    over = sum(1 for g in games if g.over)
    lines = [ngettext("{n} game: {over} over, {in_play} in play.", "{n} games: {over} over, {in_play} in play.",
                      len(games)).format(n=len(games), over=over, in_play=len(games) - over), "", _("Players")]
    for p in players:
        lines.extend("  " + line for line in player_lines(p))
    lines += ["", _("Games")]
    lines.extend("  " + game_line(g) for g in games)
    best = best_of(games)
    if best is not None:
        from referee.history.page import best_of_all

        lines += ["", shown(best_of_all(best))]
    return lines


def stats_json(games: list[GameFigures], players: list[PlayerFigures]) -> dict[str, Any]:
    """``stats --json``: every player's records, every game's figures, the best word of them all."""
    best = best_of(games)
    return {"players": [p.to_json() for p in players], "games": [g.to_json() for g in games],
            "best_word": None if best is None else best.to_json()}


@click.command(context_settings=CONTEXT, help=_(
    "The table's records over every game in the database (or one, with --game): per player the games\n"
    "played and won, the best and the longest word, points per word, the sanity checks passed against\n"
    "the odds their words gave, pawns lost and regained, times eliminated; per game its length, its\n"
    "winner and how it ended. A game still being played counts as in play. Players are matched by\n"
    "name, whatever the case.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee stats --json"))
@click.option("--json", "as_json", is_flag=True, help=_("Print JSON."))
@game_options
@click.pass_obj
def stats(obj: Obj, as_json: bool) -> None:
    from referee.history.reading import all_figures, figures_of

    reader = obj.reader()
    if obj.game is not None:
        games = [run_store(lambda: figures_of(reader, obj.game))[0]]
    else:
        games = run_store(lambda: all_figures(reader))
    players = table_figures(games)
    if as_json:
        emit_json(stats_json(games, players))
    else:
        write(stats_lines(games, players))


__all__ = ["game_line", "player_lines", "stats", "stats_json", "stats_lines"]
