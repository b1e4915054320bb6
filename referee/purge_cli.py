"""``uw-referee purge``: delete the finished games last played more than DAYS days ago (Click code only: the
decision is ``referee.retention``'s, the deletion ``Store.purge``'s, one transaction)."""
from __future__ import annotations

import click

from dictionaries.i18n import _, ngettext
from referee.cli_common import CONTEXT, Number, Obj
from referee.cli_failures import run_store
from referee.game_cli import db_option


@click.command(context_settings=CONTEXT, help=_(
    "Delete every finished game (it has a winner) whose last action is more than DAYS days old, with all its\n"
    "events and corrections, in one transaction. Games still being played are never deleted, however old.\n"
    "Export a game first to keep it ('uw-referee --game N export > game.json'). A hosted board does this by\n"
    "itself (board --hosted --keep DAYS).\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee purge --older-than 30"))
@click.option("--older-than", "days", type=Number(min=0, max=100_000), metavar=_("DAYS"), required=True,
              help=_("Delete the finished games last played more than DAYS days ago (0: every finished game)."))
@db_option
@click.pass_obj
def purge(obj: Obj, days: int) -> None:
    from referee.retention import older_than

    store = obj.store
    deleted = run_store(lambda: store.purge(older_than(days)))
    if not deleted:
        click.echo(ngettext("No finished game was last played more than {days} day ago: nothing was deleted.",
                            "No finished game was last played more than {days} days ago: nothing was deleted.",
                            days).format(days=days))
        return
    click.echo(ngettext("Deleted {n} finished game: {games}.", "Deleted {n} finished games: {games}.",
                        len(deleted)).format(n=len(deleted), games=", ".join(map(str, deleted))))


__all__ = ["purge"]
