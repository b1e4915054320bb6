"""``uw-referee``: the root command and the word commands. The logic lives in ``dictionaries`` (words)
and ``referee`` (games); the game commands are in ``referee.game_cli``, loaded on first use."""
from __future__ import annotations

import sys
from typing import Any

import click

from dictionaries.errors import DictionaryError, WordError
from dictionaries.i18n import _, ngettext
from referee.cli_common import (
    CONTEXT,
    Number,
    Obj,
    deck_option,
    emit_json,
    get_deck,
    json_option,
    lang_option,
    level_option,
)
from referee.cli_failures import click_exception, raise_for, run_store
from referee.failures import failure_of
from referee.paths import default_db_path
from referee.render import check_lines, letters_text, part_of_speech
from referee.store_format import require_postgres
from referee.store_pg import is_database_url
from referee.terminal import Style, disable_color, shown, use_color, write
from unspeakable_words import __version__

#: Commands imported only when used, by the module that holds them, so that ``uw-referee check``
#: starts fast (the engine, SQLite and the board's web server are not loaded for word questions).
LAZY_COMMANDS: dict[str, str] = {
    name: "referee.game_cli"
    for name in ("new", "play", "roll", "discard", "bind", "status", "log", "undo", "redo", "amend", "leave", "games",
                 "export", "rules", "verify")
} | {"table": "referee.table_cli", "board": "referee.board.cli", "purge": "referee.purge_cli",
     "stats": "referee.history.cli"}


class LazyGroup(click.Group):
    """A group whose game commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """An unknown command names the nearest ones: ``uw-referee paly`` suggests ``play``."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            for command in self.list_commands(ctx):  # a table's own word for a command ('deshacer'): its name here
                if _(command) != command and _(command).casefold() == name.casefold():
                    from referee.paths import suggested_quoted

                    db, game = ctx.params.get("db"), ctx.params.get("game_id")
                    ctx.fail(_("No such command {name!r}: at the shell it is {command!r} ({shell}); the table's "
                               "words work inside {table}.").format(
                        name=name, command=command, shell=shown(suggested_quoted(command, db, game)),
                        table=shown(suggested_quoted("table", db, game))))

            near = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.5)
            if near:
                ctx.fail(_("No such command {name!r}. Did you mean {names}? 'uw-referee --help' lists them.").format(
                    name=name, names=_(" or ").join(repr(n) for n in near)))
            ctx.fail(_("No such command {name!r}. 'uw-referee --help' lists them.").format(name=name))
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command: click.Command | None
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            import importlib

            command = getattr(importlib.import_module(LAZY_COMMANDS[cmd_name]), cmd_name)
        else:
            command = super().get_command(ctx, cmd_name)
        if command is not None:
            command.options_metavar = self.options_metavar  # "[OPTIONS]" in the language in use
        return command


@click.group(cls=LazyGroup, context_settings=CONTEXT, options_metavar=_("[OPTIONS]"),
             subcommand_metavar=_("COMMAND [ARGS]..."), help=_(
    "The referee for Unspeakable Words: settles words and keeps the game.\n"
    "\n"
    "\b\n"
    "Words:  uw-referee check taps apts      is it playable, and why not\n"
    "        uw-referee score champ          what it scores, letter by letter\n"
    "        uw-referee words oofmakl        every word a hand allows, best first\n"
    "Games:  uw-referee new Cindi Paul Sue   start a game (then play, roll, discard...)\n"
    "        uw-referee table                run the game turn by turn at the table\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee new Cindi Paul Sue --first Cindi && uw-referee play look --roll 7"))
@click.version_option(__version__, "--version", prog_name="uw-referee", message=_("%(prog)s, version %(version)s"))
@click.option("--db", metavar=_("PATH"), envvar="UW_REFEREE_DB", show_envvar=True,
              help=_("The games database (default: {path}). Every game command takes it after its name too.").format(
                  path=default_db_path()))
