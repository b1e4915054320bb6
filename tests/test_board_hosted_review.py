"""What a second read of the hosted board (issue 25) found, one test each (first written on branch review-scratch as
failing tests of the bugs), now each a test of what holds: the export of a game in play and a client's seed, the
secret a hosted board needs, the limits behind a proxy and behind one venue's address, bad input answered in
words (never a 500), the purge of a damaged game, an action whose phone record fails, and the API's words. Kept in
one file: most of them cross modules (the command, the gate, the store, the deploy's settings)."""
from __future__ import annotations

import os
from typing import Any

import pytest
from postgres_support import Backend
from test_board_hosted import age, bearer, finish, hosted_client, physical_game, problem, start

from referee.board.app import create_app
from referee.board.runtime import runtime
from referee.retention import older_than
from referee.store import StoreError


def _board_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``board``'s ``_players_env`` sets, put back after the test."""
    for key in ("UW_BOARD_PLAYERS", "UW_BOARD_HOST_SECRET", "UW_BOARD_PUBLIC_URL", "UW_BOARD_HOST_LANG",
                "UW_BOARD_KEEP_DAYS", "UW_BOARD_HOSTED", "UW_BOARD_DB", "UW_BOARD_GAME", "UW_BOARD_STREAMS",
                "UW_BOARD_PER_ADDRESS", "UW_BOARD_EMBED"):
        monkeypatch.setenv(key, "")  # recorded (an unset one is unset again after the test), then unset
        monkeypatch.delenv(key)


def _seated(client: Any, made: dict[str, Any], name: str) -> tuple[str, str]:
    """A seat's token in the table ``made`` and the game's version its phone saw."""
    taken = client.post(f"/api/games/{made['game']}/seats", json={"code": made["code"], "seat": name})
    assert taken.status_code == 201, taken.get_json()
    token: str = taken.get_json()["token"]
    seen: str = client.get(f"/api/games/{made['game']}/play", headers=bearer(token)).get_json()["version"]
    return token, seen


# -- the dice ---------------------------------------------------------------------------------------

def test_export_of_an_unfinished_game_hides_the_seed(backend: Backend, apps: list[Any]) -> None:
    """Every virtual roll is ``Random(f"{seed}:{events}:{salt}")``: whoever has the seed knows each sanity roll
    before playing. The board never shows it (``State.to_dict`` leaves it out); the export, which gives it, is
    refused (409, in the request's language) until the game is over, to a seat as to a spectator."""
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob", dice="physical", first="Ann", target=5)
    token, _seen = _seated(client, made, "Ann")
    for headers in ({}, {"Accept-Language": "es"}, bearer(token)):
        exported = client.get(f"/api/games/{made['game']}/export?code={made['code']}", headers=headers)
        problem(exported, 409, "in-play")
        assert "seed" not in exported.get_data(as_text=True)
    said = client.get(f"/api/games/{made['game']}/export?code={made['code']}", headers={"Accept-Language": "es"})
    assert "todavía" in said.get_json()["detail"], said.get_json()
    finish(backend.url, made["game"])
    done = client.get(f"/api/games/{made['game']}/export?code={made['code']}")
    assert done.status_code == 200 and "seed" in done.get_json()["setup"]  # over: nothing left to foretell


def test_a_table_started_over_http_takes_no_seed(backend: Backend, apps: list[Any]) -> None:
    """A client that chose the seed of its table's dice would know every roll to come: ``seed`` is refused (400,
    naming it) and nothing is started; the board draws its own."""
    client = hosted_client(backend, apps)
    detail = problem(client.post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "virtual", "seed": 7}),
                     400, "bad-seed")
    assert '"seed"' in detail
    assert backend.store().games() == []


