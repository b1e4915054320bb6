"""Translations: every message in the catalogs, the language chosen as documented, Spanish transcripts
without an English sentence, messages that stay translatable through the library."""
from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog

from dictionaries.i18n import (
    Message,
    best_language,
    choose_language,
    message_from_json,
    msg,
    nmsg,
    say,
    say_in,
    set_language,
    translations,
)
from tools import catalogs

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT / "tests" / "data" / "transcripts"
UW_REFEREE = str(Path(sys.executable).with_name("uw-referee"))


# -- the catalogs ------------------------------------------------------------------------------------

def test_every_message_of_the_code_is_translated_and_compiled(catalog_problems: list[str]) -> None:
    assert catalog_problems == []


def test_the_catalog_check_finds_missing_empty_fuzzy_and_mismatched_entries() -> None:
    template = Catalog()
    for text in ("Missing one.", "Empty one.", "Fuzzy one.", "{player} wins.", "Fine."):
        template.add(text, locations=[("x.py", 1)])
    catalog = Catalog(locale="es")
    catalog.add("Empty one.", "")
    catalog.add("Fuzzy one.", "Difusa.", flags=["fuzzy"])
    catalog.add("{player} wins.", "{jugador} gana.")
    catalog.add("Fine.", "Bien.")
    catalog.add("Gone from the code.", "Ya no está.")
    found = catalogs.catalog_problems(template, catalog)
    assert any("not in the catalog: 'Missing one.'" in p for p in found)
    assert any("not translated: 'Empty one.'" in p for p in found)
    assert any("fuzzy: 'Fuzzy one.'" in p for p in found)
    assert any("other fields than the message: '{player} wins.'" in p for p in found)
    assert any("not in the code" in p and "Gone from the code." in p for p in found)
    assert not any("'Fine.'" in p for p in found)


def test_the_compiled_catalogs_ship_in_the_package() -> None:
    import tomllib

    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package in ("dictionaries", "referee", "referee.board", "service", "unspeakable_words"):
        assert "locale/*/LC_MESSAGES/*.mo" in package_data[package]
    assert "RULES.*.txt" in package_data["referee"]


# -- untranslated English in the Spanish transcripts ---------------------------------------------------

def english_patterns() -> list[tuple[str, str, re.Pattern[str]]]:
    """Each English message whose Spanish differs, as a pattern that finds it inside a line (its
    fields match anything), with the pattern's longest piece of text (a line without it cannot match);
    messages of fewer than 8 letters outside their fields are left out."""
    es = translations("es")
    patterns = []
    for domain, _ in catalogs.DOMAINS:
        for message in catalogs.template(domain):
            if not message.id:
                continue
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            for text in ids:
                translated = es.gettext(text) if isinstance(message.id, str) else es.ngettext(ids[0], ids[1], 1 if text == ids[0] else 2)
                literal = re.sub(r"\{[^{}]*\}", "", text)
                if translated == text or sum(c.isalpha() for c in literal) < 8:
                    continue
                for line in text.splitlines():
                    parts = re.split(r"\{[^{}]*\}|%\([a-z_]+\)s|%s|%d", line.strip())
                    if sum(c.isalpha() for c in "".join(parts)) < 8:
                        continue
                    patterns.append((line, max(parts, key=len), re.compile(".+?".join(re.escape(p) for p in parts))))
    return patterns


def english_lines(text: str, patterns: list[tuple[str, str, re.Pattern[str]]]) -> list[tuple[str, str]]:
    """The lines of a transcript that hold an English message (the commands typed are not checked)."""
    found = []
    for line in text.splitlines():
        if line.startswith("$ uw-referee") or re.fullmatch(r"\[exit \d\]", line):
            continue
        for message, piece, pattern in patterns:
            if piece in line and pattern.search(line):
                found.append((line, message))
                break
    return found


@pytest.fixture(scope="module")
def patterns() -> list[tuple[str, str, re.Pattern[str]]]:
    return english_patterns()


@pytest.mark.parametrize("name", sorted(p.stem for p in TRANSCRIPTS.glob("es_*.golden")))
def test_the_spanish_transcripts_hold_no_english_message(name: str, patterns: list[Any]) -> None:
    text = (TRANSCRIPTS / f"{name}.golden").read_text()
    assert english_lines(text, patterns) == []