@click.option("--game", "game_id", type=Number(min=1, max=2**63 - 1), metavar=_("ID"),
              help=_("Act on this game instead of the most recently active one (also after the command's name)."))
@click.option("--no-color", is_flag=True, help=_("No colour (without it: colour only on a terminal, and never with "
                                                 "NO_COLOR set)."))
@lang_option
@click.pass_context
def cli(ctx: click.Context, db: str | None, game_id: int | None, no_color: bool) -> None:
    """The root command: the options every command shares (its help is the text above)."""
    obj = ctx.ensure_object(Obj)
    obj.db, obj.game = db, game_id
    if is_database_url(db):  # one line naming the postgres extra when psycopg is not installed
        run_store(require_postgres)
    if no_color:
        disable_color()


def define_option(f: Any) -> Any:
    return click.option("--define", is_flag=True, help=_("Also give each word's meanings (WordNet 3.0, else the "
                                                          "project's own glosses)."))(f)


def word_definitions(obj: Obj, word: str) -> list[Any]:
    """WordNet's senses of ``word`` from the dictionary in use (inflections reach their lemma)."""
    from dictionaries.definitions import open_definitions

    try:
        return open_definitions(obj.dictionary.path).lookup(word.lower())
    except DictionaryError as exc:
        raise_for(exc)


def definition_lines(word: str, senses: list[Any]) -> list[str]:
    """One line per sense with its source, or a sentence naming the sources that have none."""
    if not senses:
        return ["  " + _("No definition of {word} in WordNet 3.0 or the project's own glosses.").format(word=word)]
    return [f"  {part_of_speech(sense.part_of_speech)}: {sense.text} ({source_name(sense.source)})" for sense in senses]


def source_name(source: str) -> str:
    """A sense's source as the reader's language names it: WordNet's name stays, the project's glosses translate."""
    return _("the project's own glosses") if source == "own glosses" else source


def sense_row(sense: Any) -> dict[str, str]:
    """A sense as JSON: part of speech, text and the source it comes from (as the data names it)."""
    return {**sense.to_dict(), "source": sense.source}


@cli.command(help=_(
    "Judge WORDS: legal or not, with the reasons, score and sanity-check chance.\n"
    "\n"
    "Exit status 1 when any word is not legal. --define adds what each word means.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee check taps apts london\n"
    "    uw-referee check --define qat"))
@click.argument("words", nargs=-1, required=True, metavar=_("WORDS..."))
@level_option
@deck_option
@define_option
@json_option
@lang_option
@click.pass_obj
def check(obj: Obj, words: tuple[str, ...], level: str, deck_spec: str, define: bool, as_json: bool) -> None:
    """``check``: each word's verdict."""
    from dictionaries.verdict import judge

    deck = get_deck(deck_spec)
    verdicts = []
    for word in words:
        try:
            verdicts.append(judge(obj.dictionary, word, int(level), deck))
        except WordError as exc:
            raise_for(exc, _("WORD"))
    senses = [word_definitions(obj, v.word) for v in verdicts] if define else []
    if as_json:
        rows = [v.to_dict() for v in verdicts]
        for row, found in zip(rows, senses):
            row["definitions"] = [sense_row(sense) for sense in found]
        emit_json(rows)
    elif define:
        style = Style(use_color(sys.stdout))
        for verdict, found in zip(verdicts, senses):
            write([*check_lines([verdict], style), *definition_lines(verdict.word, found)])
    else:
        write(check_lines(verdicts, Style(use_color(sys.stdout))))
    if not all(v.legal for v in verdicts):
        sys.exit(1)


@cli.command(help=_(
    "What WORDS mean: a few senses per part of speech from WordNet 3.0, else the project's own glosses, for a "
    "disputed word; each sense names its source.\n"
    "\n"
    "An inflection reaches its lemma (TAPS gives the senses of TAP). Legal or not is 'check'. The "
    "definitions are in English.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee define qat taps"))
