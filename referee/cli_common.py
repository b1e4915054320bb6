"""What every ``uw-referee`` command module shares: the context object, common options, JSON output."""
from __future__ import annotations

from typing import Any

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.deck import Deck, DeckError, load_deck
from dictionaries.dictionary import Dictionary, open_for_command
from dictionaries.errors import DictionaryError
from referee.terminal import json_text
from referee.values import value

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
LEVEL_HELP = f"SCOWL size counted as common ({', '.join(map(str, LEVELS))}); default {DEFAULT_LEVEL}."


@value()
class Obj:
    """What every command shares through ``ctx.obj``."""

    db: str | None = None
    game: int | None = None
    _dictionary: Dictionary | None = None
    _store: Any = None
    _referee: Any = None

    @property
    def store(self) -> Any:
        """The games database, for writing (``referee.store.Store``)."""
        if self._store is None:
            from referee.store import Store

            self._store = Store(self.db)
        return self._store

    def reader(self) -> Any:
        """The games database opened read-only (read commands work on read-only media)."""
        from referee.store import Store

        return Store(self.db, read_only=True)

    @property
    def referee(self) -> Any:
        """The game-flow library over the store (``referee.actions.Referee``)."""
        if self._referee is None:
            from referee.actions import Referee

            self._referee = Referee(self.store, lambda: self.dictionary)
        return self._referee

    @property
    def dictionary(self) -> Dictionary:
        if self._dictionary is None:
            try:
                self._dictionary = open_for_command()
            except DictionaryError as exc:
                raise click.ClickException(str(exc)) from None
        return self._dictionary


def level_option(f: Any) -> Any:
    return click.option("--level", type=click.Choice([str(n) for n in LEVELS]), default=str(DEFAULT_LEVEL),
                        show_default=True, help=LEVEL_HELP)(f)


def json_option(f: Any) -> Any:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def deck_option(f: Any) -> Any:
    return click.option("--deck", "deck_spec", default="standard", show_default=True, metavar="standard|double|FILE",
                        help="The deck whose counts limit the letters (a FILE is JSON letter counts).")(f)


def get_deck(spec: str) -> Deck:
    try:
        return load_deck(spec)
    except DeckError as exc:
        raise click.BadParameter(str(exc), param_hint="--deck") from None


def emit_json(data: Any) -> None:
    click.echo(json_text(data))