# -- 500s for bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("hosted", [False, True])
def test_the_judge_with_a_superscript_digit_as_game_says_there_is_no_such_game(tmp_path: Any, hosted: bool) -> None:
    """``"²".isdigit()`` is True but ``int("²")`` raises: ``/judge?game=²`` was a 500 (the gate's and the judge's
    own ``isdigit`` checks); it is the judge's "no such game" 404."""
    app = create_app({"BOARD_DB": str(tmp_path / "g.sqlite3"), "BOARD_GAME": None, "TESTING": True,
                      "BOARD_HOSTED": hosted, "BOARD_HOST_SECRET": "x" * 43})
    try:
        for asked in ("%C2%B2", "%D9%A3", str(2**64)):  # '²', an Arabic-Indic 3, beyond SQLite's integers
            answer = app.test_client().get(f"/judge?game={asked}")
            assert answer.status_code == 404, (asked, answer.status_code)
            assert "no game" in answer.get_data(as_text=True)
    finally:
        runtime(app).watcher.stop()


def test_a_non_ascii_bearer_token_is_an_invalid_token_not_a_500(backend: Backend, apps: list[Any]) -> None:
    """``hmac.compare_digest`` refuses str with non-ASCII characters (TypeError): ``Authorization: Bearer é`` on any
    route of a game was a 500. No token of ours is other text: it is a token that is not valid, as any other."""
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob")
    header = {"Authorization": "Bearer \u00e9t\u00e9"}
    assert client.get(f"/games/{made['game']}?code={made['code']}", headers=header).status_code == 200  # the code
    assert client.get(f"/api/games/{made['game']}?code={made['code']}", headers=header).status_code == 200
    problem(client.delete(f"/api/games/{made['game']}/seats/Ann?code={made['code']}", headers=header), 403,
            "not-host")
    problem(client.get(f"/api/games/{made['game']}/play?code={made['code']}", headers=header), 401, "bad-token")


@pytest.mark.parametrize("route", ["/api/tables", "/api/games/{n}/seats", "/api/games/{n}/actions"])
def test_deeply_nested_json_is_a_400_and_a_huge_body_a_413(backend: Backend, apps: list[Any], route: str) -> None:
    """``request.get_json(silent=True)`` does not catch the decoder's RecursionError: a body of nested arrays was a
    500 on every JSON route. Nested deeper than any body the API takes, it is the 400 "Send a JSON object."; a body
    over the board's 64 kB is refused unread (413, problem+json)."""
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob")
    token, _seen = _seated(client, made, "Ann")  # an action is read once its seat is known
    path, seat = route.format(n=made["game"]) + f"?code={made['code']}", bearer(token)
    deep = "[" * 30_000 + "]" * 30_000  # 60 kB
    assert "Send a JSON object" in problem(client.post(path, data=deep, content_type="application/json",
                                                       headers=seat), 400, "bad-request")
    huge = "[" * 100_000 + "]" * 100_000
    answer = client.post(path, data=huge, content_type="application/json", headers=seat)
    assert answer.status_code == 413 and answer.mimetype == "application/problem+json", answer.status_code
    assert "64 kB" in answer.get_json()["detail"]
    spanish = client.post(path, data=huge, content_type="application/json",
                          headers={"Accept-Language": "es", **seat})
    assert spanish.status_code == 413 and "64 kB" in spanish.get_json()["detail"]
    assert spanish.get_json()["detail"] != answer.get_json()["detail"]
    assert len(backend.store().games()) == 1


@pytest.mark.parametrize("body", [{"action": "amend", "roll": 2**63}, {"action": "undo", "seen": 2**63},
                                  {"action": "amend", "roll": 2**40}, {"action": "amend", "roll": 9999},
                                  {"action": "amend", "roll": 0}, {"action": "amend", "roll": 21},
                                  {"action": "undo", "seen": -1}, {"action": "undo", "seen": 2**31}])
