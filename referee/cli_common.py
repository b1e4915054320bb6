"""What every ``uw-referee`` command module shares: the context object, common options, JSON output."""
from __future__ import annotations

import sys
from typing import Any

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.deck import Deck, DeckError, load_deck
from dictionaries.dictionary import Dictionary, open_for_command
from dictionaries.errors import DictionaryError
from dictionaries.i18n import LANGUAGES, _, choose_language, message_of, ngettext, say, set_language
from referee.terminal import json_text, shown
from referee.values import value

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
LEVEL_HELP = _("SCOWL size counted as common ({sizes}); default {level}.").format(
    sizes=", ".join(map(str, LEVELS)), level=DEFAULT_LEVEL)


def speak(language: str) -> None:
    """Speak ``language`` from now on: the referee's messages and Click's own (usage errors, help headings).

    Click's modules call the standard library's ``gettext`` and ``ngettext``, bound at their import;
    they are pointed at this project's catalogs (which hold Click's messages in the ``click`` domain)."""
    set_language(language)
    for name, module in list(sys.modules.items()):
        if name == "click" or name.startswith("click."):
            if callable(getattr(module, "_", None)):
                setattr(module, "_", _)  # noqa: B010 (mypy cannot see Click's module globals)
            if callable(getattr(module, "ngettext", None)):
                setattr(module, "ngettext", ngettext)  # noqa: B010


def lang_option(f: Any) -> Any:
    """``--lang``, before or after the command's name: the language of every message."""
    def set_lang(ctx: click.Context, _param: Any, language: str | None) -> None:
        if language is not None or ctx.parent is None:
            speak(choose_language(language))

    return click.option("--lang", type=click.Choice(LANGUAGES), expose_value=False, callback=set_lang, is_eager=True,
                        help=_("The language of every message: en or es (default: UW_LANG, else the locale, else "
                               "English)."))(f)


def click_error(exc: BaseException) -> click.ClickException:
    """A library error as Click's one-line error, in the language in use."""
    return click.ClickException(shown(say(message_of(exc))))


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
                raise click_error(exc) from None
        return self._dictionary


def level_option(f: Any) -> Any:
    return click.option("--level", type=click.Choice([str(n) for n in LEVELS]), default=str(DEFAULT_LEVEL),
                        show_default=True, help=LEVEL_HELP)(f)


def json_option(f: Any) -> Any:
    return click.option("--json", "as_json", is_flag=True, help=_("Print JSON instead of text."))(f)


def deck_option(f: Any) -> Any:
    return click.option("--deck", "deck_spec", default="standard", show_default=True, metavar="standard|double|FILE",
                        help=_("The deck whose counts limit the letters (a FILE is JSON letter counts)."))(f)


def get_deck(spec: str) -> Deck:
    try:
        return load_deck(spec)
    except DeckError as exc:
        raise click.BadParameter(shown(say(message_of(exc))), param_hint="--deck") from None


def emit_json(data: Any) -> None:
    click.echo(json_text(data))


