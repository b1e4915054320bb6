"""The board's Flask app (through Flask's test client), its read-only source, its change watcher and
the ``board`` command (through Click's runner). The browser tests are in test_board_browser.py.
Over 500 lines because it mirrors the board's whole read side, one section per part (app, source, watcher,
command); its language and its players have modules of their own."""
from __future__ import annotations

import hashlib
import json
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import client_for
from cli_support import run
from click.testing import CliRunner

from referee.board.app import create_app
from referee.board.cli import check_port, lan_address, print_qr
from referee.board.source import Source, Watcher
from referee.cli import cli


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def db(db: Path) -> Path:
    path = db
    assert run(path, "new", "Cindi", "Paul", "Sue", "--first", "Cindi").exit_code == 0
    assert run(path, "play", "look", "--roll", "7").exit_code == 0
    assert run(path, "play", "champ", "--roll", "3").exit_code == 0
    return path


# -- pages ----------------------------------------------------------------------------------------

def test_board_page_shows_the_game(db: Path) -> None:
    page = client_for(db).get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    for fact in ("Game 1", "Cindi", "Paul", "Sue", "Sue&#39;s turn", "LOOK", "CHAMP", "4 pawns",
                 "Paul rolls 3 and fails the sanity check for CHAMP", "Draw pile", "Discard pile", "none"):
        assert fact in html, fact
    assert 'aria-live="polite"' in html and 'aria-current="true"' in html
    assert 'data-stream="/events"' in html  # the front page follows whichever game is current
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html  # nothing external


def test_a_player_who_left_is_shown_as_such(db: Path) -> None:
    assert run(db, "leave", "Paul").exit_code == 0
    html = client_for(db).get("/").get_data(as_text=True)
    assert "Has left the game" in html and html.count("Out of the game") == 0


def test_static_files_ship_and_nothing_is_fetched_from_elsewhere(db: Path) -> None:
    client = client_for(db)
    for name in ("board.css", "board.js"):
        body = client.get(f"/static/{name}").get_data(as_text=True)
        assert body and "http" not in body and "@import" not in body and "@font-face" not in body


def test_one_game_and_the_list(db: Path) -> None:
    assert run(db, "new", "Ana", "Ben", "--first", "Ben").exit_code == 0
    client = client_for(db)
    one = client.get("/games/1").get_data(as_text=True)
    assert "Cindi" in one and 'data-stream="/games/1/events"' in one
    assert "Ana" in client.get("/").get_data(as_text=True)  # the most recently active game
    listing = client.get("/games").get_data(as_text=True)
    assert "Game 1" in listing and "Game 2" in listing and "Ana, Ben" in listing and "in play" in listing


def test_a_pinned_game(db: Path) -> None:
    assert run(db, "new", "Ana", "Ben", "--first", "Ben").exit_code == 0
    html = client_for(db, BOARD_GAME=1).get("/").get_data(as_text=True)
    assert "Cindi" in html and "Ana" not in html


def test_the_winner_is_shown(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    run(db, "new", "Ana", "Ben", "--first", "Ana", "--target", "5", "--last-words")
    run(db, "play", "champ", "--roll", "19")
    run(db, "discard")
    html = client_for(db).get("/").get_data(as_text=True)
    assert "Ana wins with 15 points after Last Words." in html
    assert "is-winner" in html and "last words" in html


def test_json_view(db: Path) -> None:
    client = client_for(db)
    data = client.get("/api/games/1").get_json()
    assert data["game"] == 1 and data["turn"] == "Sue" and data["used_words"] == ["LOOK", "CHAMP"]
    assert [p["score"] for p in data["players"]] == [4, 15, 0]
    assert data["recent"][-1].startswith("Paul plays CHAMP for 15 points. Paul rolls 3")
    assert client.get("/api/games/current").get_json()["game"] == 1
    assert [g["game"] for g in client.get("/api/games").get_json()] == [1]
    missing = client.get("/api/games/7")
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"
    assert "no game 7" in missing.get_json()["detail"]


# -- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/games/7", "/games/0", "/games/abc", "/games/99999999999999999999999",
                                  "/nope", "/games/7/events", "/api/nope"])