def test_a_request_with_a_roll_or_seen_out_of_range_is_a_400_that_keeps_nothing(backend: Backend, apps: list[Any],
                                                                                 body: dict[str, Any]) -> None:
    """``POST /api/games/N/requests`` stored ``roll`` and ``seen`` unchecked: beyond 64 bits SQLite raised
    OverflowError (a 500); beyond 32 bits PostgreSQL's INTEGER columns refused it, said as a 503 "try again" (with
    Retry-After: the phone retried for ever); a roll of 9999 was kept and shown to the host. A roll is 1 to 20, a
    seen a number of events (0 to 2**31 - 1): anything else is a 400 that keeps nothing."""
    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob")
    token, seen = _seated(client, made, "Ann")
    answer = client.post(f"/api/games/{made['game']}/requests", headers=bearer(token), json={"seen": seen, **body})
    assert answer.status_code == 400, (answer.status_code, answer.get_json())
    assert backend.sql("SELECT count(*) FROM seat_requests")[0][0] == 0
    kept = client.post(f"/api/games/{made['game']}/requests", headers=bearer(token),
                       json={"seen": seen, "action": "amend", "roll": 20})
    assert kept.status_code == 202 and backend.sql("SELECT count(*) FROM seat_requests")[0][0] == 1


# -- the limit of wrong codes -------------------------------------------------------------------------

def test_wrong_codes_from_one_address_leave_its_seated_phones_host_and_tvs_playing(backend: Backend,
                                                                                   apps: list[Any]) -> None:
    """A club's or a convention's phones share one public address (NAT). Five wrong join codes from any device
    there refuse that address's code guesses for a minute, but not the requests that guess nothing: a seat's token,
    a host token, a TV's code cookie the board set go through."""
    seated = hosted_client(backend, apps)  # the test client: every device is 127.0.0.1
    made = start(seated, "Ann", "Bob")
    token, _seen = _seated(seated, made, "Ann")
    tv = hosted_client(backend, apps)
    assert tv.get(f"/games/{made['game']}?code={made['code']}").status_code == 200  # sets its code cookie
    prankster = hosted_client(backend, apps)
    for _ in range(6):
        prankster.get(f"/games/{made['game']}?code=AAAAAA")
    assert prankster.get(f"/games/{made['game']}?code=AAAAAA").status_code == 429  # the guesser: refused, rightly
    problem(prankster.get(f"/api/games/{made['game']}?code=AAAAAA"), 429, "too-many-codes")
    assert prankster.get(f"/games/{made['game']}?code={made['code']}").status_code == 429  # a code given: a guess
    problem(prankster.post(f"/api/games/{made['game']}/seats", json={"code": made["code"], "seat": "Bob"}), 429,
            "too-many-codes")
    mine = seated.get(f"/api/games/{made['game']}/play", headers=bearer(token))
    assert mine.status_code == 200, (mine.status_code, mine.get_json())
    host = seated.get(f"/api/games/{made['game']}/host", headers=bearer(made["host_token"]))
    assert host.status_code == 200, (host.status_code, host.get_json())
    assert tv.get(f"/games/{made['game']}").status_code == 200  # by its cookie
    assert tv.get(f"/games/{made['game']}/events", buffered=False).status_code == 200
    forged = hosted_client(backend, apps)
    forged.set_cookie(f"uw_code_{made['game']}", "AAAAAA")
    assert forged.get(f"/games/{made['game']}").status_code == 429  # a wrong cookie is a guess too


# -- the purge --------------------------------------------------------------------------------------

def test_purge_refuses_a_game_whose_summary_was_damaged_and_deletes_nothing(backend: Backend) -> None:
    """``Store.purge`` judged a game by its stored summary, without the digest check every write makes: on
    PostgreSQL a game still being played whose summary was changed to say "over, won" was deleted (and with it the
    evidence of the damage). Each game the purge picks is now checked as a write checks it: the damaged one refuses
    the whole purge on either backend (nothing deleted, ``verify`` still names it). On PostgreSQL a purge that does
    not pick it goes on; SQLite refuses every write to a damaged file."""
    playing = physical_game(backend.url, "Eve", "Fay")
    done = physical_game(backend.url, "Gus", "Hal", target=5)
    finish(backend.url, done)
    backend.sql("UPDATE games SET summary = ? WHERE id = ?",
                ('{"players":["Eve","Fay"],"phase":"over","turn":null,"winner":"Eve","scores":[0,0]}', playing))
    age(backend, playing, 400)
    age(backend, done, 400)
    assert backend.store().verify()[2], "the damage is there to be found"
    with pytest.raises(StoreError, match=f"game {playing} .*damaged"):
        backend.store().purge(older_than(30))
    for game in (playing, done):  # nothing written onto damage
        assert backend.sql("SELECT count(*) FROM events WHERE game_id = ?", (game,))[0][0] > 0
    assert backend.store().verify()[2]
    if backend.kind == "sqlite":  # damage anywhere in the file stops every write to it
        with pytest.raises(StoreError, match="No command will write to this file"):
            backend.store().purge(lambda _found: [done])
        return
    assert backend.store().purge(lambda _found: [done]) == [done]  # the damaged game not picked: the purge goes on
    assert [g.id for g in backend.store().games()] == [playing]