@click.argument("words", nargs=-1, required=True, metavar=_("WORDS..."))
@json_option
@lang_option
@click.pass_obj
def define(obj: Obj, words: tuple[str, ...], as_json: bool) -> None:
    """``define``: each word's senses (WordNet's, else the project's own glosses), each with its source."""
    from dictionaries.verdict import normalize_word

    keys = []
    for word in words:
        try:
            keys.append(normalize_word(word).upper())
        except WordError as exc:
            raise_for(exc, _("WORD"))
    found = [word_definitions(obj, key) for key in keys]
    if as_json:
        emit_json([{"word": key, "definitions": [sense_row(sense) for sense in senses]}
                   for key, senses in zip(keys, found)])
        return
    style = Style(use_color(sys.stdout))
    for key, senses in zip(keys, found):
        write([f"{style.bold(key)}:", *definition_lines(key, senses)])


@cli.command(help=_(
    "Score WORDS letter by letter: any letters, gibberish too (the Unspellable Oath needs it).\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee score champ xqzzt"))
@click.argument("words", nargs=-1, required=True, metavar=_("WORDS..."))
@deck_option
@json_option
@lang_option
def score(words: tuple[str, ...], deck_spec: str, as_json: bool) -> None:
    """``score``: each word's points."""
    from dictionaries.verdict import letters_of, normalize_word

    deck = get_deck(deck_spec)
    rows = []
    for word in words:
        try:
            key = normalize_word(word).upper()
        except WordError as exc:
            raise_for(exc, _("WORD"))
        letters = letters_of(key, deck)
        total = sum(p for _, p in letters)
        rows.append({"word": key, "score": total, "letters": [{"letter": c, "points": p} for c, p in letters]})
        if not as_json:
            click.echo(ngettext("{word}: {n} point ({letters})", "{word}: {n} points ({letters})", total).format(
                word=Style(use_color(sys.stdout)).bold(key), n=total, letters=letters_text(letters)))
    if as_json:
        emit_json(rows)


@cli.command(help=_(
    "Every legal word the LETTERS allow (a hand, or a discard for Spell Binding), best first.\n"
    "\n"
    "Best means the highest score, then the longer word, then alphabetical.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee words oofmakl --limit 5"))
@click.argument("letters", metavar=_("LETTERS"))
@level_option
@deck_option
@click.option("--limit", type=Number(min=1), metavar="N", default=None, help=_("Show at most this many words."))
@json_option
@lang_option
@click.pass_obj
def words(obj: Obj, letters: str, level: str, deck_spec: str, limit: int | None, as_json: bool) -> None:
    """``words``: the rack search."""
    deck = get_deck(deck_spec)
    try:
        # The same bound as the service's: a hand's letters, and only the ``limit`` best words built.
        shown, total = obj.dictionary.rack_search(letters, int(level), deck, limit)
    except WordError as exc:
        raise_for(exc, _("LETTERS"))
    if as_json:
        emit_json({"letters": letters.strip().upper(), "words": [w.to_dict() for w in shown]})
        return
    rack = letters.strip().upper()
    if not total:
        click.echo(_("No legal word at size {level} can be made from {letters}.").format(level=level, letters=rack))
        return
    if len(shown) < total:
        head = ngettext("{n} word from {letters} at size {level}, best first (showing {shown}):",
                        "{n} words from {letters} at size {level}, best first (showing {shown}):", total)
    else:
        head = ngettext("{n} word from {letters} at size {level}, best first:",
                        "{n} words from {letters} at size {level}, best first:", total)
    click.echo(head.format(n=total, letters=rack, level=level, shown=len(shown)))
    passes = _("passes {chance}%")
    for w in shown:
        click.echo(f"  {w.score:>3}  {w.word:<8} " + passes.format(chance=round(w.success_chance * 100)))


def main() -> None:
    """Entry point: no traceback reaches the table."""
    try:
        cli(prog_name="uw-referee")
    except DictionaryError as exc:  # met outside a command (Click's own handling)
        failure = failure_of(exc)
        assert failure is not None
        click_exception(failure).show()
        sys.exit(failure.exit_code)



if __name__ == "__main__":
    main()
