"""The players' side of the board (``board --players``): seats, the JSON API and every refusal, through
Flask's test client, with the CLI acting on the same game at the same time."""
from __future__ import annotations

import json
import re
import shlex
from functools import partial
from pathlib import Path
from typing import Any

import board_support
import pytest
from board_support import game_code
from cli_support import run
from click.testing import CliRunner

from referee.board.app import create_app
from referee.cli import cli

HOST = "host-secret-for-the-tests-0123456789abcdef"


@pytest.fixture
def db(db: Path) -> Path:
    """A game of three at its first turn (Cindi's)."""
    assert run(db, "new", "Cindi", "Paul", "Sue", "--first", "Cindi").exit_code == 0
    return db


#: A board whose phones play, with the tests' host secret (``client_for(db, players=False)``: a read-only one).
client_for = partial(board_support.client_for, players=True, BOARD_HOST_SECRET=HOST)


def join(client: Any, seat: str, code: str | None = None, game: int = 1) -> Any:
    """Take ``seat`` in ``game`` with its join code (or ``code``)."""
    return client.post(f"/api/games/{game}/seats", json={"code": code or code_of(client.application.config["BOARD_DB"], game),
                                                         "seat": seat})


def code_of(db: Path | str, game: int = 1) -> str:
    """The join code of ``game`` (made from its number and salt under ``HOST``)."""
    return game_code(db, HOST, game)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def events(client: Any, token: str, game: int = 1) -> int:
    answer = client.get(f"/api/games/{game}/play", headers=bearer(token))
    assert answer.status_code == 200, answer.get_json()
    n: int = answer.get_json()["events"]
    return n


def version(client: Any, token: str, game: int = 1) -> str:
    """The game's version as the seat's phone reads it: what its next write sends as ``seen``."""
    answer = client.get(f"/api/games/{game}/play", headers=bearer(token))
    assert answer.status_code == 200, answer.get_json()
    found: str = answer.get_json()["version"]
    return found


def act(client: Any, token: str, game: int = 1, **body: Any) -> Any:
    return client.post(f"/api/games/{game}/actions", json=body, headers=bearer(token))


def join_link(html: str) -> str:
    """The join link the TV shows, as read (its pieces, each ending after a slash, put together)."""
    found = re.search(r'id="join-url">(.*?)</span></span>', html)
    assert found, "no join link on the page"
    return re.sub(r"<[^>]*>", "", found.group(1))


def problem(answer: Any, status: int, kind: str) -> str:
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True))
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["type"] == f"urn:uw-referee:{kind}" and body["status"] == status
    detail: str = body["detail"]
    return detail


# -- opt-in ---------------------------------------------------------------------------------------

def test_without_players_the_board_only_reads(db: Path) -> None:
    client = client_for(db, players=False)
    assert "join-code" not in client.get("/").get_data(as_text=True)
    assert join(client, "Cindi").status_code == 404
    assert client.post("/api/games/1/actions", json={"action": "play", "word": "look", "roll": 7}).status_code == 404
    assert "LOOK" not in run(db, "log").output
    assert client.get("/join").status_code == 404
    assert client.get("/api/openapi.json").status_code == 404


def test_with_players_the_board_shows_the_join_code_and_its_qr(db: Path) -> None:
    client = client_for(db, BOARD_PUBLIC_URL="http://192.0.2.7:8080/")
    html = client.get("/").get_data(as_text=True)
    assert code_of(db) in html and join_link(html) == "http://192.0.2.7:8080/games/1/join" and 'src="/games/1/join.svg"' in html
    assert "<script>" not in html  # no inline script: the CSP forbids it
    qr = client.get("/games/1/join.svg")
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml" and b"<svg" in qr.data
    spec = client.get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.") and "/api/games/{id}/actions" in spec["paths"]
    assert "/api/games/{id}/seats" in spec["paths"]


def test_each_game_has_its_own_join_code_and_the_board_follows_the_new_game(db: Path) -> None:
    client = client_for(db)
    first = client.get("/").get_data(as_text=True)
    assert code_of(db) in first and "/games/1/join" in first
    assert run(db, "new", "Ann", "Bob", "--first", "Ann").exit_code == 0  # a new game while the board runs
    second = code_of(db, 2)
    assert second != code_of(db) and len(second) == 6 and set(second) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    board = client.get("/").get_data(as_text=True)
    assert second in board and code_of(db) not in board and "/games/2/join" in board and "/games/2/join.svg" in board
    problem(join(client, "Ann", code=code_of(db), game=2), 403, "wrong-code")  # game 1's code takes no seat in game 2
    ann = join(client, "Ann", game=2).get_json()["token"]
    problem(client.get("/api/games/1/play", headers=bearer(ann)), 401, "bad-token")  # a seat of game 2 only
    assert client.get("/games/9/join").status_code == 404 and client.get("/games/9/join.svg").status_code == 404
    assert join(client, "Cindi", code=code_of(db), game=1).status_code == 201  # and still opens game 1
    host = client.get("/api/games/1/host", headers=bearer(HOST)).get_json()
    assert host["current"] == 2 and host["join"]["code"] == code_of(db)  # the host's page moves to game 2
    assert client.get("/join").headers["Location"] == "/games/2/join"