# -- the hosted board as deployed -------------------------------------------------------------------

def _command(monkeypatch: pytest.MonkeyPatch) -> None:
    """``board`` runs its checks and says its lines, then stops at once instead of serving."""
    from referee.board import cli as board_cli

    class Server:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def run(self) -> None:
            raise SystemExit(0)

    _board_env(monkeypatch)
    monkeypatch.setattr("referee.board.server.BoardServer", Server)
    monkeypatch.setattr(board_cli, "check_port", lambda _host, _port: None)


def test_a_hosted_board_behind_a_proxy_gives_links_to_the_site_not_the_replica(tmp_path: Any,
                                                                               monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    """Behind nginx (deploy/), every link a hosted board gives (POST /api/tables' answer, the table's page, the TV's
    join link and QR code) is made from ``UW_BOARD_PUBLIC_URL``: the operator's (nginx's) stands, never the address
    the replica listens on (``http://127.0.0.1:8101/``)."""
    from click.testing import CliRunner

    from referee.cli import cli

    _command(monkeypatch)
    monkeypatch.setenv("UW_BOARD_PUBLIC_URL", "https://tables.example/")
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", "a-long-random-secret-of-the-operator-0123456789")
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "g.sqlite3"), "board", "--hosted", "--port", "8101"])
    assert result.exit_code == 0, result.output
    assert os.environ["UW_BOARD_PUBLIC_URL"] == "https://tables.example/"
    assert "https://tables.example/ can start a table" in result.output and "8101/ can" not in result.output


@pytest.mark.parametrize(("secret", "said"), [
    (None, "--hosted needs UW_BOARD_HOST_SECRET"), ("", "--hosted needs UW_BOARD_HOST_SECRET"),
    ("change-me-to-a-long-random-secret", "UW_BOARD_HOST_SECRET is still the example's placeholder"),
    ("x" * 31, "UW_BOARD_HOST_SECRET is too short: a hosted board needs at least 32"),
])
def test_a_hosted_board_refuses_to_start_without_a_set_secret(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                              secret: str | None, said: str) -> None:
    """Every table's join code, TV link and host link are HMACs under ``UW_BOARD_HOST_SECRET``: a secret made anew
    at each start would make them all a 404 after a restart. ``board --hosted`` refuses to start (a usage error,
    2, naming the variable, in Spanish too) without one set, with deploy/uw-board.env's placeholder, or with one
    shorter than 32 characters; a set one is the same at every start."""
    from click.testing import CliRunner

    from referee.cli import cli

    _command(monkeypatch)
    if secret is not None:
        monkeypatch.setenv("UW_BOARD_HOST_SECRET", secret)
    args = ["--db", str(tmp_path / "g.sqlite3"), "board", "--hosted", "--port", "8101"]
    refused = CliRunner().invoke(cli, args)
    assert refused.exit_code == 2, (refused.exit_code, refused.output)
    assert said in refused.output and "secrets.token_urlsafe(32)" in refused.output
    assert "Traceback" not in refused.output and "can start a table" not in refused.output
    spanish = CliRunner().invoke(cli, ["--lang", "es", *args])
    assert spanish.exit_code == 2 and "UW_BOARD_HOST_SECRET" in spanish.output and "Uso:" in spanish.output
    assert said not in spanish.output and "aleatorio" in spanish.output, spanish.output  # said in Spanish
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", "y" * 32)
    for _restart in range(2):
        assert CliRunner().invoke(cli, args).exit_code == 0
        assert os.environ["UW_BOARD_HOST_SECRET"] == "y" * 32  # the operator's, at every start