def test_unknown_games_and_paths_are_404_pages(db: Path, path: str) -> None:
    page = client_for(db).get(path)
    assert page.status_code == 404
    body = page.get_data(as_text=True)
    assert ("no game" in body.lower() or "no such page" in body.lower() or "not found" in body.lower())
    assert "Traceback" not in body


def test_a_missing_database_says_so_and_is_not_created(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    client = client_for(db)
    front = client.get("/")
    body = front.get_data(as_text=True)
    # A quiet page that waits for the first game: no error status (a browser logs it as an error), no path.
    assert front.status_code == 200 and "No game has started yet." in body and 'class="no-game"' in body
    assert 'class="problem"' not in body and str(tmp_path) not in body
    assert 'data-stream="/events"' in body  # it waits for the first game
    assert client.get("/games").status_code == 200 and "No games yet" in client.get("/games").get_data(as_text=True)
    assert client.get("/games/1").status_code == 404
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_an_empty_file_is_no_games_and_stays_empty(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite3"
    db.write_bytes(b"")
    front = client_for(db).get("/")
    assert front.status_code == 200 and "No game has started yet." in front.get_data(as_text=True)
    assert db.read_bytes() == b""


@pytest.mark.parametrize("kind", ["foreign", "garbage", "directory", "newer"])
def test_a_database_that_is_not_the_referees_is_a_503_page_and_left_untouched(tmp_path: Path, kind: str,
                                                                              db: Path,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "other.sqlite3"
    if kind == "foreign":
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE photos (id INTEGER)")
        con.commit()
        con.close()
        expected = "another program"
    elif kind == "garbage":
        path.write_bytes(b"this is not a database at all " * 100)
        expected = "not a database"
    elif kind == "directory":
        path.mkdir()
        expected = "is a directory"
    else:
        path.write_bytes(db.read_bytes())
        con = sqlite3.connect(path)
        con.execute("PRAGMA user_version = 99")
        con.close()
        expected = "newer uw-referee"
    before = None if kind == "directory" else file_digest(path)
    client = client_for(path)
    said = "The games cannot be read at the moment"
    with caplog.at_level("WARNING", logger="referee.board"):
        for url in ("/", "/games", "/games/1"):
            page = client.get(url)
            assert page.status_code == 503, url
            body = page.get_data(as_text=True)
            assert said in body and str(tmp_path) not in body and expected not in body, url  # the path is not shown
        api = client.get("/api/games/1")
        assert api.status_code == 503 and api.get_json()["detail"].startswith(said)
        assert str(tmp_path) not in api.get_data(as_text=True)
    assert expected in caplog.text  # what is wrong, with the path, goes to the operator's log
    if before is not None:
        assert file_digest(path) == before


def test_reading_never_changes_the_database(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    before, mtime = file_digest(db), db.stat().st_mtime_ns
    client = client_for(db)
    for url in ("/", "/games", "/games/1", "/api/games/1", "/api/games", "/judge?words=taps"):
        assert client.get(url).status_code == 200
    assert file_digest(db) == before and db.stat().st_mtime_ns == mtime


def test_the_board_reads_while_the_cli_holds_the_write_lock(db: Path) -> None:
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        # A board that wanted the lock would wait out SQLite's busy timeout, then answer 503 (a test below).
        assert client_for(db).get("/").status_code == 200
    finally:
        writer.execute("ROLLBACK")
        writer.close()


# -- the judge ------------------------------------------------------------------------------------

def test_judge_gives_verdicts_with_reasons_scores_and_chances(db: Path) -> None:
    page = client_for(db).get("/judge?words=taps+apts+look")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert re.search(r'TAPS</span>:\s*<strong class="yes">legal</strong>', html) and "10 points" in html
    assert re.search(r'APTS</span>:\s*<strong class="no">not legal</strong>', html)
    assert "<b>A</b><small>5</small>" in html and "55% of the time" in html
    assert "APTS is an abbreviation (SCOWL size 10)" in html
    assert "already used in this game" in html  # LOOK was played in game 1
    assert "Judged for game 1: dictionary size 60, standard deck" in html


def test_judge_uses_the_games_size_and_says_when_no_game_runs(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    run(db, "new", "Ana", "Ben", "--first", "Ana", "--level", "10")
    html = client_for(db).get("/judge?words=zygote").get_data(as_text=True)
    assert "dictionary size 10" in html and "not legal" in html
    html = client_for(tmp_path / "none.sqlite3").get("/judge?words=zygote").get_data(as_text=True)
    assert "No game is running: judged at dictionary size 60" in html


def test_judge_bad_words_are_a_400_page_in_words(db: Path) -> None:
    page = client_for(db).get("/judge?words=taps+h%C3%B6%24e")
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    assert "cannot be judged" in html and "not letters" in html and "TAPS" in html


def test_judge_form_without_words(db: Path) -> None:
    page = client_for(db).get("/judge")
    assert page.status_code == 200 and '<input id="words"' in page.get_data(as_text=True)


# -- live updates ---------------------------------------------------------------------------------

def data_of(message: bytes) -> dict[str, Any]:
    """The board an event-stream message carries (``id: ...`` then ``data: {...}``)."""
    lines = message.decode().split("\n")
    assert lines[0].startswith("id: ") and lines[1].startswith("data: "), message
    found: dict[str, Any] = json.loads(lines[1][len("data: "):])
    return found


def first_board(client: Any, path: str = "/events", last: str | None = None) -> tuple[Any, Iterator[bytes]]:
    """A stream opened (as a page that reconnects, when ``last`` is the id it got last), read past its ``retry``."""
    headers = {} if last is None else {"Last-Event-ID": last}
    response = client.get(path, buffered=False, headers=headers)
    chunks = iter(response.response)
    assert next(chunks).startswith(b"retry:")
    return response, chunks


def id_of(message: bytes) -> str:
    return message.decode().split("\n", 1)[0].removeprefix("id: ")


def test_a_reconnecting_stream_sends_the_board_only_when_it_changed_since(db: Path) -> None:
    """Each board in the stream carries the game's event count and its key's digest as its id; a page that comes
    back with the id it got last (``Last-Event-ID``, on this replica or another) gets nothing again when the game
    is as it was, and the board at once when it moved meanwhile, even to the same event count (an undo, then
    another action)."""
    client = client_for(db, BOARD_KEEPALIVE_SECONDS=5)
    response, chunks = first_board(client, "/games/1/events")
    was = id_of(next(chunks))
    response.close()
    assert was.split("-")[0] == "6" and len(was.split("-")[1]) == 16  # 6 events so far
    response, chunks = first_board(client, "/games/1/events", last=was)  # it missed nothing: nothing sent
    threading.Timer(0.6, lambda: run(db, "play", "taps", "--roll", "15")).start()
    update = next(chunks)  # the first message after it: the board it already had (6-...) must not come again
    assert "TAPS" in data_of(update)["html"] and id_of(update).startswith("8-")
    response.close()
    assert run(db, "undo").exit_code == 0 and run(db, "play", "zebra", "--roll", "3").exit_code == 0
    # it missed the two: the board comes first, before any ": idle" (nothing else happens meanwhile)
    response, chunks = first_board(client, "/games/1/events", last=id_of(update))
    again = next(chunks)
    assert "ZEBRA" in data_of(again)["html"]
    assert id_of(again).startswith("8-") and id_of(again) != id_of(update)
    response.close()
    response, chunks = first_board(client, "/events", last="x" * 500)  # any other id: the board
    assert "ZEBRA" in data_of(next(chunks))["html"]
    response.close()


def test_the_stream_sends_the_board_then_each_commit(db: Path) -> None:
    client = client_for(db, BOARD_KEEPALIVE_SECONDS=5)
    response = client.get("/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert next(chunks).startswith(b"retry:")
    first = data_of(next(chunks))
    assert "Sue&#39;s turn" in first["html"]
    threading.Timer(0.3, lambda: run(db, "play", "taps", "--roll", "15")).start()
    second = next(chunks)  # how soon: benchmarks/bench_board.py ("commit to page")
    assert b"\ndata: " in second, f"no update after a commit, only {second!r}"
    update = data_of(second)
    assert "TAPS" in update["html"] and "Sue plays TAPS" in update["announce"]
    response.close()


def test_streams_beyond_the_budget_are_refused_with_a_retry(db: Path) -> None:
    client = client_for(db, BOARD_STREAMS=1)
    first = client.get("/events", buffered=False)
    second = client.get("/events", buffered=False)
    assert second.status_code == 503 and second.headers["Retry-After"] == "5"
    first.close()
    third = client.get("/events", buffered=False)
    assert third.status_code == 200
    third.close()


def test_the_watcher_sees_commits_and_a_database_appearing(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    watcher = Watcher(db, poll_s=0.02)
    try:
        seen = watcher.version
        watcher.start()
        run(db, "new", "Ana", "Ben", "--first", "Ana")
        seen = watcher.wait(seen, 2)
        assert seen > 0
        time.sleep(0.1)
        seen = watcher.version
        run(db, "discard")
        assert watcher.wait(seen, 2) != seen
        quiet = watcher.version
        assert watcher.wait(quiet, 0.3) == quiet  # nothing committed: nothing wakes
    finally:
        watcher.stop()


def test_source_recent_actions_group_a_play_with_its_roll(db: Path) -> None:
    shown = Source(db).game(None)
    assert shown.recent[-2] == ("Cindi plays LOOK for 4 points. Cindi rolls 7 and passes the sanity check for LOOK. "
                                "Cindi scores 4: 4 points. Cindi draws 4 cards.")


# -- the command ----------------------------------------------------------------------------------

def test_board_help_says_what_0000_exposes_and_gives_an_example() -> None:
    result = CliRunner().invoke(cli, ["board", "--help"])
    assert result.exit_code == 0
    flat = " ".join(result.output.split())
    assert "0.0.0.0 lets every device" in flat and "read every game in the database" in flat
    assert "Without --players nobody can change a game" in flat and "Example: uw-referee board --host 0.0.0.0" in flat
    # With --players the phones play through the board: the help no longer says it only reads.
    assert "It only reads the database" not in flat and "with --players the players also play their turns" in flat


def test_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["--db", str(tmp_path / "g.sqlite3"), "board", "--port", str(port)])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: port {port} on 127.0.0.1 is already in use: choose another with --port"


def test_a_host_that_is_not_an_address_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["board", "--host", "no.such.host.invalid"])
    assert result.exit_code == 2 and "--host" in result.output and "Traceback" not in result.output


def test_check_port_accepts_a_free_port() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    check_port("127.0.0.1", port)


def test_the_address_as_a_qr_code(capsys: pytest.CaptureFixture[str]) -> None:
    print_qr("http://192.168.1.20:8080/")
    drawn = capsys.readouterr().out
    assert len(drawn.splitlines()) > 10 and ("█" in drawn or "▀" in drawn)
    assert lan_address() is None or lan_address().count(".") == 3  # type: ignore[union-attr]  # asked again only when the first answer was not None


# -- the real server ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_the_served_board_stops_at_once_with_streams_open(db: Path, sig: str) -> None:
    import signal
    import urllib.request

    from board_support import Board

    board = Board(db)
    streams = [urllib.request.urlopen(board.url + "/events", timeout=10) for _ in range(3)]
    for stream in streams:
        assert stream.readline().startswith(b"retry:")
    page = urllib.request.urlopen(board.url + "/", timeout=10)
    assert page.status == 200 and b"Sue&#39;s turn" in page.read()
    started = time.monotonic()
    code, out, err = board.stop(getattr(signal, sig))
    # margin: a stop that waited for its streams would take their 300 s; 5 s is gunicorn's graceful 3 s plus 2
    assert code == 0 and time.monotonic() - started < 5, (code, err)
    assert "Traceback" not in err and "The board stopped." in out
    assert "Only this machine can open it" in out and f"{board.url}/" in out


def test_streams_of_one_game_share_one_render_per_commit(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import views

    renders = []
    real = views.render_board
    def render_board(shown: Any) -> Any:
        renders.append(shown.id)
        return real(shown)

    monkeypatch.setattr(views, "render_board", render_board)
    client = client_for(db)
    streams = [client.get("/events", buffered=False) for _ in range(5)]
    for response in streams:
        chunks = iter(response.response)
        next(chunks)
        assert b"\ndata: " in next(chunks)
    assert renders == [1]
    for response in streams:
        response.close()


def test_a_sanity_roll_is_awaited_in_words_for_the_room(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    run(db, "new", "Sue", "Ben", "--first", "Sue")
    CliRunner().invoke(cli, ["--db", str(db), "play", "columns"], input="\n")  # no roll typed: it waits
    html = client_for(db).get("/").get_data(as_text=True)
    assert "Sue rolls for COLUMNS: 6 or more passes." in html


@pytest.mark.parametrize("asked", ["7", "abc", "99999999999999999999999"])
def test_judge_for_a_game_that_is_not_there_is_a_404_page(db: Path, asked: str) -> None:
    page = client_for(db).get(f"/judge?words=taps&game={asked}")
    assert page.status_code == 404 and "There is no game" in page.get_data(as_text=True)


def test_judge_for_a_finished_game_when_asked(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    run(db, "new", "Ana", "Ben", "--first", "Ana", "--target", "5", "--level", "35")
    assert run(db, "play", "champ", "--roll", "19").exit_code == 0
    client = client_for(db)
    assert "No game is running" in client.get("/judge?words=champ").get_data(as_text=True)
    html = client.get("/judge?words=champ&game=1").get_data(as_text=True)
    assert "Judged for game 1: dictionary size 35" in html and "already used in this game" in html


def test_judge_shows_what_a_word_means(db: Path) -> None:
    html = client_for(db).get("/judge?words=taps+xqzt").get_data(as_text=True)
    assert "<i>verb</i> strike lightly" in html
    assert "WordNet has no definition of XQZT." in html


# -- safe on a network (issue 21) -----------------------------------------------------------------

def test_no_page_shows_the_database_path(db: Path, tmp_path: Path) -> None:
    client = client_for(db)
    for url in ("/", "/games", "/games/1", "/games/99", "/judge?words=taps", "/api/games", "/api/games/current",
                "/api/games/99", "/nope"):
        body = client.get(url).get_data(as_text=True)
        assert str(tmp_path) not in body and "sqlite3" not in body, url
    empty = client_for(tmp_path / "none.sqlite3")
    for url in ("/", "/games", "/games/1", "/api/games/current"):
        body = empty.get(url).get_data(as_text=True)
        assert str(tmp_path) not in body and "sqlite3" not in body, url


@pytest.mark.parametrize("path", ["/%5Cevil.example/x", "/%2F%2Fevil.example/x", "//evil.example/x",
                                  "/games/1/%5C%5Cevil.example"])
def test_every_link_of_a_404_page_stays_on_the_board(db: Path, path: str) -> None:
    page = client_for(db).get(path)
    assert page.status_code == 404
    hrefs = re.findall(r'(?:href|src|action)="([^"]*)"', page.get_data(as_text=True))
    assert hrefs
    for href in hrefs:
        # A path on the board ("/x", never "//x" nor "/\x", which browsers read as another host), or a query.
        assert re.match(r"^(\?|#|/(?![/\\])|data:,$)", href) and "evil" not in href, href


def test_pages_and_streams_share_one_render_per_commit_and_language(db: Path) -> None:
    app = create_app({"BOARD_DB": str(db), "BOARD_GAME": None, "TESTING": True})
    client = app.test_client()
    rt = app.extensions["board"]
    pages = [client.get("/").get_data() for _ in range(20)]
    assert len(set(pages)) == 1 and rt.renders_done == 1  # twenty pages, one render
    client.get("/?lang=es")
    assert rt.renders_done == 2  # one more for the other language
    run(db, "play", "taps", "--roll", "15")
    after = [client.get("/").get_data(as_text=True) for _ in range(10)]
    assert "TAPS" in after[0] and rt.renders_done == 4  # the commit: once per language shown, for all pages
    assert "TAPS" in client.get("/api/games/current").get_data(as_text=True) and rt.renders_done == 4


def test_a_head_request_on_the_stream_takes_no_slot(db: Path) -> None:
    app = create_app({"BOARD_DB": str(db), "BOARD_GAME": None, "TESTING": True, "BOARD_STREAMS": 2})
    client = app.test_client()
    for _ in range(10):
        assert client.head("/events").status_code == 200
    assert app.extensions["board"].streams.open == 0
    stream = client.get("/events", buffered=False)
    assert stream.status_code == 200 and app.extensions["board"].streams.open == 1
    stream.close()
    assert app.extensions["board"].streams.open == 0


def test_a_long_game_costs_no_replay_per_commit(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first look, the board applies the new events only: the store's history is never read again."""
    from referee.store import Store

    client = client_for(db)
    client.get("/")

    def no_history(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the board replayed the game")

    monkeypatch.setattr(Store, "history", no_history)
    run(db, "play", "taps", "--roll", "15")
    run(db, "undo")  # an undo: the copy is no longer the game's beginning, and that is noticed
    body = client.get("/").get_data(as_text=True)
    assert "Sue plays TAPS" not in body and "Undid Sue&#39;s TAPS" in body and "Sue&#39;s turn" in body
    run(db, "play", "taps", "--roll", "15")
    assert "Sue plays TAPS" in client.get("/").get_data(as_text=True)


def test_embed_relaxes_frame_ancestors_only(db: Path) -> None:
    framed = client_for(db, BOARD_EMBED=True).get("/")
    assert "frame-ancestors *" in framed.headers["Content-Security-Policy"] and "X-Frame-Options" not in framed.headers
    plain = client_for(db).get("/")
    assert "frame-ancestors 'none'" in plain.headers["Content-Security-Policy"]
    assert plain.headers["X-Frame-Options"] == "DENY" and plain.headers["Cache-Control"] == "no-store"


def test_a_query_cannot_change_the_page_every_visitor_gets(db: Path) -> None:
    """The board page is rendered once per commit and shared: nothing of one request's query may end up in it."""
    client = client_for(db)
    client.get("/?words=INJECTED&game=7&x=1")
    page = client.get("/").get_data(as_text=True)
    assert "INJECTED" not in page and 'href="?lang=en"' in page and 'href="?lang=es"' in page


def long_game(path: Path, discards: int) -> int:
    """A game of ``discards`` + 2 events (discards through the store, as the benchmark makes them), then a play."""
    from referee.engine import Discarded, Options, RollOff, Setup
    from referee.store import Store

    store = Store(path)
    gid, _g, _r = store.create(Setup(players=("Cindi", "Paul", "Sue"), options=Options()),
                               lambda g: g.apply(RollOff(first="Cindi")) and None)

    def act(g: Any) -> None:
        for _ in range(discards):
            g.apply(Discarded(g.state.current.name))

    store.act(gid, act)
    store.close()
    assert run(path, "play", "look", "--roll", "7").exit_code == 0
    return gid


def count_work(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From here on: [events applied, replays] (a replay of the game would apply every event)."""
    from referee.engine import Game

    calls = [0, 0]
    apply, replay = Game.apply, Game.replay

    def counted(self: Game, event: Any) -> list[str]:
        calls[0] += 1
        return apply(self, event)

    def replayed(cls: type[Game], events: Any, words: bool = True) -> Game:
        calls[1] += 1
        game: Game = replay.__func__(cls, events, words)  # type: ignore[attr-defined]  # the classmethod's function
        return game

    monkeypatch.setattr(Game, "apply", counted)
    monkeypatch.setattr(Game, "replay", classmethod(replayed))
    return calls


def last_correction(db: Path) -> str:
    """The game's last correction in the words of ``log``."""
    from referee.events import Correction
    from referee.render import correction_words
    from referee.store import Store

    return correction_words(Correction.from_dict(Store(db, read_only=True).corrections()[1][-1][1]))


@pytest.mark.parametrize("discards", [8, 1500])
def test_a_first_look_and_an_undo_replay_nothing_at_any_length(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                discards: int) -> None:
    """Issue 21: the board starts from the store's snapshot and the words of the last actions kept with it, on
    its first look at a game and after an undo or an amend: no event applied, at 10 events as at 1,500."""
    from referee.board.source import RECENT, action_words, recent_notes
    from referee.store import Store

    db = tmp_path / "g.sqlite3"
    long_game(db, discards)

    def told() -> list[str]:
        history = Store(db, read_only=True).history()[2]
        return [action_words(notes) for notes in recent_notes([e for _, e in history], RECENT)]

    client = client_for(db)
    want = told()
    calls = count_work(monkeypatch)
    assert "LOOK" in client.get("/").get_data(as_text=True)
    feed = client.application.extensions["board"].feed(None)
    assert calls == [0, 0] and feed.replays == 0 and feed.shown().recent == want
    assert Source(db).game(None).recent == want and calls == [0, 0]  # the command's first look too
    for change in (["undo"], ["amend", "--roll", "3"]):
        monkeypatch.undo()
        run(db, "play", "champ", "--roll", "12")
        assert "CHAMP" in client.get("/").get_data(as_text=True)  # seen, then undone or amended
        assert run(db, *change).exit_code == 0
        want = (told() + [last_correction(db)])[-RECENT:]  # the table is told the correction too
        calls = count_work(monkeypatch)
        client.get("/")
        assert calls == [0, 0] and feed.replays == 0 and feed.shown().recent == want, change
    monkeypatch.undo()
    run(db, "discard")
    calls = count_work(monkeypatch)
    assert "discards" in client.get("/").get_data(as_text=True)
    assert calls == [1, 0]  # then carried forward by the new event alone
    monkeypatch.undo()
    assert feed.shown().recent == (want + told()[-1:])[-RECENT:]  # the amendment stays told, before the new action


def test_following_the_current_game_reads_nothing_of_a_long_game_it_moves_to(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The front page follows the current game: when another game becomes current (here a long one, by an
    undo), the board starts from that game's snapshot without reading its events."""
    import referee.events

    db = tmp_path / "g.sqlite3"
    long = long_game(db, 1500)
    assert run(db, "new", "Ann", "Bob", "--first", "Ann").exit_code == 0
    client = client_for(db)
    assert "Ann" in client.get("/").get_data(as_text=True)
    assert run(db, "undo", "--game", str(long)).exit_code == 0  # the long game is the current one again
    calls = count_work(monkeypatch)
    made = [0]
    event_from_dict = referee.events.event_from_dict

    def counted(data: Any) -> Any:
        made[0] += 1
        return event_from_dict(data)

    monkeypatch.setattr(referee.events, "event_from_dict", counted)
    body = client.get("/").get_data(as_text=True)
    # (read: the time of the game's last event and the undone action, to tell the table of the undo; never its 1,500)
    assert "Cindi" in body and calls == [0, 0] and made[0] <= 3


def test_a_feed_started_while_an_undo_takes_the_snapshots_last_event_starts_from_the_game_as_it_is(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A feed starts from the store's snapshot, then reads the time of its last event in a second transaction.
    An undo between the two (another device, at that moment) takes that event away: the feed reads the game
    again, never an IndexError (a 500 on the page that asked, and a watcher that stops refreshing)."""
    from dictionaries.dictionary import open_for_command
    from referee.actions import Referee
    from referee.board.source import Feed
    from referee.store import Store

    run(db, "new", "Ann", "Bob", "--first", "Ann")
    for word in ("cat", "dog"):
        assert run(db, "play", word, "--roll", "15").exit_code == 0
    resumed = Store.resumed
    undone: list[bool] = []

    def undo_meanwhile(store: Store, game_id: int | None) -> Any:
        found = resumed(store, game_id)
        if not undone:  # the first look only: another device undoes right after the snapshot is read
            undone.append(True)
            Referee(Store(db), open_for_command).undo(1)
        return found

    monkeypatch.setattr(Store, "resumed", undo_meanwhile)
    feed = Feed(str(db), 1)
    assert feed.refresh() and undone
    assert feed.game is not None and feed.game.count == Store(db, read_only=True).load(1)[1].count