def test_a_game_that_is_over_shows_no_join_code(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--first", "Ann", "--target", "5").exit_code == 0
    client = client_for(path)
    assert code_of(path) in client.get("/").get_data(as_text=True)
    assert run(path, "play", "taps", "--roll", "15").exit_code == 0
    assert code_of(path) not in client.get("/").get_data(as_text=True)


def test_the_command_prints_the_join_code_and_the_host_link(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import cli as board_cli

    class Server:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def run(self) -> None:
            raise SystemExit(0)

    monkeypatch.setattr("referee.board.server.BoardServer", Server)
    monkeypatch.setattr(board_cli, "check_port", lambda _host, _port: None)
    for name in ("UW_BOARD_PLAYERS", "UW_BOARD_HOST_SECRET", "UW_BOARD_PUBLIC_URL", "UW_BOARD_HOST_LANG", "UW_BOARD_DB",
                 "UW_BOARD_GAME", "UW_BOARD_STREAMS", "UW_BOARD_PER_ADDRESS"):
        monkeypatch.setenv(name, "")  # the command sets them for its server: put back as they were afterwards
    result = CliRunner().invoke(cli, ["--db", str(db), "board", "--players", "--port", "8099"])
    assert result.exit_code == 0, result.output
    import os

    secret = os.environ["UW_BOARD_HOST_SECRET"]
    code = game_code(db, secret, 1)
    assert f"Players join game 1 at http://127.0.0.1:8099/join with the code {code}" in result.output
    assert f"http://127.0.0.1:8099/host#{secret}" in result.output and len(secret) >= 43  # 256 bits
    assert "Only this machine can open it" in result.output
    monkeypatch.setenv("UW_BOARD_PUBLIC_URL", "")  # a new command, as a new process starts it
    monkeypatch.setattr(board_cli, "lan_address", lambda: "192.0.2.7")
    on_the_network = CliRunner().invoke(cli, ["--db", str(db), "board", "--players", "--port", "8099", "--host",
                                              "0.0.0.0"])
    assert on_the_network.exit_code == 0, on_the_network.output
    out = on_the_network.output
    code = game_code(db, os.environ["UW_BOARD_HOST_SECRET"], 1)
    assert "On a phone or a TV on the same network, open http://192.0.2.7:8099/" in out  # the TV's address
    assert f"Players join game 1 at http://192.0.2.7:8099/join with the code {code}" in out
    assert os.environ["UW_BOARD_PUBLIC_URL"] == "http://192.0.2.7:8099/"
    assert out.count("█") > 100  # and the join link's QR code, for the phones to scan


def test_the_operators_public_address_is_the_one_the_phones_are_given(db: Path, monkeypatch: pytest.MonkeyPatch
                                                                       ) -> None:
    """Behind a proxy (deploy/uw-board.env), the replica listens on 127.0.0.1:8101 but the phones open nginx's
    address: the operator's UW_BOARD_PUBLIC_URL is what the terminal, the join box and its QR code say."""
    import os

    from referee.board import cli as board_cli

    class Server:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def run(self) -> None:
            raise SystemExit(0)

    monkeypatch.setattr("referee.board.server.BoardServer", Server)
    monkeypatch.setattr(board_cli, "check_port", lambda _host, _port: None)
    for name in ("UW_BOARD_PLAYERS", "UW_BOARD_HOST_SECRET", "UW_BOARD_HOST_LANG", "UW_BOARD_DB", "UW_BOARD_GAME",
                 "UW_BOARD_STREAMS", "UW_BOARD_PER_ADDRESS"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("UW_BOARD_PUBLIC_URL", "https://tables.example.org")
    result = CliRunner().invoke(cli, ["--db", str(db), "board", "--players", "--port", "8101"])
    assert result.exit_code == 0, result.output
    code = game_code(db, os.environ["UW_BOARD_HOST_SECRET"], 1)
    assert f"Players join game 1 at https://tables.example.org/join with the code {code}" in result.output
    assert "8101/join" not in result.output and "Only this machine can open it" not in result.output
    assert result.output.count("█") > 100  # the QR code of the public join link
    assert os.environ["UW_BOARD_PUBLIC_URL"] == "https://tables.example.org/"  # the server's pages say it too
    server = create_app({"TESTING": True}).test_client()  # the server's app, made from what the command set
    assert join_link(server.get("/").get_data(as_text=True)) == "https://tables.example.org/games/1/join"
    for name in ("UW_BOARD_HOSTED", "UW_BOARD_KEEP_DAYS"):
        monkeypatch.setenv(name, "")
    hosted = CliRunner().invoke(cli, ["--db", str(db), "board", "--hosted", "--port", "8101"])
    assert hosted.exit_code == 0, hosted.output
    assert "Anyone who opens https://tables.example.org/ can start a table" in hosted.output
    monkeypatch.setenv("UW_BOARD_PUBLIC_URL", "tables.example.org")
    refused = CliRunner().invoke(cli, ["--db", str(db), "board", "--players", "--port", "8101"])
    assert refused.exit_code == 2 and "UW_BOARD_PUBLIC_URL='tables.example.org' is not an http" in refused.output
    assert "Traceback" not in refused.output


# -- seats ----------------------------------------------------------------------------------------

def test_a_seat_gets_a_random_token_and_a_strict_httponly_cookie(db: Path) -> None:
    client = client_for(db)
    answer = join(client, "paul")
    assert answer.status_code == 201
    body = answer.get_json()
    assert body["seat"] == "Paul" and len(body["token"]) >= 43 and body["token"] != body["csrf"]
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"uw_seat_1={body['token']}") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert client.get("/api/games/1/seats").get_json()["seats"][1] == {"seat": "Paul", "taken": True}


def test_a_taken_seat_is_refused_until_the_host_releases_it(db: Path) -> None:
    client = client_for(db)
    first = join(client, "Paul").get_json()["token"]
    problem(join(client, "Paul"), 409, "seat-taken")
    problem(client.delete("/api/games/1/seats/Paul", headers=bearer(first)), 403, "not-host")
    problem(client.delete("/api/games/1/seats/Paul"), 403, "not-host")
    assert client.delete("/api/games/1/seats/Paul", headers=bearer(HOST)).status_code == 204
    problem(client.get("/api/games/1/play", headers=bearer(first)), 401, "bad-token")  # the old token is void
    assert join(client, "Paul").status_code == 201


def test_the_seats_are_the_databases_so_another_board_process_serves_them(db: Path) -> None:
    """Two boards on one database (a restarted board, or two replicas): a seat taken on one acts, asks and undoes
    on the other, is refused to a second phone there, and released there (then void on both); a cookie's CSRF
    token is checked there too. Each board keeps nothing of it in memory."""
    one, other = client_for(db), client_for(db)
    joined = join(one, "Cindi")
    cindi, csrf = joined.get_json()["token"], joined.get_json()["csrf"]
    paul = join(other, "Paul").get_json()["token"]
    problem(join(other, "Cindi"), 409, "seat-taken")
    assert [s["taken"] for s in other.get("/api/games/1/seats").get_json()["seats"]] == [True, True, False]
    seen = version(other, cindi)
    done = act(other, cindi, action="discard", seen=seen)
    assert done.status_code == 200 and done.get_json()["can_undo"]
    assert one.get("/api/games/1/play", headers=bearer(cindi)).get_json()["can_undo"]  # own undo, on the first
    undone = act(one, cindi, action="undo", seen=done.get_json()["version"])
    assert undone.status_code == 200 and undone.get_json()["waiting"]["player"] == "Cindi"
    asked = one.post("/api/games/1/requests", json={"action": "leave", "seen": seen}, headers=bearer(paul))
    assert asked.status_code == 202
    waiting = other.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]
    assert [(r["id"], r["seat"], r["action"]) for r in waiting] == [(asked.get_json()["request"], "Paul", "leave")]
    assert other.post(f"/api/games/1/requests/{waiting[0]['id']}", json={"confirm": False},
                      headers=bearer(HOST)).status_code == 204
    problem(one.post(f"/api/games/1/requests/{waiting[0]['id']}", json={"confirm": True}, headers=bearer(HOST)),
            404, "no-request")  # answered once, on whichever board
    other.set_cookie("uw_seat_1", cindi)
    problem(other.post("/api/games/1/actions", json={"action": "discard", "seen": seen}), 403, "csrf")
    by_cookie = other.post("/api/games/1/actions", json={"action": "discard", "seen": seen},
                           headers={"X-CSRF-Token": csrf})
    assert by_cookie.status_code == 200, by_cookie.get_json()
    assert other.delete("/api/games/1/seats/cindi", headers=bearer(HOST)).status_code == 204
    problem(one.get("/api/games/1/play", headers=bearer(cindi)), 401, "bad-token")
    assert join(one, "Cindi").status_code == 201


def test_a_wrong_join_code_is_refused_and_repeated_ones_are_rate_limited(db: Path) -> None:
    client = client_for(db)
    for _i in range(5):
        problem(join(client, "Paul", code="AAAAAA"), 403, "wrong-code")
    problem(join(client, "Paul", code=code_of(db)), 429, "too-many-codes")  # even the right code, for a minute


def test_an_unknown_seat_or_game_is_refused(db: Path) -> None:
    client = client_for(db)
    problem(join(client, "Zed"), 400, "no-seat")
    problem(join(client, "Paul", code="ABCDEF", game=9), 404, "no-game")  # no code opens it: not there
    problem(client.post("/api/games/1/seats", data="nope", content_type="text/plain"), 400, "bad-request")


# -- actions --------------------------------------------------------------------------------------

def test_a_turn_from_a_phone_and_the_cli_on_the_same_game(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    seen = events(client, cindi)
    answer = act(client, cindi, action="play", word="look", roll=7, seen=version(client, cindi))
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["events"] == seen + 2 and body["waiting"]["player"] == "Paul" and not body["your_turn"]
    assert any("LOOK" in n for n in body["notes"])
    assert body["recent"][0].startswith("Cindi plays LOOK")  # what is happening, newest first
    assert "LOOK" in run(db, "log").output  # the CLI reads what the phone did
    assert run(db, "play", "champ", "--roll", "3").exit_code == 0  # and acts on the same game
    assert events(client, cindi) == seen + 4
    recent = client.get("/api/games/1/play", headers={**bearer(cindi), "Accept-Language": "es"}).get_json()["recent"]
    assert recent[0].startswith("Paul juega CHAMP") and recent[1].startswith("Cindi juega LOOK"), recent


@pytest.mark.slow
def test_table_mode_and_the_phones_play_the_same_game_at_once(db: Path) -> None:
    """``uw-referee table`` at the keyboard (a real process on a pseudo-terminal) while phones act: the table
    notices what a phone did, says it and asks the player whose turn it now is; the phones read what the table did
    and act after it."""
    import os
    import sys

    from pty_support import Terminal
    from test_table_pty import PROMPT, ROLL

    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    sue = join(client, "Sue").get_json()["token"]
    env = {**os.environ, "UW_LANG": "en", "NO_COLOR": "1", "COLUMNS": "200"}
    table = Terminal([sys.executable, "-m", "referee.cli", "--db", str(db), "table"], env)
    try:
        assert table.expect(PROMPT).match.group(1) == "Cindi"
        assert act(client, cindi, action="discard", seen=version(client, cindi)).status_code == 200  # from her phone
        table.type("look")                                # typed for Cindi, who already acted: refused
        prompt = table.expect(PROMPT).match
        said = prompt.string[:prompt.start()]            # what the table said before asking again
        assert prompt.group(1) == "Paul" and "Cindi" in said and "discard" in said.lower(), said
        table.type("look")                                # Paul plays at the keyboard
        assert table.expect(ROLL).match.group(1) == "Paul"
        table.type("7")
        assert table.expect(PROMPT).match.group(1) == "Sue"
        view = client.get("/api/games/1/play", headers=bearer(sue)).get_json()
        assert view["your_turn"] and "LOOK" in client.get("/api/games/1").get_json()["used_words"]
        assert act(client, sue, action="play", word="champ", roll=3, seen=view["version"]).status_code == 200
        table.type("taps")                                # typed for Sue, who played CHAMP from her phone
        assert table.expect(PROMPT).match.group(1) == "Cindi"
        table.type("/quit")
        table.proc.wait(timeout=20)
    finally:
        table.close()
    log = run(db, "log").output
    assert "CHAMP" in log and "LOOK" in log and "TAPS" not in log


def test_a_stale_event_number_is_refused_naming_what_happened(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    seen = version(client, cindi)
    assert run(db, "discard").exit_code == 0  # Cindi discards at the keyboard meanwhile
    paul = join(client, "Paul").get_json()["token"]
    detail = problem(act(client, paul, action="discard", seen=seen), 409, "game-moved")
    assert "Cindi" in detail and "Paul's turn" in detail
    spanish = client.post("/api/games/1/actions", json={"action": "discard", "seen": seen},
                          headers={**bearer(paul), "Accept-Language": "es"})
    assert "Mientras tanto, Cindi ha descartado" in problem(spanish, 409, "game-moved")


def test_another_seats_turn_is_refused(db: Path) -> None:
    client = client_for(db)
    paul = join(client, "Paul").get_json()["token"]
    detail = problem(act(client, paul, action="play", word="look", roll=7, seen=version(client, paul)), 403,
                     "not-your-turn")
    assert "Paul" in detail
    assert "LOOK" not in run(db, "log").output


def test_a_missing_or_forged_token_is_refused(db: Path) -> None:
    client = client_for(db)
    join(client, "Cindi")
    client.delete_cookie("uw_seat_1")
    some = "2-0123456789abcdef"
    problem(client.post("/api/games/1/actions", json={"action": "discard", "seen": some}), 401, "no-token")
    problem(act(client, "forged-" + "x" * 40, action="discard", seen=some), 401, "bad-token")
    problem(act(client, HOST, action="discard", seen=some), 401, "bad-token")  # the host's secret is no seat


def test_a_cookie_request_without_the_csrf_token_is_refused(db: Path) -> None:
    client = client_for(db)
    body = join(client, "Cindi").get_json()  # the client keeps the cookie, as a browser does
    seen = version(client, body["token"])
    problem(client.post("/api/games/1/actions", json={"action": "discard", "seen": seen}), 403, "csrf")
    problem(client.post("/api/games/1/actions", json={"action": "discard", "seen": seen},
                        headers={"X-CSRF-Token": "wrong"}), 403, "csrf")
    ok = client.post("/api/games/1/actions", json={"action": "discard", "seen": seen},
                     headers={"X-CSRF-Token": body["csrf"]})
    assert ok.status_code == 200, ok.get_json()


def test_a_refused_word_changes_nothing(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    seen = version(client, cindi)
    answer = act(client, cindi, action="play", word="qxzv", roll=3, seen=seen)
    assert "QXZV" in problem(answer, 422, "refused") and answer.get_json()["title"] == "Refused"
    assert version(client, cindi) == seen


def test_own_undo_until_the_next_player_acts(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    seen = version(client, cindi)
    made = act(client, cindi, action="discard", seen=seen).get_json()["version"]
    problem(act(client, paul, action="undo", seen=made), 403, "not-yours")
    undone = act(client, cindi, action="undo", seen=made)
    assert undone.status_code == 200 and undone.get_json()["waiting"]["player"] == "Cindi"
    after = version(client, cindi)
    act(client, cindi, action="discard", seen=after)
    act(client, paul, action="discard", seen=version(client, paul))
    problem(act(client, cindi, action="undo", seen=version(client, cindi)), 403, "not-yours")  # Paul acted since


def test_a_game_that_ended_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--first", "Ann", "--target", "5").exit_code == 0
    client = client_for(path)
    ann = join(client, "Ann").get_json()["token"]
    assert "Ann reaches 10 and wins!" in run(path, "play", "taps", "--roll", "15").output
    problem(act(client, ann, action="discard", seen=version(client, ann)), 409, "game-over")
    problem(join(client, "Bob"), 409, "game-over")


def test_a_finished_game_says_what_can_still_be_done_and_finds_the_next_game(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--first", "Ann", "--target", "5").exit_code == 0
    client = client_for(path)
    ann = join(client, "Ann").get_json()["token"]
    bob = join(client, "Bob").get_json()["token"]
    won = act(client, ann, action="play", word="taps", roll=15, seen=version(client, ann)).get_json()
    assert won["over"] and won["can_undo"] and won["next_game"] is None  # the board shows no other game yet
    page = client.get("/games/1/join").get_data(as_text=True)
    assert "A mistake can still be corrected" in page and "When the host starts the next game" in page
    # A mistake: the winning play is taken back from the phone that made it, and the game goes on.
    undone = act(client, ann, action="undo", seen=won["version"])
    assert undone.status_code == 200 and not undone.get_json()["over"], undone.get_json()
    assert "Ann reaches 10 and wins!" in run(path, "play", "taps", "--roll", "15").output
    problem(act(client, ann, action="discard", seen=version(client, ann)), 409, "game-over")  # only an undo now
    assert client.get("/api/games/1/play", headers=bearer(bob)).get_json()["next_game"] is None
    assert run(path, "new", "Ann", "Bob", "--first", "Bob").exit_code == 0  # the host starts the next game
    view = client.get("/api/games/1/play", headers=bearer(bob)).get_json()
    assert view["over"] and view["next_game"] == 2
    assert client.get("/join").headers["Location"] == "/games/2/join"  # where the phone's link leads


def test_the_discard_names_the_optional_rules_that_read_its_letters(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    labels = {(): "Discard your hand and draw a new one",
              ("--spell-binding",): "Discard your hand (type its letters, for Spell Binding)",
              ("--psychotherapy",): "Discard your hand (type its letters, for Psychotherapy)",
              ("--spell-binding", "--psychotherapy"):
                  "Discard your hand (type its letters, for Spell Binding and Psychotherapy)"}
    client = client_for(path)
    for game, (options, label) in enumerate(labels.items(), start=1):
        assert run(path, "new", "Ann", "Bob", "--first", "Ann", *options).exit_code == 0
        page = client.get(f"/games/{game}/join").get_data(as_text=True)
        assert label in page and page.count("Discard your hand") == 1, options
        others = {"Spell Binding", "Psychotherapy"} - {o.strip("-").replace("-", " ").title() for o in options}
        discard = page.split('id="discard-form"')[1].split("</form>")[0]
        assert not any(name in discard for name in others), (options, discard)


def test_every_correction_is_told_on_the_tv_and_on_every_phone(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=7, seen=version(client, cindi))
    undone = act(client, cindi, action="undo", seen=version(client, cindi))  # from her phone
    undid = "Undid Cindi's LOOK: 4 points, roll 7."
    assert undone.status_code == 200 and undone.get_json()["notes"] == [undid]  # (its own answer said nothing)
    assert client.get("/api/games/1").get_json()["recent"][-1] == undid  # the TV's last actions
    assert client.get("/api/games/1/play", headers=bearer(paul)).get_json()["recent"][0] == undid  # every phone
    act(client, cindi, action="play", word="tide", roll=3, seen=version(client, cindi))
    assert run(db, "amend", "--roll", "13").exit_code == 0  # at the terminal
    client.get("/api/games/1")  # (a phone reads again when the board's stream says the game changed: seen by then)
    said = client.get("/api/games/1/play", headers=bearer(paul)).get_json()["recent"]
    assert said[0] == "Amended the roll of action 1 (Cindi) from 3 to 13; every later action was checked again."
    assert "TIDE" in said[1]  # the corrected action, newer words
    assert run(db, "leave", "Sue").exit_code == 0
    assert "Sue leaves the game" in client.get("/api/games/1").get_json()["recent"][-1]
    es = client.get("/api/games/1/play?lang=es", headers={**bearer(paul), "Accept-Language": "es"}).get_json()
    assert es["recent"][1].startswith("Se ha corregido la tirada de la acción 1 (Cindi) de 3 a 13"), es["recent"]


def test_a_phone_refused_because_of_a_correction_is_told_which(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=7, seen=version(client, cindi))
    seen = version(client, paul)
    assert run(db, "undo").exit_code == 0  # the table takes it back at the terminal while Paul decides
    detail = problem(act(client, paul, action="play", word="tide", roll=7, seen=seen), 409, "game-moved")
    assert "undid Cindi's LOOK" in detail and "Nothing was changed" in detail


def test_an_overrule_asked_from_a_phone_is_played_as_play_allow_when_the_host_confirms(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    judged = client.get("/api/games/1/verdict?word=cthulhu").get_json()
    assert not judged["playable"] and judged["overrulable"]  # the phone offers "Ask the table to allow it"
    assert not client.get("/api/games/1/verdict?word=look").get_json()["overrulable"]  # (playable: nothing to ask)
    seen = version(client, cindi)
    problem(client.post("/api/games/1/requests", json={"action": "allow", "roll": 12, "seen": seen},
                        headers=bearer(cindi)), 400, "bad-word")
    asked = client.post("/api/games/1/requests", json={"action": "allow", "word": "cthulhu", "roll": 12, "seen": seen},
                        headers=bearer(cindi))
    assert asked.status_code == 202 and asked.get_json()["word"] == "CTHULHU"
    line = capsys.readouterr().out.strip()
    assert line.startswith("Game 1: Cindi asks the table to allow CTHULHU")
    assert line.endswith(f"uw-referee --db {db} --game 1 play cthulhu --roll 12 --allow --as Cindi")
    waiting = client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]
    assert [(r["action"], r["word"], r["roll"], r["seat"]) for r in waiting] == [("allow", "CTHULHU", 12, "Cindi")]
    confirmed = client.post(f"/api/games/1/requests/{waiting[0]['id']}", json={"confirm": True}, headers=bearer(HOST))
    assert confirmed.status_code == 200, confirmed.get_json()
    # Recorded exactly as the terminal's 'play --allow' records it, and the TV says the table allowed it.
    other = tmp_path / "cli.sqlite3"
    run(other, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", check=True)
    run(other, "play", "cthulhu", "--roll", "12", "--allow", "--as", "Cindi", check=True)
    def recorded(path: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "at"} for e in json.loads(run(path, "export").output)["events"]]

    assert recorded(db)[2:] == recorded(other)[2:] and recorded(db)[2]["allowed"] is True
    assert "the table overrules the dictionary" in client.get("/api/games/1").get_json()["recent"][-1]


def test_rate_limit_per_seat(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import seats

    monkeypatch.setattr(seats, "SEAT_ACTIONS", 3)
    client = client_for(db)
    paul = join(client, "Paul").get_json()["token"]
    seen = version(client, paul)
    for _i in range(3):
        problem(act(client, paul, action="discard", seen=seen), 403, "not-your-turn")
    problem(act(client, paul, action="discard", seen=seen), 429, "rate-limit")


def test_rate_limit_per_address(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import seats

    monkeypatch.setattr(seats, "ADDRESS_WRITES", 4)
    client = client_for(db)
    paul = join(client, "Paul").get_json()["token"]
    sue = join(client, "Sue").get_json()["token"]
    seen = version(client, paul)
    act(client, paul, action="discard", seen=seen)
    act(client, sue, action="discard", seen=seen)
    problem(act(client, sue, action="discard", seen=seen), 429, "rate-limit")


def test_the_verdict_as_you_type(db: Path) -> None:
    client = client_for(db)
    good = client.get("/api/games/1/verdict?word=look").get_json()
    assert good["said"] == ["LOOK: legal, 4 points (L1 O0 O0 K3); sanity check passes 85% of the time"]  # as the CLI
    assert good["legal"] and good["playable"] and good["score"] == 4 and good["word"] == "LOOK"
    bad = client.get("/api/games/1/verdict?word=qxzv").get_json()
    assert not bad["legal"] and not bad["playable"] and bad["reasons"]


def test_the_verdict_counts_the_cards_face_up(db: Path) -> None:
    assert run(db, "play", "quiz", "--roll", "20").exit_code == 0  # the only Q lies in the discard pile now
    client = client_for(db)
    quit_ = client.get("/api/games/1/verdict?word=quit").get_json()
    assert quit_["legal"] and not quit_["playable"] and "Q" in quit_["refusal"] and quit_["refusal"] in quit_["said"]
    assert quit_["score"] == 8 and [x for x in quit_["letters"]][0][0] == "Q"
    assert quit_["said"][0] == "QUIT: legal, 8 points (Q2 U0 I4 T2); sanity check passes 65% of the time"


def test_the_verdict_says_the_oath_lets_a_player_with_one_pawn_play_any_letters(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--first", "Ann", "--oath").exit_code == 0
    client = client_for(path)
    assert not client.get("/api/games/1/verdict?word=abeah").get_json()["playable"]  # five pawns: no Oath
    for word in ("look", "tool", "sod", "nod"):  # Ann fails four sanity checks: one pawn left
        assert run(path, "play", word, "--roll", "1").exit_code == 0
        assert run(path, "discard").exit_code == 0
    oath = client.get("/api/games/1/verdict?word=abeah").get_json()
    assert not oath["legal"] and oath["playable"] and oath["score"] == 23
    assert oath["said"] == ["ABEAH: not legal", "ABEAH is not in the dictionary at any level",
                            "Not a word, but the Unspellable Oath lets you play it: 23 points (A5 B5 E4 A5 H4); the "
                            "sanity check passes 5% of the time."]
    spanish = client.get("/api/games/1/verdict?word=abeah", headers={"Accept-Language": "es"}).get_json()
    assert "juramento indescriptible" in spanish["said"][-1]


# -- the host and the pages -----------------------------------------------------------------------

def test_the_host_undoes_another_players_action_and_only_the_host(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    seen = version(client, cindi)
    made = act(client, cindi, action="play", word="look", roll=7, seen=seen).get_json()["version"]
    problem(client.post("/api/games/1/corrections", json={"action": "undo", "seen": made},
                        headers=bearer(cindi)), 403, "not-host")
    problem(client.post("/api/games/1/corrections", json={"action": "undo", "seen": seen},
                        headers=bearer(HOST)), 409, "game-moved")
    undone = client.post("/api/games/1/corrections", json={"action": "undo", "seen": made}, headers=bearer(HOST))
    assert undone.status_code == 200 and undone.get_json()["waiting"]["player"] == "Cindi"
    assert "Undid Cindi's LOOK" in run(db, "log").output
    seats = client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["seats"]
    assert seats[0] == {"seat": "Cindi", "taken": True}
    problem(client.get("/api/games/1/host", headers=bearer(cindi)), 403, "not-host")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_phone_and_host_pages_load_their_own_scripts_only(db: Path, lang: str) -> None:
    client = client_for(db)
    assert client.get(f"/join?lang={lang}").headers["Location"] == f"/games/1/join?lang={lang}"
    for path, script in (("/games/1/join", "phone.js"), ("/host", "host.js")):
        page = client.get(f"{path}?lang={lang}")
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and f'src="/static/{script}"' in html
        assert "<script>" not in html and "script-src 'self'" in page.headers["Content-Security-Policy"]
        assert "http://" not in html and "https://" not in html  # nothing from another site
        assert client.get(f"/static/{script}").status_code == 200
    phone = client.get(f"/games/1/join?lang={lang}").get_data(as_text=True)
    assert phone.count('autocapitalize="characters"') >= 3 and 'autocorrect="off"' in phone
    assert 'value="Paul"' in phone
    assert ("Jugar desde tu móvil" if lang == "es" else "Play from your phone") in phone


def test_the_verdict_speaks_the_requests_language(db: Path) -> None:
    client = client_for(db)
    said = client.get("/api/games/1/verdict?word=look", headers={"Accept-Language": "es"}).get_json()["said"]
    assert said == ["LOOK: válida, 4 puntos (L1 O0 O0 K3); supera la prueba de cordura el 85\xa0% de las veces"]


def test_an_undo_asked_from_a_phone_is_made_when_the_host_confirms_it(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=7, seen=version(client, cindi))
    seen = version(client, paul)
    asked = client.post("/api/games/1/requests", json={"action": "undo", "seen": seen}, headers=bearer(paul))
    assert asked.status_code == 202
    rid = asked.get_json()["request"]
    assert version(client, paul) == seen  # asking changes nothing
    listed = client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]
    assert listed == [{"id": rid, "seat": "Paul", "action": "undo", "seen": seen, "roll": None, "word": None}]
    problem(client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(paul)), 403,
            "not-host")
    done = client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(HOST))
    assert done.status_code == 200 and done.get_json()["waiting"]["player"] == "Cindi"
    problem(client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(HOST)), 404,
            "no-request")


def test_a_request_is_said_on_the_terminal_with_the_command_that_makes_it(db: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # The default database is another one, with a game 1 of its own: the command typed as said must not touch it.
    other = tmp_path / "default.sqlite3"
    assert run(other, "new", "Xena", "Yuri", "--first", "Xena").exit_code == 0
    assert run(other, "play", "look", "--roll", "2").exit_code == 0
    monkeypatch.setenv("UW_REFEREE_DB", str(other))
    client = client_for(db, BOARD_HOST_LANG="es")  # the host's terminal speaks Spanish
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=2, seen=version(client, cindi))
    seen = version(client, paul)
    client.post("/api/games/1/requests", json={"action": "amend", "roll": 7, "seen": seen}, headers=bearer(paul))
    said = capsys.readouterr().out
    assert said.startswith("Partida 1: Paul pide")
    assert said.rstrip().endswith(f"uw-referee --db {db} --game 1 amend --roll 7")
    client.post("/api/games/1/requests", json={"action": "undo", "seen": seen}, headers=bearer(paul))
    line = capsys.readouterr().out.rstrip()
    assert line.endswith(f"uw-referee --db {db} --game 1 undo")
    assert len(client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]) == 2
    command = shlex.split(line.split(": ")[-1])  # the host types it as said, in a shell
    assert command[0] == "uw-referee" and CliRunner().invoke(cli, command[1:]).exit_code == 0  # the undo is made
    assert "Undid" not in CliRunner().invoke(cli, ["log"]).output  # (the default database's game 1 is untouched)
    assert client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"] == []  # both dropped
    assert "Undid Cindi's LOOK" in run(db, "log").output


def test_an_asked_undo_is_refused_by_the_host_or_when_the_game_moved(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    seen = version(client, paul)
    first = client.post("/api/games/1/requests", json={"action": "undo", "seen": seen}, headers=bearer(paul))
    assert client.post(f"/api/games/1/requests/{first.get_json()['request']}", json={"confirm": False},
                       headers=bearer(HOST)).status_code == 204
    assert version(client, paul) == seen
    second = client.post("/api/games/1/requests", json={"action": "undo", "seen": seen}, headers=bearer(paul))
    act(client, cindi, action="play", word="look", roll=7, seen=seen)  # the game moves before the host answers
    problem(client.post(f"/api/games/1/requests/{second.get_json()['request']}", json={"confirm": True},
                        headers=bearer(HOST)), 404, "no-request")  # the write dropped it: asked on another version
    assert "LOOK" in run(db, "log").output and "Undid" not in run(db, "log").output
    stale = client.post("/api/games/1/requests", json={"action": "undo", "seen": seen}, headers=bearer(paul))
    problem(stale, 409, "game-moved")  # asked on a version the game has left: nothing is asked


def test_the_read_only_game_view_says_the_last_event_number(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    assert client.get("/api/games/1").get_json()["events"] == events(client, cindi)
    assert client.get("/api/games/1").get_json()["version"] == version(client, cindi)


def _current(client: Any) -> str:
    """Whose turn it is (the referee rolled the roll-off)."""
    seats: list[str] = [s["seat"] for s in client.get("/api/games/1/seats").get_json()["seats"]]
    text: str = client.get("/api/games/1").get_json()["waiting_for"]
    return next(name for name in seats if text.startswith(f"{name}'s turn"))


def test_with_virtual_dice_the_referee_rolls_for_the_phone(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--dice", "virtual", "--seed", "3").exit_code == 0
    client = client_for(path)
    name = _current(client)
    token = join(client, name).get_json()["token"]
    seen = events(client, token)
    problem(act(client, token, action="play", word="look", roll=7, seen=version(client, token)), 422,
            "refused")  # no roll typed
    played = act(client, token, action="play", word="look", seen=version(client, token))
    assert played.status_code == 200, played.get_json()
    assert played.get_json()["events"] == seen + 2 and any("rolls" in n for n in played.get_json()["notes"])


def test_a_corrected_roll_and_leaving_are_asked_from_a_phone_and_confirmed_by_the_host(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    sue = join(client, "Sue").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=2, seen=version(client, cindi))  # LOOK fails on a 2
    seen = version(client, cindi)
    problem(client.post("/api/games/1/requests", json={"action": "amend", "seen": seen}, headers=bearer(cindi)),
            400, "bad-roll")
    rid = client.post("/api/games/1/requests", json={"action": "amend", "roll": 7, "seen": seen},
                      headers=bearer(cindi)).get_json()["request"]
    amended = client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(HOST))
    assert amended.status_code == 200, amended.get_json()
    assert "rolls 7 and passes" in run(db, "log").output
    seen = version(client, sue)
    rid = client.post("/api/games/1/requests", json={"action": "leave", "seen": seen},
                      headers=bearer(sue)).get_json()["request"]
    left = client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(HOST))
    assert left.status_code == 200 and [p["left"] for p in left.get_json()["players"]] == [False, False, True]


def test_last_words_are_asked_of_the_player_they_wait_for(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    assert run(path, "new", "Ann", "Bob", "--first", "Ann", "--last-words", "--target", "5").exit_code == 0
    client = client_for(path)
    ann = join(client, "Ann").get_json()["token"]
    bob = join(client, "Bob").get_json()["token"]
    act(client, ann, action="play", word="taps", roll=15, seen=version(client, ann))
    view = client.get("/api/games/1/play", headers=bearer(bob)).get_json()
    assert view["phase"] == "last_words" and view["your_turn"] and "Last Words" in view["waiting"]["text"]
    problem(act(client, ann, action="discard", seen=view["version"]), 403, "not-your-turn")
    done = act(client, bob, action="play", word="look", roll=7, seen=view["version"])
    assert done.status_code == 200 and done.get_json()["over"] and done.get_json()["winner"] == "Ann"
    problem(act(client, bob, action="discard", seen=done.get_json()["version"]), 409, "game-over")


def test_the_openapi_document_is_valid_and_in_step_with_the_routes(db: Path) -> None:
    import re

    definitions = pytest.importorskip("schemathesis.specs.openapi.definitions")
    client = client_for(db)
    document = client.get("/api/openapi.json").get_json()
    definitions.OPENAPI_31_VALIDATOR.validate(document)
    documented = {(path, method.upper()) for path, item in document["paths"].items() for method in item}
    routes = set()
    for rule in client.application.url_map.iter_rules():
        if rule.endpoint.startswith("players.") and rule.rule.startswith("/api/games/"):
            path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
            path = path.replace("{game_id}", "{id}").replace("{name}", "{seat}").replace("{rid}", "{request}")
            routes |= {(path, m) for m in rule.methods or () if m not in ("HEAD", "OPTIONS")}
    assert routes - documented == set()


def test_spell_binding_names_come_from_the_other_phones_and_the_first_named_wins(db: Path) -> None:
    run(db, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", "--spell-binding")  # game 2, with Spell Binding
    client = client_for(db)
    cindi = join(client, "Cindi", game=2).get_json()["token"]
    paul = join(client, "Paul", game=2).get_json()["token"]
    sue = join(client, "Sue", game=2).get_json()["token"]
    seen = version(client, cindi, game=2)
    assert act(client, cindi, game=2, action="discard", letters="oclnusm", seen=seen).status_code == 200
    seen = version(client, paul, game=2)
    named = act(client, paul, game=2, action="bind", word="column", seen=seen)
    assert named.status_code == 200
    problem(act(client, sue, game=2, action="bind", word="column", seen=seen), 409, "game-moved")  # Paul was first
    after = named.get_json()["version"]
    refused = problem(act(client, sue, game=2, action="bind", word="column", seen=after), 422, "refused")
    assert "already named" in refused
    problem(act(client, paul, game=2, action="bind_done", seen=after), 403, "not-your-turn")
    # The discarder's phone closes nothing: it shows whom the naming waits for (Sue, who has not named or passed).
    refused = problem(act(client, cindi, game=2, action="bind_done", seen=after), 422, "refused")
    assert "every other player has named a word or passed" in refused
    view = client.get("/api/games/2/play", headers=bearer(cindi)).get_json()
    assert view["binding_waits_for"] == ["Sue"] and view["phase"] == "spell_binding"
    closed = act(client, sue, game=2, action="pass", seen=after)  # Sue passes: nobody is left, the naming closes
    assert closed.status_code == 200 and closed.get_json()["phase"] == "sanity", closed.get_json()
    assert closed.get_json()["waiting"]["word"] == "COLUMN" and closed.get_json()["waiting"]["player"] == "Cindi"
    said = " ".join(closed.get_json()["notes"])
    assert "Sue names no word from Cindi's discard." in said and "Cindi must play COLUMN" in said
    assert "Sue names no word" in run(db, "log", "--game", "2").output  # recorded: the log says it


def test_spell_binding_waits_for_the_seated_phones_or_the_host(db: Path) -> None:
    run(db, "new", "Ann", "Bob", "Cy", "Dee", "--first", "Ann", "--spell-binding")  # game 2: Dee has no phone
    client = client_for(db)
    ann, bob, cy = (join(client, name, game=2).get_json()["token"] for name in ("Ann", "Bob", "Cy"))
    act(client, ann, game=2, action="discard", letters="oclnusm", seen=version(client, ann, game=2))
    assert client.get("/api/games/2/play", headers=bearer(ann)).get_json()["binding_waits_for"] == ["Bob", "Cy"]
    passed = act(client, bob, game=2, action="pass", seen=version(client, bob, game=2)).get_json()
    assert passed["phase"] == "spell_binding" and passed["binding_waits_for"] == ["Cy"] and passed["acted_in_binding"]
    problem(act(client, bob, game=2, action="pass", seen=passed["version"]), 422, "refused")  # once
    problem(act(client, bob, game=2, action="bind", word="column", seen=passed["version"]), 422, "refused")
    # The host closes it before Cy acts (Dee, at the table without a phone, named nothing either).
    problem(client.post("/api/games/2/corrections", json={"action": "bind_done", "seen": passed["version"]},
                        headers=bearer(cy)), 403, "not-host")
    closed = client.post("/api/games/2/corrections", json={"action": "bind_done", "seen": passed["version"]},
                         headers=bearer(HOST))
    assert closed.status_code == 200 and closed.get_json()["phase"] != "spell_binding", closed.get_json()
    assert "no word was named" in run(db, "log", "--game", "2").output


def test_the_naming_that_closes_spell_binding_offers_no_undo(db: Path) -> None:
    """The last seated phone's naming closes Spell Binding, a write of the table's that comes after it: the answer
    offers no undo (one would be refused as not its own), as a read of the game then says."""
    run(db, "new", "Ann", "Bob", "Cy", "--first", "Ann", "--spell-binding")  # game 2
    client = client_for(db)
    ann, bob, cy = (join(client, name, game=2).get_json()["token"] for name in ("Ann", "Bob", "Cy"))
    act(client, ann, game=2, action="discard", letters="oclnusm", seen=version(client, ann, game=2))
    passed = act(client, bob, game=2, action="pass", seen=version(client, bob, game=2)).get_json()
    assert passed["phase"] == "spell_binding" and passed["can_undo"]  # still Bob's own last write
    named = act(client, cy, game=2, action="bind", word="column", seen=passed["version"]).get_json()
    assert named["phase"] != "spell_binding" and not named["can_undo"], named
    assert client.get("/api/games/2/play", headers=bearer(cy)).get_json()["can_undo"] is False


def test_the_rate_counters_stay_bounded_and_keep_the_ones_still_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys come from clients (addresses, tokens' digests): past ``MAX_KEYS`` the least recently counted are
    forgotten, one per new key, so a flood of new keys neither grows memory nor scans every counter, and an
    address still being counted keeps its count."""
    from referee.board import seats

    monkeypatch.setattr(seats, "MAX_KEYS", 3)
    tables = seats.Tables(host="x")
    for _ in range(5):
        assert not tables.limited("address:10.0.0.1", 5, 60.0)
    for i in range(2, 10):
        assert not tables.limited(f"address:10.0.0.{i}", 5, 60.0)
        assert tables.limited("address:10.0.0.1", 5, 60.0)  # over its limit: still counted, still refused
    assert len(tables.hits.keys) == 3


# -- a write waiting for the database's lock ------------------------------------------------------

@pytest.mark.slow
def test_pages_answer_while_a_phone_waits_for_the_cli_lock(db: Path) -> None:
    """While another uw-referee holds the write lock, a phone's action waits for it (SQLite's busy timeout):
    the board's other pages and streams keep answering meanwhile, and the action lands when the lock goes."""
    import sqlite3
    import threading
    import time
    import urllib.request

    from board_support import Board, players_secrets

    with Board(db, "--players") as board:
        code, _secret = players_secrets(board)

        def call(path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
            headers = {"Content-Type": "application/json", **(bearer(token) if token else {})}
            data = None if body is None else __import__("json").dumps(body).encode()
            with urllib.request.urlopen(urllib.request.Request(board.url + path, data=data, headers=headers),
                                        timeout=30) as answer:
                return __import__("json").loads(answer.read() or b"null")

        token = call("/api/games/1/seats", {"code": code, "seat": "Cindi"})["token"]
        read = call("/api/games/1/play", token=token)
        seen, count = read["version"], read["events"]
        cli = sqlite3.connect(str(db), isolation_level=None)
        cli.execute("BEGIN IMMEDIATE")  # as the CLI holds it while it writes
        posted: dict[str, Any] = {}

        def post() -> None:
            posted["answer"] = call("/api/games/1/actions", {"action": "discard", "seen": seen}, token)

        poster = threading.Thread(target=post)
        poster.start()
        try:
            time.sleep(0.5)  # the action is waiting for the lock
            began = time.monotonic()
            with urllib.request.urlopen(board.url + "/", timeout=30) as page:
                assert page.status == 200
            page_s = time.monotonic() - began
            still_waiting = poster.is_alive()
            time.sleep(1.0)
        finally:
            cli.execute("ROLLBACK")
            cli.close()
        poster.join(30)
        assert still_waiting
        # margin: a page queued behind the action would wait out the busy timeout (10 s); 1 s is a tenth of it
        assert page_s < 1.0, f"the board's page took {page_s:.2f} s while a phone's action waited for the lock"
        assert posted["answer"]["events"] == count + 1


@pytest.mark.slow  # waits out SQLite's whole busy timeout (10 s) before the 503 it checks
def test_a_database_locked_past_the_busy_timeout_is_a_503_that_changes_nothing(db: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    import referee
    from referee.store import Store

    class Impatient(Store):
        def __init__(self, path: Any, **kwargs: Any) -> None:
            super().__init__(path, timeout=0.2)

    monkeypatch.setattr(referee, "Store", Impatient)
    client = client_for(db)
    token = join(client, "Cindi").get_json()["token"]
    seen = version(client, token)
    cli = sqlite3.connect(str(db), isolation_level=None)
    cli.execute("BEGIN IMMEDIATE")
    try:
        answer = act(client, token, action="discard", seen=seen)
    finally:
        cli.execute("ROLLBACK")
        cli.close()
    detail = problem(answer, 503, "store")
    # the busy sentence tells the phone to try again; the database's path is for the operator's log only
    assert "busy" in detail and "database" in detail and str(db) not in detail and db.name not in detail
    assert answer.get_json()["title"] == "Try again"
    assert answer.headers["Retry-After"]
    assert version(client, token) == seen


def test_the_verdict_on_a_game_that_does_not_exist_is_a_404(db: Path) -> None:
    client = client_for(db)
    problem(client.get("/api/games/5/verdict?word=look"), 404, "no-game")
    for number in (2**63, 10**20):  # past SQLite's integers: no game, not a 500
        problem(client.get(f"/api/games/{number}/verdict?word=look"), 404, "no-game")
        problem(client.get(f"/api/games/{number}/seats"), 404, "no-game")


def test_a_request_waits_when_the_hosts_answer_cannot_be_read(db: Path) -> None:
    client = client_for(db)
    cindi = join(client, "Cindi").get_json()["token"]
    paul = join(client, "Paul").get_json()["token"]
    act(client, cindi, action="play", word="look", roll=7, seen=version(client, cindi))
    asked = client.post("/api/games/1/requests", json={"action": "undo", "seen": version(client, paul)},
                        headers=bearer(paul))
    rid = asked.get_json()["request"]
    problem(client.post(f"/api/games/1/requests/{rid}", data="nope", content_type="text/plain",
                        headers=bearer(HOST)), 400, "bad-request")
    assert [r["id"] for r in client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]] == [rid]
    done = client.post(f"/api/games/1/requests/{rid}", json={"confirm": True}, headers=bearer(HOST))
    assert done.status_code == 200


def test_behind_a_proxy_the_limits_count_each_players_address(db: Path) -> None:
    """With UW_BOARD_PROXIES=127.0.0.1 (deploy/uw-board.env), wrong codes from one phone do not lock out another."""
    client = client_for(db, BOARD_PROXIES="127.0.0.1")
    for _i in range(5):
        problem(join_from(client, "10.0.0.1", "AAAAAA"), 403, "wrong-code")
    problem(join_from(client, "10.0.0.1", code_of(db)), 429, "too-many-codes")
    assert join_from(client, "10.0.0.2", code_of(db)).status_code == 201
    unproxied = client_for(db)  # without it the header is not trusted: everyone is the proxy's address
    for _i in range(5):
        problem(join_from(unproxied, "10.0.0.3", "AAAAAA"), 403, "wrong-code")
    problem(join_from(unproxied, "10.0.0.4", code_of(db)), 429, "too-many-codes")


def join_from(client: Any, address: str, code: str) -> Any:
    return client.post("/api/games/1/seats", json={"code": code, "seat": "Paul"},
                       headers={"X-Forwarded-For": address})


def test_a_host_request_without_credentials_is_asked_for_them(db: Path) -> None:
    """No credentials at all: 401 with WWW-Authenticate; a seat's token or a wrong secret: 403."""
    client, stranger = client_for(db), client_for(db)  # the stranger's client holds no seat's cookie
    paul = join(client, "Paul").get_json()["token"]
    for method, path in (("get", "/api/games/1/host"), ("post", "/api/games/1/corrections"),
                         ("delete", "/api/games/1/seats/Paul")):
        answer = getattr(stranger, method)(path, json={"action": "undo", "seen": 1})
        problem(answer, 401, "no-token")
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        problem(getattr(client, method)(path, json={"action": "undo", "seen": 1}, headers=bearer(paul)), 403,
                "not-host")
        problem(getattr(client, method)(path, json={"action": "undo", "seen": 1}, headers=bearer("wrong")), 403,
                "not-host")


def test_an_action_s_answer_reads_nothing_more(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer says the game as the write left it (its state, version and last actions come back from the write's
    own transaction): no round with the board's watcher (on PostgreSQL a round trip on the listening connection,
    which every other answer waits behind), no read of the board's copy."""
    from referee.board.runtime import runtime

    client = client_for(db)
    token = join(client, "Cindi").get_json()["token"]
    seen = events(client, token)
    watcher = runtime(client.application).watcher
    polls: list[int] = []
    real = watcher.poll

    def counted() -> int:
        polls.append(1)
        version: int = real()
        return version

    monkeypatch.setattr(watcher, "poll", counted)
    answer = act(client, token, action="discard", seen=version(client, token))
    assert answer.status_code == 200 and answer.get_json()["events"] == seen + 1
    assert answer.get_json()["recent"][0].startswith("Cindi discards")
    assert polls == []


@pytest.mark.parametrize(("method", "path", "body"), [
    ("DELETE", "/api/games/{big}/seats/Ann", None),
    ("POST", "/api/games/{big}/requests/abc", {"confirm": True}),
    ("GET", "/api/games/{big}/host", None),
])
def test_a_host_route_for_a_game_past_the_databases_integers_is_no_game(
        db: Path, method: str, path: str, body: Any) -> None:
    """A game number past 64-bit integers (a typed or forged address) names no game: 404 in problem+json, never
    an overflow inside the query (SQLite raises on it) answered as a 500."""
    run(db, "new", "Ann", "Bob", "--first", "Ann", check=True)
    client = client_for(db)
    answer = client.open(path.format(big=2**64), method=method, json=body, headers=bearer(HOST))
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json", answer.get_data(as_text=True)