def _shipped_settings() -> dict[str, str]:
    from pathlib import Path

    env = {}
    for line in (Path(__file__).resolve().parent.parent / "deploy" / "uw-board.env").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            env[key.strip()] = value.strip()
    return env


def test_behind_a_proxy_the_connections_are_counted_per_forwarded_address(tmp_path: Any) -> None:
    """``--max-per-address`` counted the socket's peer: behind nginx that is 127.0.0.1 for every phone and TV, so
    each replica of deploy/ served 100 connections in all. With ``UW_BOARD_PROXIES`` the open requests (a live
    page's stream until it ends) are counted per forwarded address, the one the write limits count: one phone over
    the limit is refused (503 naming it), another behind the same nginx is not, and a stream that ends gives its
    place back."""
    app = create_app({"BOARD_DB": str(tmp_path / "g.sqlite3"), "BOARD_GAME": None, "TESTING": True,
                      "BOARD_PROXIES": "127.0.0.1", "BOARD_PER_ADDRESS": 2, "BOARD_STREAM_SECONDS": 30})
    client = app.test_client()

    def stream(address: str) -> Any:
        return client.get("/events", headers={"X-Forwarded-For": address}, buffered=False)

    try:
        held = [stream("198.51.100.1"), stream("198.51.100.1")]
        assert [a.status_code for a in held] == [200, 200] and held[0].mimetype == "text/event-stream"
        over = stream("198.51.100.1")
        assert over.status_code == 503 and "2 connections" in over.get_data(as_text=True)
        assert over.headers["Retry-After"] == "5"
        api = client.get("/api/games", headers={"X-Forwarded-For": "198.51.100.1"})
        assert api.status_code == 503 and api.mimetype == "application/problem+json"
        other = stream("198.51.100.2")  # another phone behind the same nginx (the same peer, 127.0.0.1)
        assert other.status_code == 200
        held[0].close()
        again = stream("198.51.100.1")
        assert again.status_code == 200
        for answer in (held[1], other, again):
            answer.close()
    finally:
        runtime(app).watcher.stop()
    settings = _shipped_settings()  # as shipped: behind one nginx, and a limit that leaves room for a venue's NAT
    assert settings["UW_BOARD_PROXIES"] == "127.0.0.1" and int(settings["UW_BOARD_PER_ADDRESS"]) >= 200


# -- an answer that says nothing changed ------------------------------------------------------------

