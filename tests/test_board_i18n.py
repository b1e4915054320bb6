"""The board and the judge in Spanish (issue 12): the language each request gets (``?lang=``, the
cookie the switch sets, ``Accept-Language``, English), the pages, streams and JSON in it, and the
board's catalog (complete, compiled, its placeholders kept). The switch in a real browser is in
test_board_browser.py. About 500 lines: every page, stream and error of the board, each in Spanish."""
from __future__ import annotations

import html
import json
import re
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from board_support import client_for
from cli_support import run
from click.testing import CliRunner

from dictionaries.i18n import language
from referee.board.language import COOKIE
from referee.cli import cli

ROOT = Path(__file__).resolve().parent.parent
BOARD_PO = ROOT / "referee" / "board" / "locale" / "es" / "LC_MESSAGES" / "board.po"
SPANISH = {"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}


@pytest.fixture
def db(db: Path) -> Path:
    path = db
    run(path, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", "--spell-binding", "--last-words", check=True)
    run(path, "play", "look", "--roll", "7", check=True)
    run(path, "play", "champ", "--roll", "3", check=True)
    return path


# -- what a person reads: the page's text, without what is English by nature ---------------------

class _Reader(HTMLParser):
    """The text a person meets on a page: its text and the labels a screen reader says (aria-label,
    the connection states board.js shows), leaving out what is marked English on purpose (``lang="en"``:
    the words played, WordNet's glosses, the switch's "English"), code (a path, a command) and scripts."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[bool] = []  # for each open element: is it (or an ancestor) left out?

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        skipped = ((bool(self.stack) and self.stack[-1]) or found.get("lang") == "en"
                   or tag in ("script", "style", "code"))
        if not skipped:
            for name in ("aria-label", "data-live-text", "data-lost-text", "title", "placeholder"):
                if found.get(name):
                    self.parts.append(found[name] or "")
        if tag not in self.VOID:
            self.stack.append(skipped)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]) and data.strip():
            self.parts.append(data.strip())


def readable(page: str) -> list[str]:
    reader = _Reader()
    reader.feed(page)
    return reader.parts


#: Every Spanish catalog: the board's, and the library's whose sentences the board shows.
ALL_PO = sorted(ROOT.glob("*/locale/es/LC_MESSAGES/*.po")) + sorted(ROOT.glob("*/*/locale/es/LC_MESSAGES/*.po"))


def _messages(path: Path) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """(English forms, Spanish forms) of every message of a Spanish catalog, singular and plural."""
    with path.open("rb") as f:
        catalog = read_po(f, locale="es")
    return [(m.id if isinstance(m.id, tuple) else (m.id,), m.string if isinstance(m.string, tuple) else (m.string,))
            for m in catalog if m.id]


def _english_msgids(paths: tuple[Path, ...] = (BOARD_PO,)) -> list[str]:
    """The English of every message of the catalogs whose Spanish differs (a word the same in both,
    such as "Error", is no sign of English), singular and plural."""
    return [i for path in paths for ids, strings in _messages(path) for i in ids if i not in strings]


def english_fragments(paths: tuple[Path, ...] = (BOARD_PO,)) -> tuple[set[str], set[str]]:
    """The literal pieces of the catalogs' English messages between their placeholders and tags: pieces
    of two words or more are looked for anywhere; a one-word message only as a whole text."""
    phrases, words = set(), set()
    for text in _english_msgids(paths):
        pieces = re.split(r"%\([a-z_]+\)s|%[sd]|\{[^{}]*\}|<[^>]+>|%%|\n", text)
        for piece in pieces:
            piece = piece.strip(" :;,.()/!?'\"")
            if "uw-referee" in piece or piece.startswith("-"):
                continue  # a command, the same in every language
            if len(piece.split()) >= 2:
                phrases.add(piece)
            elif piece and len(pieces) == 1:
                words.add(piece)
    return phrases, words


#: Words of English that Spanish never writes: one of them in a Spanish page's own text is English left over.
ENGLISH_ONLY = {"the", "and", "of", "to", "is", "for", "with", "game", "games", "points", "point", "turn", "plays",
                "rolls", "wins", "won", "pawns", "pawn", "cards", "card", "yet", "none", "judge", "word", "words",
                "deck", "dice", "board", "live", "players", "draw", "discard", "pile", "target", "legal",
                "already", "used", "this", "there", "which", "what", "means", "only", "first", "over", "play",
                "waiting", "roll", "sanity", "check", "passes", "their", "left", "out", "winner", "state"}


def assert_no_english(page: str, where: str, paths: tuple[Path, ...] = (BOARD_PO,)) -> None:
    """No sentence of the catalogs at ``paths`` in English, and no English-only word, in what a person
    reads (text the library said, marked ⟦…⟧ by ``library_marked``, is left out)."""
    parts = [re.sub(r"⟦[^⟧]*⟧", " ", p).replace("Unspeakable Words", "") for p in readable(page)]  # the game's name
    parts = [re.sub(r"(?<![\w/])/[\w./-]+", " ", p) for p in parts]  # a file's path (a game's database)
    text = " ".join(parts)
    phrases, words = english_fragments(paths)
    left = sorted(p for p in phrases if p in text) + sorted(p for p in parts if p.strip() in words)
    assert not left, f"{where}: English left on the Spanish page: {left}"
    english = sorted({w for w in re.findall(r"[A-Za-z']+", text) if w.lower() in ENGLISH_ONLY
                      and not w.isupper()})  # a word played is in capitals (TAPS)
    assert not english, f"{where}: English words on the Spanish page: {english}"


@pytest.fixture
def library_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sentence the board takes from the library (the engine's notes and waiting text, verdict
    reasons, word and store errors) comes out as ⟦sentence⟧: what is not marked is the board's own."""
    from referee.board import app as app_module
    from referee.board import source, views, wording

    def mark(text: str) -> str:
        return f"⟦{text}⟧"

    for module in (source, views, app_module, wording):
        monkeypatch.setattr(module, "say", mark)


# -- choosing the language ------------------------------------------------------------------------

def test_english_by_default(db: Path) -> None:
    page = client_for(db).get("/")
    body = page.get_data(as_text=True)
    assert page.headers["Content-Language"] == "en" and '<html lang="en">' in body
    assert {"Accept-Language", "Cookie"} <= set(page.vary)
    assert "Sue&#39;s turn" in body and "Draw pile" in body and COOKIE not in page.headers.get("Set-Cookie", "")


@pytest.mark.parametrize(("header", "expected"), [
    ("es", "es"), ("es-MX", "es"), ("es-ES,es;q=0.9,en;q=0.8", "es"), ("fr-FR,fr;q=0.9,es;q=0.5", "es"),
    ("fr", "en"), ("en-GB,en;q=0.9,es;q=0.8", "en"), ("", "en"), ("*", "en"), ("es;q=0", "en"),
])
def test_accept_language_chooses(db: Path, header: str, expected: str) -> None:
    page = client_for(db).get("/", headers={"Accept-Language": header})
    assert page.headers["Content-Language"] == expected
    assert f'<html lang="{expected}">' in page.get_data(as_text=True)


def test_the_board_page_in_spanish(db: Path) -> None:
    body = client_for(db).get("/", headers=SPANISH).get_data(as_text=True)
    for fact in ("Partida 1", "Le toca", "Pila de robo", "Pila de descarte", "Meta", "100 puntos", "4 peones",
                 "5 peones", "Reglas opcionales", "Hechizo, Últimas palabras", "Mazo",
                 "estándar (96 cartas)", "Dado", "físico", "Últimas jugadas", "Palabras usadas", "Conectando…",
                 'data-live-text="En directo"', 'data-lost-text="Reconectando…"', "Saltar al contenido",
                 "<title>Partida 1: Cindi, Paul, Sue · Unspeakable Words</title>"):
        assert fact in body, fact
    assert "Draw pile" not in body and "Their turn" not in body


def test_lang_in_the_address_wins_and_is_remembered(db: Path) -> None:
    client = client_for(db)
    page = client.get("/?lang=es", headers={"Accept-Language": "en"})
    assert page.headers["Content-Language"] == "es" and "Le toca" in page.get_data(as_text=True)
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}=es;") and "SameSite=Lax" in cookie and "HttpOnly" in cookie
    later = client.get("/games", headers={"Accept-Language": "en"})  # no ?lang=: the cookie
    assert later.headers["Content-Language"] == "es" and "Partidas" in later.get_data(as_text=True)
    assert "Set-Cookie" not in later.headers  # nothing new to remember
    back = client.get("/judge?lang=en", headers={"Accept-Language": "es"})
    assert back.headers["Content-Language"] == "en" and back.headers["Set-Cookie"].startswith(f"{COOKIE}=en;")
    assert client.get("/", headers={"Accept-Language": "es"}).headers["Content-Language"] == "en"


def test_an_unknown_lang_is_ignored(db: Path) -> None:
    client = client_for(db)
    page = client.get("/?lang=fr", headers=SPANISH)
    assert page.headers["Content-Language"] == "es" and "Set-Cookie" not in page.headers
    client.set_cookie(COOKIE, "xx")
    assert client.get("/", headers=SPANISH).headers["Content-Language"] == "es"


def test_streams_and_json_do_not_set_the_cookie(db: Path) -> None:
    client = client_for(db)
    api = client.get("/api/games/1?lang=es")
    assert api.headers["Content-Language"] == "es" and "Set-Cookie" not in api.headers
    stream = client.get("/events?lang=es", buffered=False)
    assert stream.headers["Content-Language"] == "es" and "Set-Cookie" not in stream.headers
    assert {"Accept-Language", "Cookie"} <= set(stream.vary)
    stream.close()


def test_static_files_do_not_vary_by_language(db: Path) -> None:
    css = client_for(db).get("/static/board.css", headers=SPANISH)
    assert "Content-Language" not in css.headers and "Accept-Language" not in css.headers.get("Vary", "")
    css.close()


def test_the_language_does_not_outlive_its_request(db: Path) -> None:
    assert language() == "en"
    client_for(db).get("/?lang=es")
    client_for(db).get("/nope", headers=SPANISH)  # an error page too
    assert language() == "en"


def test_the_switch_keeps_the_page_and_its_parameters(db: Path) -> None:
    body = client_for(db).get("/judge?words=taps+look&game=1&lang=es").get_data(as_text=True)
    switch = body[body.index('<nav class="languages"'):]
    switch = switch[:switch.index("</nav>")]
    assert 'aria-label="Idioma"' in switch
    links = re.findall(r'<a href="([^"]+)" lang="(\w+)" hreflang="\w+"( aria-current="true")?>([^<]+)</a>', switch)
    assert [(html.unescape(h), lang, bool(cur), name) for h, lang, cur, name in links] == [
        ("?words=taps+look&game=1&lang=en", "en", False, "English"),
        ("?words=taps+look&game=1&lang=es", "es", True, "Español"),
    ]
    # A query alone: the browser keeps the page's own path, whatever was typed (never a path off the board).
    assert 'href="?lang=en"' in client_for(db).get("/games/1?x=1").get_data(as_text=True)


# -- the pages in Spanish -------------------------------------------------------------------------

@pytest.mark.usefixtures("library_marked")
def test_no_english_on_the_spanish_board(db: Path) -> None:
    client = client_for(db)
    assert_no_english(client.get("/", headers=SPANISH).get_data(as_text=True), "the board")
    run(db, "leave", "Paul", check=True)
    run(db, "play", "taps", input="\n", check=True)  # Sue's sanity roll is awaited: the board says it in its own words
    body = client.get("/?lang=es").get_data(as_text=True)
    assert "Sue tira por TAPS: un 10 o más supera la prueba." in body and "Ha dejado la partida" in body
    assert_no_english(body, "the board waiting for a roll")
    assert_no_english(client.get("/games?lang=es").get_data(as_text=True), "the list of games")


@pytest.mark.usefixtures("library_marked")
def test_no_english_on_a_finished_game(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    run(db, "new", "Ana", "Ben", "--first", "Ana", "--target", "5", "--oath", "--psychotherapy", check=True)
    run(db, "play", "champ", "--roll", "19", check=True)
    body = client_for(db).get("/?lang=es").get_data(as_text=True)
    assert "Ana gana con 15 puntos al alcanzar la meta de 5." in body and "Gana la partida" in body
    assert "El juramento indescriptible, Psicoterapia" in body and "5 puntos" in body
    assert_no_english(body, "a finished game")
    games = client_for(db).get("/games?lang=es").get_data(as_text=True)
    assert "terminada: ha ganado Ana" in games
    assert re.search(r"<td>\d\d/\d\d/20\d\d \d\d:\d\d UTC</td>", games)  # day/month/year


@pytest.mark.usefixtures("library_marked")
def test_no_english_on_the_spanish_judge(db: Path) -> None:
    client = client_for(db)
    page = client.get("/judge?words=taps+apts+look+xqzt+h%C3%B6%24e&lang=es")
    assert page.status_code == 400  # a word that cannot be judged
    body = page.get_data(as_text=True)
    for fact in ("Juzgar una palabra", "Veredictos", "Se juzga para la partida 1: tamaño de diccionario 60, mazo estándar",
                 '<strong class="yes">válida</strong>', '<strong class="no">no válida</strong>',
                 "ya se ha usado en esta partida", "10 puntos:", "La prueba de cordura se supera el 55\u00a0% de las veces.",
                 "<i>verbo</i>", '<span lang="en">strike lightly</span>', "WordNet no tiene ninguna definición de XQZT.",
                 "no se puede juzgar", "⟦APTS is an abbreviation", "Qué significa TAPS según WordNet (en inglés):"):
        assert fact in body, fact
    assert_no_english(body, "the judge")
    empty = client_for(ROOT / "no-such-dir" / "none.sqlite3").get("/judge?words=zygote&lang=es")
    assert "No hay ninguna partida en curso: se juzga con el tamaño de diccionario 60 y el mazo estándar." in \
        empty.get_data(as_text=True)
    assert_no_english(client.get("/judge?lang=es").get_data(as_text=True), "the empty judge")
    many = client.get("/judge?lang=es&words=" + "+".join(["taps"] * 25)).get_data(as_text=True)
    assert "Solo se han juzgado las 20 primeras palabras." in many


@pytest.mark.parametrize("path", ["/games/7", "/nope", "/games/99999999999999999999999", "/judge?words=taps&game=x"])
@pytest.mark.usefixtures("library_marked")
def test_no_english_on_spanish_error_pages(db: Path, path: str) -> None:
    page = client_for(db).get(path, headers=SPANISH)
    assert page.status_code == 404 and page.headers["Content-Language"] == "es"
    body = page.get_data(as_text=True)
    assert "No se ha encontrado" in body and "Mira todas las partidas" in body
    assert_no_english(body, path)


def test_the_boards_own_errors_in_spanish(db: Path) -> None:
    client = client_for(db)
    assert "Esa página no existe en el tablero." in client.get("/nope?lang=es").get_data(as_text=True)
    assert "No hay ninguna partida 99999999999999999999999." in client.get(
        "/games/99999999999999999999999?lang=es").get_data(as_text=True)
    problem = client.get("/api/games/99999999999999999999999", headers=SPANISH)
    assert problem.mimetype == "application/problem+json" and problem.headers["Content-Language"] == "es"
    assert problem.get_json()["title"] == "No se ha encontrado"
    assert problem.get_json()["detail"] == "No hay ninguna partida 99999999999999999999999."
    posted = client.post("/?lang=es")
    assert posted.status_code == 405 and "no acepta peticiones POST" in posted.get_data(as_text=True)


@pytest.mark.usefixtures("library_marked")
def test_library_sentences_reach_the_page_through_say(db: Path) -> None:
    """The engine's notes and waiting text, the verdicts' reasons and the store's and words' errors
    are said in the page's language (today English: the library's catalogs come with the engine)."""
    client = client_for(db)
    body = html.unescape(client.get("/?lang=es").get_data(as_text=True))
    assert "⟦Sue's turn: play a word or discard the hand.⟧" in body
    assert "⟦Paul plays CHAMP for 15 points.⟧ ⟦Paul rolls 3" in body
    judge = html.unescape(client.get("/judge?words=apts+h%C3%B6%24e&lang=es").get_data(as_text=True))
    assert "<li>⟦APTS is an abbreviation (SCOWL size 10)⟧</li>" in judge and "⟦" in judge.split("no se puede juzgar")[1]
    missing = html.unescape(client.get("/games/7?lang=es").get_data(as_text=True))
    assert "<p>⟦there is no game 7" in missing
    data = client.get("/api/games/1?lang=es").get_json()
    assert all(line.startswith("⟦") for line in data["recent"]) and data["waiting_for"].startswith("⟦Sue's turn")
    assert data["turn"] == "Sue" and data["phase"] == "action"  # codes and names stay as they are


# -- live updates in the page's language ----------------------------------------------------------

def _next_event(chunks: Iterator[bytes]) -> dict[str, str]:
    while True:
        chunk = next(chunks).decode()
        if "data: " in chunk:  # (after its "id: " line)
            payload: dict[str, str] = json.loads(chunk.split("data: ", 1)[1])
            return payload


def test_the_stream_speaks_its_pages_language(db: Path) -> None:
    client = client_for(db, BOARD_KEEPALIVE_SECONDS=5)
    spanish = client.get("/events?lang=es", buffered=False)
    english = client.get("/events", headers={"Accept-Language": "en"}, buffered=False)
    es_chunks, en_chunks = iter(spanish.response), iter(english.response)
    first_es, first_en = _next_event(es_chunks), _next_event(en_chunks)
    assert "Pila de robo" in first_es["html"] and first_es["title"] == "Partida 1: Cindi, Paul, Sue"
    assert "Draw pile" in first_en["html"] and first_en["title"] == "Game 1: Cindi, Paul, Sue"
    threading.Timer(0.3, lambda: run(db, "play", "taps", input="\n", check=True)).start()
    update_es, update_en = _next_event(es_chunks), _next_event(en_chunks)  # how soon: benchmarks/bench_board.py
    assert "Sue tira por TAPS: un 10 o más supera la prueba." in update_es["html"]
    assert update_es["announce"].endswith("Sue tira por TAPS: un 10 o más supera la prueba.")
    assert "Sue rolls for TAPS: 10 or more passes." in update_en["html"]
    assert language() == "en"  # a stream's language stays in its renders
    spanish.close()
    english.close()


def test_streams_share_one_render_per_game_and_language(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import views

    renders: list[str] = []
    real = views.render_board
    def render_board(shown: Any) -> Any:
        renders.append(language())
        return real(shown)

    monkeypatch.setattr(views, "render_board", render_board)
    client = client_for(db)
    streams = [client.get(f"/events?lang={lang}", buffered=False) for lang in ("es", "en", "es", "en", "es")]
    for response in streams:
        chunks = iter(response.response)
        next(chunks)
        assert b"\ndata: " in next(chunks)
    assert sorted(renders) == ["en", "es"]
    for response in streams:
        response.close()


# -- the catalog ----------------------------------------------------------------------------------

def test_the_board_catalog_is_complete_and_compiled(catalog_problems: list[str]) -> None:
    """Every message of the board's code and templates is in board.po, translated, not fuzzy, and
    board.mo is compiled from it (``python tools/catalogs.py update`` / ``compile``)."""
    problems = [p for p in catalog_problems if "referee/board/" in p]
    assert problems == []


def _placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"%\([a-z_]+\)s|\{[a-z_]+\}|%%|<[a-z]+[^>]*>|</[a-z]+>", text))


def test_the_spanish_keeps_every_placeholder_and_tag() -> None:
    for ids, strings in _messages(BOARD_PO):
        wanted = _placeholders(ids[-1])
        for s in strings:
            got = _placeholders(s)
            # a singular may leave out its count ("Solo se ha juzgado la primera palabra.")
            assert got == wanted or (len(ids) == 2 and set(got) <= set(wanted)), (ids, s)


# -- the board command ----------------------------------------------------------------------------

def test_the_board_command_says_its_errors_in_spanish(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for args in (["--lang", "es", "board"], ["board", "--lang", "es"]):
            result = CliRunner().invoke(cli, [*args, "--db", str(tmp_path / "g.sqlite3"), "--port", str(port)])
            assert result.exit_code == 1
            assert result.output.strip() == (f"Error: el puerto {port} de 127.0.0.1 ya está en uso: "
                                             "elige otro con --port")
    host = CliRunner().invoke(cli, ["board", "--lang", "es", "--host", "no.such.host.invalid"])
    assert host.exit_code == 2 and "no es una dirección de esta máquina" in host.output


def test_the_board_commands_help_in_spanish(tmp_path: Path) -> None:
    """Help texts are said when the command's module is imported: ``uw-referee`` chooses the language first."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", "from referee.quick import main; main()", "--lang", "es", "board",
                           "--help"], capture_output=True, text=True, timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin", "UW_LANG": "en", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    assert "Sirve el tablero en directo" in flat and "Nadie puede cambiar una partida desde el tablero." in flat
    assert "Ejemplo: uw-referee board --host 0.0.0.0" in flat and "Port to listen on" not in flat


@pytest.mark.slow
def test_the_served_board_speaks_spanish_in_the_terminal_and_follows_each_browser(db: Path) -> None:
    import urllib.request

    from board_support import Board

    board = Board(db, "--lang", "es")
    try:
        english = urllib.request.urlopen(board.url + "/", timeout=10)
        assert english.headers["Content-Language"] == "en"  # the pages follow the browser, not the terminal
        request = urllib.request.Request(board.url + "/", headers=SPANISH)
        spanish = urllib.request.urlopen(request, timeout=10)
        assert spanish.headers["Content-Language"] == "es" and "Le toca" in spanish.read().decode()
    finally:
        code, out, err = board.stop()
    assert code == 0 and "Traceback" not in err
    assert f"El tablero de {db} está en {board.url}/  (el juez: {board.url}/judge)" in out
    assert "Solo esta máquina puede abrirlo" in out and "El tablero se ha detenido." in out


# -- with the library's catalogs: a whole game on the Spanish board -------------------------------

def test_a_whole_game_on_the_spanish_board_meets_no_english_message(tmp_path: Path) -> None:
    """Every optional rule, refusals, a word the judge turns down, the end: after every command the
    Spanish board (and the judge, the list, an error page) holds no message of any catalog in English
    (the engine's notes and waiting text, the reasons, the store's errors come in Spanish too)."""
    import shlex

    db = tmp_path / "g.sqlite3"
    script = (ROOT / "tests" / "data" / "transcripts" / "es_game.commands").read_text()
    commands = [line for line in script.splitlines() if line and not line.startswith("#")
                and line.split()[0] not in ("check", "status", "log")]
    assert len(commands) > 20
    client = client_for(db)
    seen = set()
    for command in commands:
        CliRunner().invoke(cli, ["--db", str(db), *shlex.split(command)])  # a refusal is part of the game
        page = client.get("/?lang=es").get_data(as_text=True)
        assert_no_english(page, f"the board after {command!r}", tuple(ALL_PO))
        seen.add(re.search(r'id="waiting">([^<]*)<', page).group(1))  # type: ignore[union-attr]  # every page has the waiting line (the test fails otherwise)
    assert len(seen) > 5  # the board went through many states, each said in Spanish
    assert "Gana la partida" in page and "terminada: ha ganado" in client.get("/games?lang=es").get_data(as_text=True)
    for path in ("/judge?words=champ+london+don%27t+quartz+xqzt&game=1", "/games", "/games/9", "/games/1/events/x"):
        assert_no_english(client.get(path + ("&" if "?" in path else "?") + "lang=es").get_data(as_text=True),
                          path, tuple(ALL_PO))
    data = client.get("/api/games/1", headers=SPANISH).get_json()
    sentences = " ".join([data["waiting_for"], *data["recent"]])
    phrases, _words = english_fragments(tuple(ALL_PO))
    assert [p for p in phrases if p in sentences] == [] and "Beto" in sentences
    assert data["phase"] == "over" and data["outcome"]["termination"] == "last_words"  # codes stay codes


def test_a_message_shared_with_another_catalog_is_translated_alike() -> None:
    """The catalogs are chained (dictionaries, referee, click, board, service): a message in two of them
    is said as the first one says it, so the board's must say it the same way."""
    def entries(path: Path) -> dict[Any, Any]:
        with path.open("rb") as f:
            return {m.id: m.string for m in read_po(f, locale="es") if m.id}

    board = entries(BOARD_PO)
    for path in ALL_PO:
        if path != BOARD_PO:
            for key, string in entries(path).items():
                assert key not in board or board[key] == string, (path.name, key, string, board[key])
