"""What every ``uw-referee`` command module shares: the context object, common options, JSON output."""
from __future__ import annotations

from typing import Any

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.deck import Deck, DeckError, load_deck
from dictionaries.dictionary import Dictionary, open_for_command
from dictionaries.errors import DictionaryError
from dictionaries.i18n import LANGUAGES, _, choose_language, message_of, msg, say
from referee.terminal import json_text, shown
from referee.values import value
from unspeakable_words.click_i18n import speak as speak  # referee.quick imports it from here too

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
#: Words Click translates only when it shows them ("[required]" in a help text) and never marks for the
#: catalogs: marked here, so that they are said in the language in use (the catalogs are chained).
CLICK_UNMARKED = (msg("required"),)
LEVEL_HELP = _("SCOWL size counted as common ({sizes}); default {level}.").format(
    sizes=", ".join(map(str, LEVELS)), level=DEFAULT_LEVEL)


def lang_option(f: Any) -> Any:
    """``--lang``, before or after the command's name: the language of every message."""
    def set_lang(ctx: click.Context, _param: Any, language: str | None) -> None:
        if language is not None or ctx.parent is None:
            speak(choose_language(language))

    return click.option("--lang", type=click.Choice(LANGUAGES), expose_value=False, callback=set_lang, is_eager=True,
                        help=_("The language of every message: en or es (default: UW_LANG, else the locale, else "
                               "English)."))(f)


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
            from referee.store_pg import open_store

            self._store = open_store(self.db)
        return self._store

    def reader(self) -> Any:
        """The games database opened read-only (read commands work on read-only media)."""
        from referee.store_pg import open_store

        return open_store(self.db, read_only=True)

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
                from referee.cli_failures import raise_for

                raise_for(exc)
        return self._dictionary


def level_option(f: Any) -> Any:
    return click.option("--level", type=click.Choice([str(n) for n in LEVELS]), default=str(DEFAULT_LEVEL),
                        show_default=True, help=LEVEL_HELP)(f)


def json_option(f: Any) -> Any:
    return click.option("--json", "as_json", is_flag=True, help=_("Print JSON instead of text."))(f)


def deck_option(f: Any) -> Any:
    return click.option("--deck", "deck_spec", default="standard", show_default=True, metavar=_("standard|double|FILE"),
                        help=_("The deck whose counts limit the letters (a FILE is JSON letter counts)."))(f)


def get_deck(spec: str) -> Deck:
    try:
        return load_deck(spec)
    except DeckError as exc:
        raise click.BadParameter(shown(say(message_of(exc))), param_hint="--deck") from None


def emit_json(data: Any) -> None:
    click.echo(json_text(data))




class Number(click.IntRange):
    """A whole number in a range, typed with the digits 0-9 only (``int()`` also reads other scripts' digits,
    such as '٣'); its refusals are plain sentences in the language in use, never a type's name."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return super().convert(value, param, ctx)
        text = str(value).strip()
        digits = text[1:] if text.startswith("-") else text
        if not (digits.isascii() and digits.isdigit()):
            self.fail(self.not_a_number(text), param, ctx)
        return super().convert(int(text), param, ctx)

    def not_a_number(self, text: str) -> str:
        return _("{value!r} is not a whole number (digits 0-9)").format(value=cut(text))


class Roll(Number):
    """A d20 roll, 1 to 20, typed with the digits 0-9: anything else is refused in the same words."""

    name = "roll"

    def __init__(self) -> None:
        from dictionaries.rules import DIE

        super().__init__(1, DIE)

    def not_a_number(self, text: str) -> str:
        return _("{value!r} is not a roll: type a number from 1 to {most}").format(value=cut(text), most=self.max)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value).strip()
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif text.isascii() and text.isdigit():
            number = int(text)
        else:
            self.fail(self.not_a_number(text), param, ctx)
        if not 1 <= number <= (self.max or 20):
            self.fail(self.not_a_number(text), param, ctx)
        return number


def cut(text: str, most: int = 40) -> str:
    """Typed text as a message shows it: at most ``most`` characters."""
    return text if len(text) <= most else text[:most] + "…"
