"""Hosted tables (``board --hosted``, issue 25 point 3), over both backends: a table started from the form and from
the API, the gate (a game answers only with its code, a seat's token or its host token; one 404 for a missing game
and a missing code; no list of games), the per-table host token, the purge of finished games past the keep time,
and the export of a finished game, byte for byte the CLI's."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from board_support import game_code, game_host_token, wait_until
from cli_support import run
from click.testing import CliRunner
from postgres_support import Backend

from referee.board.app import create_app
from referee.board.seats import join_code
from referee.cli import cli
from referee.retention import expired, older_than
from referee.store_format import GameSummary

HOST = "host-secret-of-the-hosted-tests-0123456789abcdef"


def hosted_client(backend: Backend, apps: list[Any], **config: Any) -> Any:
    """A device (its own cookies) on the hosted board of the test (made by the first call; ``config`` makes
    another board)."""
    if not apps or config:
        app = create_app({"BOARD_DB": backend.url, "BOARD_GAME": None, "TESTING": True, "BOARD_HOSTED": True,
                          "BOARD_HOST_SECRET": HOST, "BOARD_STREAM_SECONDS": 0.2, **config})
        apps.append(app)
    return apps[-1].test_client()


def start(client: Any, *players: str, **choices: Any) -> dict[str, Any]:
    answer = client.post("/api/tables", json={"players": list(players), "dice": "virtual", **choices})
    assert answer.status_code == 201, answer.get_json()
    made: dict[str, Any] = answer.get_json()
    return made


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def problem(answer: Any, status: int, kind: str) -> str:
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True))
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["type"] == f"urn:uw-referee:{kind}" and body["status"] == status
    detail: str = body["detail"]
    return detail


def finish(url: str, game: int) -> None:
    """Play ``game`` to its end (a target of 5: TAPS scores 10 on a roll of 15)."""
    assert run(url, "--game", str(game), "play", "taps", "--roll", "15").exit_code == 0  # type: ignore[arg-type]


def physical_game(url: str, *players: str, target: int = 100) -> int:
    result = run(url, "new", *players, "--first", players[0], "--target", str(target))  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return int(result.output.split()[1].rstrip(":"))


# -- starting a table -----------------------------------------------------------------------------

def test_the_root_is_a_start_form_that_shows_no_game(backend: Backend, apps: list[Any]) -> None:
    physical_game(backend.url, "Cindi", "Paul")
    page = hosted_client(backend, apps).get("/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="start-form"' in html and 'action="/tables"' in html
    assert "Cindi" not in html and "/games/1" not in html and "Games</a>" not in html  # no game, no list


def test_a_table_started_from_the_form_opens_with_its_links(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps, BOARD_PUBLIC_URL="http://tables.example/")
    answer = client.post("/tables", data={"player": ["Ann", "Bob", "", ""], "option": ["oath", "last_words"],
                                          "dice": "physical", "first": "bob", "deck": "standard", "target": "50",
                                          "level": "60", "card_accounting": "on"})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 201, html
    code = game_code(backend.url, HOST, 1)
    assert f'href="http://tables.example/games/1?code={code}"' in html
    assert f"http://tables.example/games/1/join?code={code}" in html
    assert f"http://tables.example/games/1/host?code={code}#{game_host_token(backend.url, HOST, 1)}" in html
    setup = backend.store().setup(1)[1]
    assert setup.players == ("Ann", "Bob") and setup.target == 50 and setup.dice == "physical"
    assert setup.options.oath and setup.options.last_words and not setup.options.spell_binding
    assert backend.store().load(1)[1].state.current.name == "Bob"  # type: ignore[union-attr]  # won the roll-off
    board = client.get(f"/games/1?code={code}")
    assert board.status_code == 200 and "Ann" in board.get_data(as_text=True)
    assert f"uw_code_1={code}" in board.headers["Set-Cookie"] and "HttpOnly" in board.headers["Set-Cookie"]
    stream = client.head("/games/1/events")  # the page's stream carries the cookie the page set
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    phone = client.get("/games/1/join").get_data(as_text=True)
    assert f'value="{code}"' in phone  # the phone's code is filled in
    assert client.get("/games/1/join.svg").status_code == 200
    again = client.post("/tables", data={"player": ["Ann", "ann"], "dice": "virtual"})
    assert again.status_code == 422 and "used twice" in again.get_data(as_text=True)
    assert 'value="Ann"' in again.get_data(as_text=True)  # the form again, filled in as it was
    assert [g.id for g in backend.store().games()] == [1]


def test_the_api_starts_a_table_with_the_same_set_up_as_new(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob", "Cy", options=["spell_binding"], deck="standard", target=80)
    assert made["game"] == 1 and made["code"] == game_code(backend.url, HOST, 1)
    assert made["host_token"] == game_host_token(backend.url, HOST, 1)
    assert made["join"].endswith(f"/games/1/join?code={made['code']}") and made["keep_days"] == 30
    assert made["host"].endswith(f"#{made['host_token']}")
    setup = backend.store().setup(1)[1]
    assert setup.dice == "virtual" and setup.options.spell_binding and setup.target == 80
    assert 0 <= setup.seed < 2**31  # the board's own: a client gives none
    state = backend.store().load(1)[1].state
    assert state.current is not None  # the referee rolled the roll-off
    double = start(client, *"ABCDEFG", deck="double")
    assert backend.store().setup(double["game"])[1].deck.name == "double"


@pytest.mark.parametrize(("body", "status", "kind", "said"), [
    ({"players": ["Ann", ""]}, 422, "refused", "1 to 32 printable characters"),
    ({"players": ["Ann", "ANN"]}, 422, "refused", "used twice"),
    ({"players": ["Ann"]}, 422, "refused", "2 to 8"),
    ({"players": [f"P{i}" for i in range(9)]}, 422, "refused", "2 to 8"),
    ({"players": [f"P{i}" for i in range(7)]}, 422, "refused", "larger deck"),
    ({"players": ["Ann", "Bob"], "options": ["cheating"]}, 400, "bad-choice", "Unknown optional rule 'cheating'"),
    ({"players": ["Ann", "Bob"], "dice": "loaded"}, 400, "bad-choice", "Unknown dice 'loaded'"),
    ({"players": ["Ann", "Bob"], "deck": "/etc/passwd"}, 400, "bad-choice", "neither 'standard'"),
    ({"players": ["Ann", "Bob"], "dice": "physical"}, 422, "refused", "roll-off"),
    ({"players": ["Ann", "Bob"], "dice": "physical", "first": "Zed"}, 422, "refused", "Zed"),
    ({"players": ["Ann", "Bob"], "seed": 3, "dice": "physical", "first": "Ann"}, 400, "bad-seed", '"seed"'),
    ({"players": ["Ann", "Bob"], "seed": 3}, 400, "bad-seed", "take no seed"),
    ({"players": ["Ann", "Bob"], "target": 0}, 422, "refused", "Target 0"),
    ({"players": ["Ann", "Bob"], "target": "many"}, 400, "bad-number", "'target' is a whole number"),
    ({"players": ["Ann", "Bob"], "level": 61}, 422, "refused", "size"),
    ({"players": "Ann, Bob"}, 400, "bad-players", "list of names"),
    ({"players": ["Ann", 2]}, 400, "bad-players", "list of names"),
    ({"players": ["Ann", "Bob"], "options": "oath"}, 400, "bad-options", "list of names"),
    ({"players": ["Ann", "Bob"], "card_accounting": "no"}, 400, "bad-number", "true or false"),
    ({"players": ["Ann", "Bob"], "deck": {"counts": {"A": -1}}}, 400, "bad-choice", "count for A"),
    ([], 400, "bad-request", "JSON object"),
])
def test_a_bad_table_is_refused_in_words_and_starts_nothing(backend: Backend, apps: list[Any], body: Any,
                                                            status: int, kind: str, said: str) -> None:
    client = hosted_client(backend, apps)
    detail = problem(client.post("/api/tables", json=body), status, kind)
    assert said in detail
    assert backend.store().games() == []


def test_table_creation_is_limited_per_address(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    for _i in range(10):
        start(client, "Ann", "Bob")
    problem(client.post("/api/tables", json={"players": ["Ann", "Bob"]}), 429, "rate-limit")
    other = client.post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "virtual"},
                        environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert other.status_code == 201  # another device may
    assert len(backend.store().games()) == 11


# -- the gate -------------------------------------------------------------------------------------

GAME_ROUTES = ["/games/{n}", "/api/games/{n}", "/games/{n}/events", "/games/{n}/join", "/games/{n}/join.svg",
               "/games/{n}/host", "/api/games/{n}/seats", "/api/games/{n}/export", "/judge?game={n}&words=taps"]


@pytest.mark.parametrize("route", GAME_ROUTES)
def test_a_game_without_its_code_is_the_same_404_as_no_game(backend: Backend, apps: list[Any], route: str) -> None:
    client = hosted_client(backend, apps)
    one, two = start(client, "Ann", "Bob", dice="physical", first="Ann", target=5), start(client, "Cy", "Di")
    path = route.format(n=one["game"])
    fresh = hosted_client(backend, apps)  # a device that was never given a code
    refused = fresh.get(path)
    assert refused.status_code == 404
    assert fresh.get(path + ("&" if "?" in path else "?") + f"code={two['code']}").data == refused.data  # 2's code
    assert fresh.get(path, headers=bearer(two["host_token"])).data == refused.data  # 2's host token
    granted = fresh.get(path + ("&" if "?" in path else "?") + f"code={one['code']}")
    assert granted.status_code == (409 if "export" in route else 200), granted.get_data(as_text=True)  # in play
    # Game 1 gone (purged): with its right code, its answer is the very answer it gave without one.
    finish_and_purge(backend, one["game"])
    gone = hosted_client(backend, apps)
    with_code = path + ("&" if "?" in path else "?") + f"code={one['code']}"
    # On PostgreSQL the board hears of the purge by its NOTIFY: wait for that state, not for a time
    wait_until(lambda: gone.get(with_code).status_code == 404, "the board to hear that game 1 was purged")
    assert gone.get(with_code).data == refused.data
    assert gone.get(path).data == refused.data
    assert refused.headers["Content-Type"] == gone.get(path).headers["Content-Type"]


def finish_and_purge(backend: Backend, game: int) -> None:
    from referee.store_pg import open_store

    finish(backend.url, game)  # the purge deletes finished games only
    store = open_store(backend.url)
    assert store.purge(lambda summaries: [s.id for s in summaries if s.id == game]) == [game]
    store.close()


def test_a_seats_token_opens_its_game_only(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    one, two = start(client, "Ann", "Bob"), start(client, "Cy", "Di")
    phone = hosted_client(backend, apps)
    seat = phone.post("/api/games/1/seats", json={"code": one["code"], "seat": "Ann"})  # the code in the body
    assert seat.status_code == 201, seat.get_json()
    token = seat.get_json()["token"]
    bot = hosted_client(backend, apps)
    assert bot.get("/api/games/1", headers=bearer(token)).status_code == 200
    assert bot.get("/api/games/1/play", headers=bearer(token)).status_code == 200
    assert bot.get("/api/games/2", headers=bearer(token)).status_code == 404  # not another table's
    assert phone.get("/games/1").status_code == 200  # the seat's cookie opens the TV's page too
    assert phone.head("/games/1/events").status_code == 200
    assert phone.get("/api/games/2").status_code == 404
    wrong = hosted_client(backend, apps)
    problem(wrong.post("/api/games/1/seats", json={"code": two["code"], "seat": "Bob"}), 404, "no-game")


def test_no_page_lists_the_games_or_shows_a_current_one(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    start(client, "Zelda", "Yorick")
    for path in ("/games", "/api/games", "/api/games/current", "/events", "/join", "/host"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "Zelda" not in answer.get_data(as_text=True)
    judge = client.get("/judge?words=taps").get_data(as_text=True)
    assert "Judged for game" not in judge and "No game is running" in judge
    assert client.get("/api/openapi.json").status_code == 200 and client.get("/static/board.css").status_code == 200


def test_wrong_codes_are_counted_per_address(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob")
    guesser = hosted_client(backend, apps)
    for _i in range(5):
        assert guesser.get("/api/games/1?code=AAAAAA").status_code == 404
    problem(guesser.get(f"/api/games/1?code={made['code']}"), 429, "too-many-codes")
    page = guesser.get(f"/games/1?code={made['code']}")  # a page says it as a page
    assert page.status_code == 429 and page.mimetype == "text/html" and page.headers["Retry-After"]
    assert "Too many wrong join codes" in page.get_data(as_text=True)
    assert hosted_client(backend, apps).get(f"/api/games/1?code={made['code']}").status_code == 429  # same address
    assert client.get(f"/api/games/1?code={made['code']}", environ_base={"REMOTE_ADDR": "192.0.2.5"}
                      ).status_code == 200


# -- the host of one table -----------------------------------------------------------------------

def test_a_tables_host_token_acts_on_that_table_only(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    one, two = start(client, "Ann", "Bob"), start(client, "Cy", "Di")
    assert client.post("/api/games/1/seats", json={"code": one["code"], "seat": "Ann"}).status_code == 201
    assert client.post("/api/games/2/seats", json={"code": two["code"], "seat": "Cy"}).status_code == 201
    host = hosted_client(backend, apps)
    view = host.get("/api/games/1/host", headers=bearer(one["host_token"]))
    assert view.status_code == 200 and view.get_json()["current"] is None
    assert [s["taken"] for s in view.get_json()["seats"]] == [True, False]
    # Table 1's token on table 2: no way in without 2's code; with it, still not 2's host.
    assert host.delete("/api/games/2/seats/Cy", headers=bearer(one["host_token"])).status_code == 404
    problem(host.delete(f"/api/games/2/seats/Cy?code={two['code']}", headers=bearer(one["host_token"])), 403,
            "not-host")
    problem(host.post(f"/api/games/2/corrections?code={two['code']}", json={"action": "undo", "seen": 1},
                      headers=bearer(one["host_token"])), 403, "not-host")
    assert host.delete("/api/games/1/seats/Ann", headers=bearer(one["host_token"])).status_code == 204
    assert host.get("/api/games/2/host", headers=bearer(HOST)).status_code == 200  # the operator's secret: every table
    assert host.delete("/api/games/2/seats/Cy", headers=bearer(two["host_token"])).status_code == 204
    page = host.get(f"/games/1/host?code={one['code']}")
    assert page.status_code == 200 and 'data-game="1"' in page.get_data(as_text=True)


# -- keeping finished games for a time -------------------------------------------------------------

def age(backend: Backend, game: int, days: float) -> None:
    """Make ``game``'s last action ``days`` days old (the store's own time format)."""
    stamp = (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="milliseconds")
    backend.sql("UPDATE games SET updated_at = ? WHERE id = ?", (stamp, game))


def test_retention_chooses_finished_games_past_the_keep_time_only() -> None:
    now = datetime(2026, 12, 4, 12, tzinfo=UTC)

    def summary(gid: int, days: float, phase: str, winner: str | None) -> GameSummary:
        stamp = (now - timedelta(days=days)).isoformat(timespec="milliseconds")
        return GameSummary(gid, ("A", "B"), stamp, stamp, phase, None, winner, (0, 0))

    games = [summary(1, 31, "over", "A"), summary(2, 29, "over", "A"), summary(3, 400, "action", None),
             summary(4, 30.01, "over", "B"), GameSummary(5, ("A",), "?", "not a time", "over", None, "A", (0,))]
    assert expired(games, now, 30) == [1, 4]
    assert expired(games, now, 0) == [1, 2, 4]
    assert expired(games, now, 1000) == []


def test_purge_deletes_old_finished_games_and_keeps_the_others(backend: Backend) -> None:
    old_done = physical_game(backend.url, "Ann", "Bob", target=5)
    finish(backend.url, old_done)
    assert run(backend.url, "--game", str(old_done), "undo").exit_code == 0  # type: ignore[arg-type]
    assert run(backend.url, "--game", str(old_done), "redo").exit_code == 0  # type: ignore[arg-type]  # a correction
    recent_done = physical_game(backend.url, "Cy", "Di", target=5)
    finish(backend.url, recent_done)
    old_playing = physical_game(backend.url, "Ed", "Flo")
    for game in (old_done, old_playing):
        age(backend, game, 45)
    age(backend, recent_done, 10)
    assert backend.sql("SELECT count(*) FROM corrections WHERE game_id = ?", (old_done,))[0][0] == 2
    assert backend.store().purge(older_than(30)) == [old_done]
    assert [g.id for g in backend.store().games()] == [old_playing, recent_done] or \
        sorted(g.id for g in backend.store().games()) == [recent_done, old_playing]
    for table in ("events", "snapshots", "corrections", "redo"):
        assert backend.sql(f"SELECT count(*) FROM {table} WHERE game_id = ?", (old_done,))[0][0] == 0, table
    assert backend.sql("SELECT count(*) FROM events WHERE game_id = ?", (old_playing,))[0][0] > 0
    assert backend.store().verify()[2] == []  # what is left is whole
    assert backend.store().purge(older_than(30)) == []


def test_the_purge_command(backend: Backend) -> None:
    done = physical_game(backend.url, "Ann", "Bob", target=5)
    finish(backend.url, done)
    age(backend, done, 3)
    kept = run(backend.url, "purge", "--older-than", "5")  # type: ignore[arg-type]
    assert kept.exit_code == 0 and "nothing was deleted" in kept.output
    gone = run(backend.url, "purge", "--older-than", "2")  # type: ignore[arg-type]
    assert gone.exit_code == 0 and f"Deleted 1 finished game: {done}." in gone.output, gone.output
    assert backend.store().games() == []
    assert run(backend.url, "purge").exit_code == 2  # type: ignore[arg-type]
    assert run(backend.url, "purge", "--older-than", "-1").exit_code == 2  # type: ignore[arg-type]


def test_a_hosted_board_purges_when_it_starts(backend: Backend, apps: list[Any]) -> None:
    done, playing = physical_game(backend.url, "Ann", "Bob", target=5), physical_game(backend.url, "Cy", "Di")
    finish(backend.url, done)
    age(backend, done, 8)
    age(backend, playing, 8)
    hosted_client(backend, apps, BOARD_KEEP_DAYS=10.0)
    assert sorted(g.id for g in backend.store().games()) == [done, playing]
    hosted_client(backend, apps, BOARD_KEEP_DAYS=7.0)
    assert [g.id for g in backend.store().games()] == [playing]


def test_a_hosted_board_purges_again_when_the_time_comes(backend: Backend, apps: list[Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.board import hosted

    client = hosted_client(backend, apps, BOARD_KEEP_DAYS=1.0)
    done = physical_game(backend.url, "Ann", "Bob", target=5)
    finish(backend.url, done)
    age(backend, done, 2)
    client.get("/")
    assert [g.id for g in backend.store().games()] == [done]  # not yet: the last purge was just now
    monkeypatch.setattr(hosted, "PURGE_SECONDS", 0.0)
    client.get("/")
    assert backend.store().games() == []


# -- exporting a finished game --------------------------------------------------------------------

def test_the_export_is_the_clis_to_the_byte(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob", dice="physical", first="Ann", target=5)
    seat = client.post("/api/games/1/seats", json={"code": made["code"], "seat": "Ann"}).get_json()
    seen = client.get("/api/games/1/play", headers=bearer(seat["token"])).get_json()["version"]
    play = client.post("/api/games/1/actions", json={"action": "play", "word": "taps", "roll": 15, "seen": seen},
                       headers=bearer(seat["token"]))
    assert play.status_code == 200 and play.get_json()["over"], play.get_json()
    board = client.get("/games/1").get_data(as_text=True)  # the cookie of the seat's phone
    assert 'href="/api/games/1/export"' in board
    cli_export = CliRunner().invoke(cli, ["--db", backend.url, "--game", "1", "export"], catch_exceptions=False)
    assert cli_export.exit_code == 0
    answer = hosted_client(backend, apps).get(f"/api/games/1/export?code={made['code']}")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert 'filename="uw-game-1.json"' in answer.headers["Content-Disposition"]
    assert answer.data == cli_export.stdout_bytes
    assert hosted_client(backend, apps).get("/api/games/1/export", headers=bearer(seat["token"])).data == answer.data
    problem(hosted_client(backend, apps).get("/api/games/1/export"), 404, "no-game")


# -- the command ----------------------------------------------------------------------------------

def test_the_command_hosts_tables(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from referee.board import cli as board_cli

    class Server:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def run(self) -> None:
            raise SystemExit(0)

    monkeypatch.setattr("referee.board.server.BoardServer", Server)
    monkeypatch.setattr(board_cli, "check_port", lambda _host, _port: None)
    for name in ("UW_BOARD_PLAYERS", "UW_BOARD_HOST_SECRET", "UW_BOARD_PUBLIC_URL", "UW_BOARD_HOST_LANG", "UW_BOARD_DB",
                 "UW_BOARD_GAME", "UW_BOARD_STREAMS", "UW_BOARD_PER_ADDRESS", "UW_BOARD_HOSTED", "UW_BOARD_KEEP_DAYS"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", HOST)
    physical_game(backend.url, "Ann", "Bob")
    result = CliRunner().invoke(cli, ["--db", backend.url, "board", "--hosted", "--keep", "7", "--port", "8651"])
    assert result.exit_code == 0, result.output
    assert "Anyone who opens http://127.0.0.1:8651/ can start a table" in result.output
    assert "kept 7 days" in result.output
    assert join_code(os.environ["UW_BOARD_HOST_SECRET"], 1) not in result.output  # no game's code said
    assert os.environ["UW_BOARD_HOSTED"] == "1" and os.environ["UW_BOARD_PLAYERS"] == "1"
    assert os.environ["UW_BOARD_KEEP_DAYS"] == "7.0"
    by_env = CliRunner().invoke(cli, ["--db", backend.url, "board", "--port", "8651"],
                                env={"UW_BOARD_HOSTED": "1", "UW_BOARD_KEEP_DAYS": "1"})
    assert by_env.exit_code == 0 and "can start a table" in by_env.output and "kept 1 day after" in by_env.output
    monkeypatch.setenv("UW_BOARD_HOSTED", "")
    refused = CliRunner().invoke(cli, ["--db", backend.url, "board", "--keep", "7", "--port", "8651"])
    assert refused.exit_code == 2 and "--keep is for --hosted" in refused.output
    monkeypatch.setenv("UW_BOARD_KEEP_DAYS", "soon")
    bad = CliRunner().invoke(cli, ["--db", backend.url, "board", "--hosted", "--port", "8651"])
    assert bad.exit_code == 2 and "UW_BOARD_KEEP_DAYS='soon'" in bad.output


def test_the_openapi_document_names_the_hosted_routes(backend: Backend, apps: list[Any]) -> None:
    definitions = pytest.importorskip("schemathesis.specs.openapi.definitions")
    document = hosted_client(backend, apps).get("/api/openapi.json").get_json()
    definitions.OPENAPI_31_VALIDATOR.validate(document)
    assert "post" in document["paths"]["/api/tables"] and "get" in document["paths"]["/api/games/{id}/export"]
    routes = {rule.rule for rule in apps[-1].url_map.iter_rules() if rule.endpoint.startswith("hosted.")}
    assert routes == {"/tables", "/api/tables", "/games/<int:game_id>/host", "/api/games/<int:game_id>/export"}


def test_a_purged_game_takes_its_seats_with_it(backend: Backend, apps: list[Any]) -> None:
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob", dice="physical", first="Ann", target=5)
    token = client.post("/api/games/1/seats", json={"code": made["code"], "seat": "Ann"}).get_json()["token"]
    seen = client.get("/api/games/1/play", headers=bearer(token)).get_json()["version"]
    assert client.post("/api/games/1/actions", json={"action": "play", "word": "taps", "roll": 15, "seen": seen},
                       headers=bearer(token)).get_json()["over"]
    counts = "SELECT (SELECT count(*) FROM seats), (SELECT count(*) FROM phone_actions)"
    assert backend.sql(counts)[0] == (1, 1)
    age(backend, 1, 2)
    later = hosted_client(backend, apps, BOARD_KEEP_DAYS=1.0)  # the next start of the board purges it
    assert backend.store().games() == [] and backend.sql(counts)[0] == (0, 0)
    assert later.get("/api/games/1/play", headers=bearer(token)).status_code == 404


def test_seats_that_cannot_be_read_are_a_503_not_a_500(backend: Backend, apps: list[Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from dictionaries.i18n import msg
    from referee.board import hosted
    from referee.store import StoreError

    client = hosted_client(backend, apps)
    start(client, "Ann", "Bob")

    def unreadable(_game: int, *, write: bool) -> None:  # noqa: ARG001 - seat_for's signature
        raise StoreError(msg("cannot open {path}: {why}", path="/secret/games.sqlite3", why="disk I/O error"))

    monkeypatch.setattr(hosted, "seat_for", unreadable)
    answer = client.get("/api/games/1", headers=bearer("some-seat-token"))
    detail = problem(answer, 503, "store")
    assert "/secret" not in detail and "disk I/O" not in detail
    page = client.get("/games/1", headers=bearer("some-seat-token"))
    assert page.status_code == 503 and page.mimetype == "text/html" and "/secret" not in page.get_data(as_text=True)