def test_an_action_whose_phone_record_fails_changes_nothing(backend: Backend, apps: list[Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The phone's record of its own last action is written in the action's own transaction (it used to be a second
    transaction after the commit, with a compensation path when it failed: the action stood while its record did
    not). When it fails (the database away for a moment, a lock past its timeout) the whole action is refused with
    503 "nothing changed, try again", and nothing did change; the retry makes it once."""
    from dictionaries.i18n import msg
    from referee.store import Store

    client = hosted_client(backend, apps)
    made = start(client, "Ann", "Bob")
    turn = client.get(f"/api/games/{made['game']}?code={made['code']}").get_json()["turn"]
    token, seen = _seated(client, made, turn)
    before = backend.store().load(made["game"])[1].count
    real = Store._seat_wrote

    def away(*_args: Any) -> None:
        raise StoreError(msg("cannot open {path}: {why}", path="the games' database", why="server closed"))

    monkeypatch.setattr(Store, "_seat_wrote", away)
    answer = client.post(f"/api/games/{made['game']}/actions", headers=bearer(token),
                         json={"action": "play", "word": "cat", "seen": seen})
    assert answer.status_code == 503, answer.get_json()
    assert backend.store().load(made["game"])[1].count == before
    monkeypatch.setattr(Store, "_seat_wrote", real)
    again = client.post(f"/api/games/{made['game']}/actions", headers=bearer(token),
                        json={"action": "play", "word": "cat", "seen": seen})
    assert again.status_code == 200 and again.get_json()["can_undo"] is True
    assert backend.store().load(made["game"])[1].count == again.get_json()["events"] > before


@pytest.mark.parametrize("keep", ["nan", "NaN", "inf", "-1"])
def test_board_hosted_keep_not_a_number_of_days_is_a_usage_error(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                                  keep: str) -> None:
    """``click.FloatRange(min=0, max=1e6)`` lets NaN through (every comparison with it is False): ``board --hosted
    --keep nan`` ended in a ValueError traceback (``int(days)`` for the plural); it is a usage error (2), as
    ``UW_BOARD_KEEP_DAYS=nan`` and ``purge --older-than nan`` are."""
    from click.testing import CliRunner

    from referee.cli import cli

    _command(monkeypatch)
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", "a-long-random-secret-of-the-operator-0123456789")
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "g.sqlite3"), "board", "--hosted", "--keep", keep,
                                      "--port", "8899"])
    assert result.exit_code == 2, (result.exit_code, repr(result.exception), result.output[-300:])
    assert "--keep" in result.output and "Traceback" not in result.output
    kept = CliRunner().invoke(cli, ["--db", str(tmp_path / "g.sqlite3"), "board", "--hosted", "--keep", "2.5",
                                    "--port", "8899"])
    assert kept.exit_code == 0 and "kept 2.5 days" in kept.output, kept.output


# -- what the API says --------------------------------------------------------------------------------

def test_a_decks_points_that_are_not_an_object_are_refused(backend: Backend, apps: list[Any]) -> None:
    """A custom deck's ``points`` that was not an object was silently ignored (the standard scores used): it is a
    400 naming it, and nothing is started."""
    client = hosted_client(backend, apps)
    counts = {letter: 8 for letter in "ABCDEFGHIJ"}
    for points in (5, "many", ["A", 1]):
        detail = problem(client.post("/api/tables", json={"players": ["Ann", "Bob"],
                                                           "deck": {"counts": counts, "points": points}}),
                         400, "bad-choice")
        assert '"points"' in detail
    assert backend.store().games() == []
    assert start(client, "Ann", "Bob", deck={"counts": counts})["game"] == 1


def test_the_apis_words_name_its_fields_its_links_and_fitting_titles(backend: Backend, apps: list[Any]) -> None:
    """The API's refusals spoke of the command line (``--first``), told a hosted table's host to look for "the host
    link the terminal printed" (a hosted table's is given when it is started, on the web), and titled a taken seat
    "The game moved on". Each says what fits, in Spanish too."""
    client = hosted_client(backend, apps)
    first = problem(client.post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "virtual",
                                                      "first": "Ann"}), 400, "bad-first")
    assert '"first"' in first and "--" not in first
    made = start(client, "Ann", "Bob")
    game = made["game"]
    nobody = problem(client.delete(f"/api/games/{game}/seats/Ann?code={made['code']}"), 401, "no-token")
    assert "host link given when the table was started" in nobody and "terminal" not in nobody
    _seated(client, made, "Ann")
    other = hosted_client(backend, apps)
    taken = other.post(f"/api/games/{game}/seats", json={"code": made["code"], "seat": "Ann"})
    problem(taken, 409, "seat-taken")
    assert taken.get_json()["title"] == "Seat taken"
    spanish = other.post(f"/api/games/{game}/seats", json={"code": made["code"], "seat": "Ann"},
                         headers={"Accept-Language": "es"})
    assert spanish.get_json()["title"] not in ("Seat taken", "The game moved on"), spanish.get_json()
    in_play = other.get(f"/api/games/{game}/export?code={made['code']}")
    assert in_play.get_json()["title"] == "The game is not over"
    es = {"Accept-Language": "es"}
    for answer in (client.post("/api/tables", json={"players": ["Ann", "Bob"], "first": "Ann"}, headers=es),
                   hosted_client(backend, apps).delete(f"/api/games/{game}/seats/Ann?code={made['code']}",
                                                       headers=es),
                   client.post("/api/tables", json={"players": ["Ann", "Bob"], "deck": {"counts": {}, "points": 1}},
                               headers=es)):
        body = answer.get_json()
        assert answer.status_code in (400, 401) and "the " not in body["detail"].lower(), body  # said in Spanish