def test_the_english_check_finds_english_lines(patterns: list[Any]) -> None:
    text = (TRANSCRIPTS / "table.golden").read_text()
    found = english_lines(text, patterns)
    assert len(found) > 20
    assert any("sanity check" in line for line, _ in found)


def test_there_are_spanish_transcripts_of_both_faces() -> None:
    assert (TRANSCRIPTS / "es_game.golden").exists() and (TRANSCRIPTS / "es_table.golden").exists()
    game = (TRANSCRIPTS / "es_game.commands").read_text()
    for option in ("--oath", "--spell-binding", "--psychotherapy", "--last-words"):
        assert option in game
    assert "\ntable\n" in (TRANSCRIPTS / "es_table.commands").read_text()


# -- messages -----------------------------------------------------------------------------------------

def test_a_message_is_its_english_sentence_and_stays_translatable() -> None:
    note = nmsg("{player} draws {n} card.", "{player} draws {n} cards.", 3, player="Ana")
    assert note == "Ana draws 3 cards." and isinstance(note, str)
    assert json.dumps({"note": note}) == '{"note": "Ana draws 3 cards."}'
    again = pickle.loads(pickle.dumps(note))
    assert isinstance(again, Message) and again.params == note.params
    stored = message_from_json(json.loads(json.dumps(note.to_json())))
    assert stored == note and say_in(stored, "es") == say_in(note, "es")
    assert say_in(note, "es") == "Ana roba 3 cartas."
    assert say_in(nmsg("{player} draws {n} card.", "{player} draws {n} cards.", 1, player="Ana"), "es") == "Ana roba 1 carta."


def test_nested_messages_are_translated_whole() -> None:
    from referee.words import reasons_words

    refusal = msg("{word} is not allowed: it is {reasons}", word="LONDON", reasons=reasons_words(["proper_noun"]))
    assert refusal == "LONDON is not allowed: it is a proper noun"
    spanish = say_in(refusal, "es")
    assert "LONDON" in spanish and "nombre propio" in spanish and "proper" not in spanish


def test_say_follows_the_language_in_use() -> None:
    note = msg("Waiting for the roll-off.")
    assert say(note) == "Waiting for the roll-off."
    set_language("es")
    assert say(note) != "Waiting for the roll-off." and say("CHAMP") == "CHAMP"
    set_language("en")
    assert say(note) == "Waiting for the roll-off."


def test_an_old_view_without_a_message_is_not_a_message() -> None:
    assert message_from_json(None) is None
    assert message_from_json({"message": 3}) is None
    assert message_from_json({"message": "{a}", "params": {}}) is None  # a field without a value


# -- choosing the language ------------------------------------------------------------------------------

@pytest.mark.parametrize("option, environ, expected", [
    ("es", {"UW_LANG": "en", "LANG": "en_US.UTF-8"}, "es"),
    ("en", {"UW_LANG": "es"}, "en"),
    (None, {"UW_LANG": "es", "LANG": "en_US.UTF-8"}, "es"),
    (None, {"UW_LANG": "", "LC_ALL": "es_MX.UTF-8", "LANG": "en_US"}, "es"),
    (None, {"LC_MESSAGES": "es_ES", "LANG": "en_US"}, "es"),
    (None, {"LC_ALL": "en_GB.UTF-8", "LC_MESSAGES": "es_ES"}, "en"),
    (None, {"LANG": "es_AR.UTF-8"}, "es"),
    (None, {"LANG": "fr_FR.UTF-8"}, "en"),
    (None, {"LANG": "C.UTF-8"}, "en"),
    (None, {}, "en"),
])
def test_the_language_is_the_option_then_uw_lang_then_the_locale(option: str | None, environ: dict[str, Any], expected: str) -> None:
    assert choose_language(option, environ) == expected


@pytest.mark.parametrize("header, expected", [
    ("es-ES,es;q=0.9,en;q=0.8", "es"), ("en-US,en;q=0.9,es;q=0.8", "en"), ("fr-FR, fr;q=0.9, es;q=0.8", "es"),
    ("de", "en"), ("", "en"), (None, "en"), ("es;q=0", "en"), ("*", "en"), ("es;q=abc, en;q=0.5", "en"),
    ("es;Q=0.5, en;Q=0.9", "en"), ("en;Q=0.1, es", "es"),
])
def test_accept_language_picks_the_best_language_on_offer(header: str | None, expected: str) -> None:
    assert best_language(header) == expected


