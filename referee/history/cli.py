"""``uw-referee stats``: the records of the games in the database (or of one game), in words or as JSON. Click code
only: the figures are ``referee.history.stats``'s, read by ``referee.history.reading`` and said by
``referee.history.report``; ``referee.quick`` answers the plain forms without Click (``quick_stats``)."""
from __future__ import annotations

from typing import Any

import click

from dictionaries.i18n import _
from referee.cli_common import CONTEXT, Number, Obj, lang_option
from referee.cli_failures import run_store
from referee.history.report import stats_json_text, stats_lines
from referee.paths import default_db_path
from referee.terminal import write


def game_options(f: Any) -> Any:
    """``--game``, ``--db`` and ``--lang`` after the command's name too, as ``referee.game_cli``'s, declared here so
    that ``stats`` loads none of the game commands' modules (it runs within 3x the time of ``status``)."""
    def set_game(ctx: click.Context, _param: Any, value: int | None) -> None:
        if value is not None:
            ctx.ensure_object(Obj).game = value

    def set_db(ctx: click.Context, _param: Any, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(Obj).db = value

    f = click.option("--game", type=Number(min=1, max=2**63 - 1), metavar=_("ID"), expose_value=False,
                     callback=set_game, is_eager=True, help=_("Only this game's figures."))(f)
    f = click.option("--db", metavar=_("PATH"), expose_value=False, callback=set_db, is_eager=True,
                     help=_("The games database (default: {path}).").format(path=default_db_path()))(f)
    return lang_option(f)


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
    from referee.history.reading import read_table

    reader = obj.reader()
    games, players = run_store(lambda: read_table(reader, obj.game))
    if as_json:
        click.echo(stats_json_text(games, players, seats=obj.game is not None))
    else:
        write(stats_lines(games, players, reader.named()))


__all__ = ["game_options", "stats"]