def run_referee(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("UW_LANG", "LANG", "LC_ALL", "LC_MESSAGES")}
    environ.update(UW_REFEREE_DB=str(tmp_path / "games.sqlite3"), NO_COLOR="1", **env)
    return subprocess.run([UW_REFEREE, *args], capture_output=True, text=True, env=environ, timeout=60)


@pytest.mark.slow
@pytest.mark.parametrize("args, env", [
    (["--lang", "es", "check", "london"], {}),
    (["check", "london", "--lang", "es"], {}),
    (["check", "--lang=es", "london"], {}),
    (["check", "london"], {"UW_LANG": "es"}),
    (["check", "london"], {"LANG": "es_ES.UTF-8"}),
    (["check", "--define", "london"], {"LC_ALL": "es_ES.UTF-8", "LANG": "en_US.UTF-8"}),
])
def test_the_cli_speaks_spanish_however_it_is_asked(args: list[str], env: dict[str, Any], tmp_path: Path) -> None:
    result = run_referee(args, tmp_path, **env)
    assert result.returncode == 1
    assert "LONDON: no" in result.stdout and "nombre propio" in result.stdout


@pytest.mark.slow
def test_the_option_wins_over_the_environment(tmp_path: Path) -> None:
    english = run_referee(["--lang", "en", "check", "london"], tmp_path, UW_LANG="es", LANG="es_ES.UTF-8")
    assert "LONDON: not legal" in english.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args", [["paly"], ["new"], ["play", "--roll", "30", "champ"], ["status", "--bogus"]])
def test_clicks_own_usage_errors_speak_spanish(args: list[str], tmp_path: Path) -> None:
    result = run_referee(["--lang", "es", *args], tmp_path)
    assert result.returncode == 2
    assert "Usage:" not in result.stderr and "Error:" in result.stderr
    assert "Uso:" in result.stderr or "Prueba" in result.stderr or "uw-referee --help" in result.stderr
    english = run_referee(args, tmp_path)
    assert english.stderr != result.stderr


@pytest.mark.slow
def test_help_is_in_spanish_before_or_after_the_command(tmp_path: Path) -> None:
    root = run_referee(["--lang", "es", "--help"], tmp_path)
    sub = run_referee(["play", "--help", "--lang", "es"], tmp_path)
    assert root.returncode == 0 and sub.returncode == 0
    assert "Opciones:" in root.stdout and "Uso:" in sub.stdout
    assert "Show this message and exit." not in root.stdout + sub.stdout
    assert "--lang" in root.stdout


@pytest.mark.slow
def test_an_unknown_language_is_a_usage_error(tmp_path: Path) -> None:
    result = run_referee(["--lang", "fr", "check", "taps"], tmp_path)
    assert result.returncode == 2 and "--lang" in result.stderr


@pytest.mark.slow
def test_the_rules_in_spanish_hold_every_rule_and_ruling(tmp_path: Path) -> None:
    spanish = run_referee(["--lang", "es", "rules"], tmp_path)
    english = run_referee(["rules"], tmp_path)
    assert spanish.returncode == 0 and english.returncode == 0
    assert spanish.stdout == (ROOT / "referee" / "RULES.es.txt").read_text(encoding="utf-8")
    for term in ("prueba de cordura", "peones", "pila de robo", "pila de descarte", "El juramento indescriptible",
                 "Hechizo", "Psicoterapia", "Últimas palabras", "--lang es", "UW_LANG"):
        assert term in spanish.stdout, term
    # the same rulings: every one of the English text's rulings has its Spanish counterpart
    assert english.stdout.count("Ruling") == spanish.stdout.count("Decisión")
    for number in re.findall(r"\b\d+\b", english.stdout):
        assert number in spanish.stdout, number


@pytest.mark.slow
def test_the_quick_path_speaks_spanish_too(tmp_path: Path) -> None:
    assert run_referee(["new", "Ana", "Beto", "--first", "Ana"], tmp_path).returncode == 0
    status = run_referee(["--lang", "es", "status"], tmp_path)
    play = run_referee(["play", "champ", "--roll", "16", "--lang", "es"], tmp_path)
    games = run_referee(["games"], tmp_path, UW_LANG="es")
    assert "Turno de Beto" in play.stdout or "Beto" in play.stdout
    for out in (status.stdout, play.stdout, games.stdout):
        assert out and "turn" not in out.lower().replace("turno", "")


# -- English words and typography inside translated messages (issue 20) ------------------------------

#: The English placeholders of the help (metavars) and the table's English command words: neither may be
#: left inside a translation, except a shell command (``uw-referee status``, shell commands stay English).
ENGLISH_PLACEHOLDERS = ("WORDS", "WORD", "LETTERS", "NAMES", "NAME", "VALUE", "ACTIONS", "ACTION", "PATH", "FILE")
ENGLISH_COMMANDS = ("discard", "undo", "redo", "status", "amend", "leave", "help", "quit", "pass", "done", "roll",
                    "play", "bind", "check", "rack", "define", "log", "games", "export", "rules", "table", "board",
                    "verify")
_COMMANDS = "|".join(ENGLISH_COMMANDS)
_SHELL = re.compile(r"(?:uw-referee|\{referee\})(?: --?[\w-]+(?: [\w{}-]+)?)*(?: (?:" + _COMMANDS + r")(?:, (?:" + _COMMANDS + r"))*)?")


def english_words(text: str) -> list[str]:
    """The English placeholders and command words in a translated message (shell commands, --options and
    {fields} left out)."""
    text = _SHELL.sub("", text)
    text = re.sub(r"\{[^{}]*\}|%\([a-z_]+\)s|--[\w-]+", "", text)
    found = re.findall(r"\b(" + "|".join(ENGLISH_PLACEHOLDERS) + r")\b", text)
    found += re.findall(r"\b(" + _COMMANDS + r")\b", text)
    return found


def typography_problems(text: str) -> list[str]:
    """Spanish (and French) typography a translation must keep: no line break allowed before % (a no-break
    space), and an article in lower case in the middle of a sentence."""
    found = []
    if re.search(r"[\d}s] %(?!\()", text):  # "50 %", "{chance} %", "%(chance)s %%": a breakable space
        found.append("a breakable space before %")
    for article in re.findall(r"(?:\(|[a-záéíóúñ,;] )(El|La|Los|Las|Un|Una) ", text):
        found.append(f"{article!r} in capitals mid-sentence")
    return found


def spanish_entries() -> list[tuple[str, str, str]]:
    """(domain, message, translation) for every Spanish entry of every catalog."""
    entries = []
    for domain, _ in catalogs.DOMAINS:
        catalog = catalogs.read(catalogs.po_path(domain, "es"), "es")
        for message in catalog:
            if not message.id:
                continue
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
            entries += [(domain, ids[0], text) for text in strings if text]
    return entries


def test_english_words_and_typography_checks_find_what_they_look_for() -> None:
    assert english_words("Juzga WORDS: si son válidas") == ["WORDS"]
    assert english_words("(por ejemplo: discard OCLNUSM)") == ["discard"]
    assert english_words("las últimas ACTIONS acciones") == ["ACTIONS"]
    assert english_words("Para seguir: 'uw-referee --game {game} table'; o uw-referee play, roll, discard...") == []
    assert english_words("(--first NOMBRE)") == []
    assert typography_problems("supera la prueba el {chance} % de las veces") == ["a breakable space before %"]
    assert typography_problems("supera la prueba el {chance}\u00a0% de las veces") == []
    assert typography_problems("ZXQ por 8 puntos (El juramento indescriptible).") == ["'El' in capitals mid-sentence"]
    assert typography_problems("Le toca a Ana. El juramento indescriptible: vale.") == []


@pytest.mark.parametrize("domain", ["referee", "click"])  # the service's API names (define=true) stay English
def test_no_english_placeholder_or_command_word_in_the_referee_s_spanish(domain: str) -> None:
    found = [(message[:60], text[:120], english_words(text)) for d, message, text in spanish_entries()
             if d == domain and english_words(text)]
    assert found == []


@pytest.mark.parametrize("domain", [d for d, _ in catalogs.DOMAINS])
def test_spanish_typography_in_the_catalog(domain: str) -> None:
    found = [(message[:60], text[:120], typography_problems(text)) for d, message, text in spanish_entries()
             if d == domain and typography_problems(text)]
    assert found == []
