"""The hosted site attacked from the open internet (issue 35): each test is one of the attacks that broke it, run
against a real board (a Flask client or a served one) on SQLite and, where the backend matters, on PostgreSQL."""
from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from board_support import free_port
from postgres_support import Backend

from referee.board.app import create_app

HOST = "host-secret-of-the-attack-tests-0123456789abcdef"


def hosted_app(db: str, apps: list[Any], **config: Any) -> Any:
    """A hosted board on ``db`` (``apps``, conftest's: its watcher stopped after the test)."""
    app = create_app({"BOARD_DB": db, "BOARD_GAME": None, "TESTING": True, "BOARD_HOSTED": True,
                      "BOARD_HOST_SECRET": HOST, "BOARD_STREAM_SECONDS": 0.2, **config})
    apps.append(app)
    return app


def start_table(client: Any, **environ: Any) -> dict[str, Any]:
    answer = client.post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "virtual"}, environ_base=environ)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    made: dict[str, Any] = answer.get_json()
    return made


# -- 4. proxies trusted by address only -------------------------------------------------------------

def test_a_count_of_proxies_is_refused_at_start(tmp_path: Path) -> None:
    """``UW_BOARD_PROXIES=1`` believed anyone's X-Forwarded-For on a replica reachable directly: the board refuses it
    at start (exit 2), saying to name the proxies' addresses; an address that is none is refused too."""
    port = free_port()
    for value, said in (("1", "127.0.0.1"), ("nginx", "'nginx'")):
        env = {**os.environ, "UW_BOARD_PROXIES": value, "UW_BOARD_HOST_SECRET": HOST, "LANG": "C", "UW_LANG": "en"}
        proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "board", "--hosted", "--port", str(port),
                                 "--db", str(tmp_path / "g.sqlite3")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:  # it serves: stop it, the test has failed
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        assert proc.returncode == 2, (value, out, err)
        assert "UW_BOARD_PROXIES" in err and said in err and "Traceback" not in err, err


@pytest.mark.parametrize("proxies", ["10.9.9.9", "127.0.0.1"])
def test_a_spoofed_x_forwarded_for_does_not_escape_the_wrong_code_lockout(tmp_path: Path, apps: list[Any],
                                                                         proxies: str) -> None:
    """One client sends wrong join codes, each with another X-Forwarded-For. A peer that is not a named proxy
    (``10.9.9.9`` named) is itself the client; through the proxy (``127.0.0.1`` named), the client's own entries,
    left of the one nginx appends, are never read. Either way the sixth try is locked out (429), and 0 escape."""
    app = hosted_app(str(tmp_path / "g.sqlite3"), apps, BOARD_PROXIES=proxies)
    client = app.test_client()
    table = start_table(client)
    game, escapes = table["game"], 0
    for i in range(40):
        spoofed = f"198.51.100.{i}" if proxies == "10.9.9.9" else f"198.51.100.{i}, 203.0.113.5"
        answer = client.get(f"/api/games/{game}/seats?code=AAAAAA", headers={"X-Forwarded-For": spoofed})
        if i >= 5 and answer.status_code != 429:
            escapes += 1
    assert escapes == 0
    other = client.get(f"/api/games/{game}/seats?code={table['code']}", headers={"X-Forwarded-For": "192.0.2.7"})
    assert other.status_code == (429 if proxies == "10.9.9.9" else 200)  # a peer not the proxy is one address


# -- 5. no server path or database address reaches a client -----------------------------------------

def _every_route(client: Any, table: dict[str, Any], seat: str) -> list[Any]:
    """One request to each route a phone, a TV or the host of ``table`` uses, with their credentials."""
    game, code, phone, host = table["game"], table["code"], {"Authorization": f"Bearer {seat}"}, \
        {"Authorization": f"Bearer {table['host_token']}"}
    return [client.get(f"/api/games/{game}/play", headers=phone), client.get(f"/api/games/{game}/seats?code={code}"),
            client.post(f"/api/games/{game}/actions", headers=phone, json={"action": "roll", "seen": 2}),
            client.get(f"/api/games/{game}/verdict?word=cat", headers=phone),
            client.get(f"/api/games/{game}/host", headers=host), client.get(f"/games/{game}?code={code}"),
            client.get(f"/api/games/{game}/export?code={code}"), client.get(f"/api/games/{game}?code={code}"),
            client.get(f"/games/{game}/join?code={code}"),
            client.post(f"/api/games/{game}/seats", json={"code": code, "seat": "Bob"}),
            client.post(f"/api/games/{game}/requests", headers=phone, json={"action": "undo", "seen": "2-0000000000000000"}),
            client.post("/api/tables", json={"players": ["Cy", "Di"]}), client.post("/tables", data={"player": ["Cy", "Di"]})]


def _said_nothing_of(answers: list[Any], places: list[str]) -> int:
    """The 503s among ``answers``; none of the answers names any of ``places``."""
    for answer in answers:
        text = answer.get_data(as_text=True)
        assert not any(place in text for place in places), (answer.status_code, text[:400])
    return sum(a.status_code == 503 for a in answers)


@pytest.mark.parametrize("damage", ["an event changed", "pages overwritten"])
def test_a_damaged_sqlite_file_is_not_named_to_the_players(tmp_path: Path, apps: list[Any], damage: str,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    """A damaged file's 503 named ``s1/g.sqlite3`` to the phones: now no answer names the file, its folder or its
    name, and the board's log keeps the whole story (the path included)."""
    import sqlite3

    (tmp_path / "s1").mkdir()
    db = tmp_path / "s1" / "g.sqlite3"
    client = hosted_app(str(db), apps).test_client()
    table = start_table(client)
    seat = client.post(f"/api/games/{table['game']}/seats", json={"code": table["code"], "seat": "Ann"}).get_json()
    if damage == "an event changed":
        with sqlite3.connect(db) as con:
            con.execute("UPDATE events SET data = replace(data, 'Ann', 'Anx') WHERE seq = 0")
        con.close()
    else:
        size = db.stat().st_size
        with open(db, "r+b") as file:
            file.seek(4096)
            file.write(bytes(range(256)) * ((size - 4096) // 256))
        for extra in ("-wal", "-shm"):
            Path(f"{db}{extra}").unlink(missing_ok=True)
    refused = _said_nothing_of(_every_route(client, table, seat["token"]), [str(tmp_path), "s1/", "g.sqlite3"])
    assert refused >= 3
    assert str(db) in caplog.text and "Stop any board serving" in caplog.text  # the log: the detail, what to do


def test_a_database_server_away_is_not_named_to_the_players(postgres_db: str, apps: list[Any],
                                                            caplog: pytest.LogCaptureFixture) -> None:
    """Damage and an unreachable server on PostgreSQL: no answer names the server's address or its database."""
    import psycopg

    client = hosted_app(postgres_db, apps).test_client()
    table = start_table(client)
    seat = client.post(f"/api/games/{table['game']}/seats", json={"code": table["code"], "seat": "Ann"}).get_json()
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute("UPDATE events SET data = replace(data, 'Ann', 'Anx') WHERE seq = 0")
    address = postgres_db.split("@")[-1].split("?")[0]
    places = [address, address.split("/")[0]]
    assert _said_nothing_of(_every_route(client, table, seat["token"]), places) >= 1  # its writes refused
    away = f"postgresql://uw@127.0.0.1:{free_port()}/nowhere"
    client = hosted_app(away, apps, BOARD_POLL_SECONDS=60).test_client()
    answers = [client.post("/api/tables", json={"players": ["Cy", "Di"]}),
               client.get(f"/api/games/1/seats?code={table['code']}")]
    assert _said_nothing_of(answers, [away, f"127.0.0.1:{away.split(':')[2].split('/')[0]}", "nowhere"]) >= 1
    assert "nowhere" in caplog.text


# -- 1. a table's number, code and host token are never reused ----------------------------------------

def test_a_purged_tables_code_and_host_token_never_open_another_table(backend: Backend, apps: list[Any]) -> None:
    """Purging a hosted table and starting a new one gave the new table the purged one's number on SQLite, so its
    join code and host token: the old links opened a stranger's table (host page 200, a seat taken 201). Ten
    rounds of start, seat, finish, purge, start again: 0 numbers reused, and every purged table's code and host
    token answer 404, on its own number and on every table started after it."""
    from cli_support import run

    app = hosted_app(backend.url, apps)
    gone: list[dict[str, Any]] = []
    numbers: list[int] = []
    reused, devices = 0, iter(range(1, 10**6))

    def device() -> Any:  # each its own address: the wrong-code lockout of one is not what is tested here
        n = next(devices)
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"
        return client

    for _round in range(10):
        table = device().post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "physical", "first": "Ann",
                                                   "target": 5}).get_json()
        numbers.append(table["game"])
        for old in gone:
            for game in (old["game"], table["game"]):
                host = {"Authorization": f"Bearer {old['host_token']}"}
                answers = [device().get(f"/api/games/{game}/seats?code={old['code']}"),
                           device().get(f"/api/games/{game}/host", headers=host),
                           device().post(f"/api/games/{game}/seats", json={"code": old["code"], "seat": "Ann"}),
                           device().get(f"/games/{game}/host?code={old['code']}")]
                reused += sum(a.status_code != 404 for a in answers)
        seated = device().post(f"/api/games/{table['game']}/seats", json={"code": table["code"], "seat": "Bob"})
        assert seated.status_code == 201
        played = run(backend.url, "--game", str(table["game"]), "play", "taps", "--roll", "15")  # type: ignore[arg-type]
        assert played.exit_code == 0
        store = backend.store()
        assert store.purge(functools.partial(_only, table["game"])) == [table["game"]]
        store.close()
        gone.append(table)
    assert len(set(numbers)) == len(numbers), numbers
    assert reused == 0


def _only(game: int, summaries: Any) -> list[int]:
    return [s.id for s in summaries if s.id == game]


def test_the_migration_keeps_the_old_tables_codes_and_seats_and_never_gives_a_number_again(tmp_path: Path) -> None:
    """A schema-7 file: its games keep their join codes (salt '') and their seats (the games table is made again
    with foreign keys off: nothing cascades), and a number purged after the migration is never given again."""
    import sqlite3

    from board_support import game_code

    from referee.board.seats import join_code
    from referee.engine import RollOff, Setup
    from referee.store import Store
    from referee.store_seats import SeatBook

    db = tmp_path / "g.sqlite3"
    store = Store(db)
    for _i in range(3):
        store.create(Setup(players=("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))
    assert SeatBook(store).take(3, "Ann", "token", "csrf")
    store.close()
    with sqlite3.connect(db) as con:  # the games table as schema 7 made it (the last before AUTOINCREMENT)
        con.executescript("""
            PRAGMA foreign_keys=OFF;
            CREATE TABLE games_v7 (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                                   summary TEXT);
            INSERT INTO games_v7 SELECT id, created_at, updated_at, summary FROM games;
            DROP TABLE games;
            ALTER TABLE games_v7 RENAME TO games;
            CREATE INDEX games_by_activity ON games(updated_at, id);
            DELETE FROM sqlite_sequence;
            DROP INDEX one_request_per_seat_and_kind;
            PRAGMA user_version = 7;
        """)
    con.close()
    store = Store(db)
    book = SeatBook(store)
    assert book.seat("token") is not None and book.seat("token").game == 3  # type: ignore[union-attr]
    assert game_code(db, HOST, 2) == join_code(HOST, 2)  # an old table's code as it was
    assert store.verify()[2] == []
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM seats")
        con.execute("DELETE FROM snapshots WHERE game_id = 3")
        con.execute("DELETE FROM events WHERE game_id = 3")
        con.execute("DELETE FROM games WHERE id = 3")
    con.close()
    new = store.create(Setup(players=("Cy", "Di")), lambda g: g.apply(RollOff(first="Cy")))[0]
    assert new == 4 and book.salt(4) not in ("", None) and game_code(db, HOST, 4) != join_code(HOST, 4)
    store.close()


# -- 3. deadlines -----------------------------------------------------------------------------------

def _trickle(url: str, path: str, length: int, most_bytes: int) -> tuple[bytes, int, bool]:
    """Send a request whose body of ``length`` bytes comes one byte a second; what the board answered, how many
    body bytes were sent before it did (stops after ``most_bytes``) and whether the board then closed the
    connection (within 5 s)."""
    import socket
    import time

    host, port = url.removeprefix("http://").split(":")
    conn = socket.create_connection((host, int(port)), timeout=5)
    conn.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {length}\r\n\r\n".encode())
    conn.setblocking(False)
    got, sent, closed = b"", 0, False
    try:
        while sent < most_bytes and not got:
            try:
                conn.sendall(b" ")
                sent += 1
            except OSError:
                break
            time.sleep(1)
            try:
                got = conn.recv(65536)
            except BlockingIOError:
                pass
        conn.setblocking(True)
        conn.settimeout(5)
        while True:
            try:
                more = conn.recv(65536)
            except OSError:
                break
            if not more:
                closed = True
                break
            got += more
    finally:
        conn.close()
    return got, sent, closed


def test_a_body_trickled_in_is_cut_with_408_and_the_connection_closed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A body sent one byte a second held its request open for as long as the client liked (still open after
    90 s). Now the whole body must arrive within ``UW_BOARD_BODY_SECONDS`` (3 s here): the board answers 408, in
    problem+json, and closes the connection, well before the 40 bytes of a 1,000-byte body were sent."""
    from board_support import Board

    monkeypatch.setenv("UW_BOARD_BODY_SECONDS", "3")
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", HOST)
    with Board(tmp_path / "g.sqlite3", "--hosted") as board:
        got, sent, closed = _trickle(board.url, "/api/tables", 1000, 40)
        assert board.proc.poll() is None
    head, _sep, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), (got[:300], sent)
    assert b"application/problem+json" in head and b"within 3 seconds" in body
    assert sent < 40 and closed


# -- 2. reads have limits too -------------------------------------------------------------------------

def _seated_table(app: Any, address: str = "192.0.2.1") -> tuple[dict[str, Any], str]:
    """A table (physical dice, Ann first) and Ann's seat's token."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    table = client.post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "physical", "first": "Ann"}).get_json()
    seat = client.post(f"/api/games/{table['game']}/seats", json={"code": table["code"], "seat": "Ann"}).get_json()
    return table, str(seat["token"])


@pytest.mark.parametrize("route", ["play", "verdict?word=cat", "seats", "host", "", "export"])
def test_one_address_cannot_read_without_limit(backend: Backend, apps: list[Any], route: str) -> None:
    """One address ran ``wrk -c90`` against the database-backed reads and made the other tables' reads 44 times
    slower (66 on PostgreSQL). Now each address has an allowance of reads per window (then 429 with Retry-After),
    and so has each seat's or host's token whatever address it comes from; another address reads on."""
    from referee.board import seats

    address_reads, token_reads = getattr(seats, "ADDRESS_READS", 300), getattr(seats, "TOKEN_READS", 30)
    app = hosted_app(backend.url, apps)
    table, token = _seated_table(app)
    game = table["game"]
    credential = table["host_token"] if route == "host" else token
    path = f"/api/games/{game}/{route}".rstrip("/")
    flooder = app.test_client()
    flooder.environ_base["REMOTE_ADDR"] = "203.0.113.66"
    statuses = [flooder.get(path, headers={"Authorization": f"Bearer {credential}"}).status_code
                for _i in range(token_reads + 1)]
    assert 429 not in statuses[:token_reads] and statuses[-1] == 429  # the token's allowance
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "203.0.113.66"
    statuses = [other.get(f"/api/games/{game}/seats?code={table['code']}").status_code for _i in range(address_reads)]
    assert statuses[-1] == 429 and statuses.count(429) == token_reads + 1  # the address's allowance
    answer = other.get(f"/api/games/{game}/seats?code={table['code']}")
    assert answer.status_code == 429 and answer.headers["Retry-After"] and answer.mimetype == "application/problem+json"
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "198.51.100.9"
    assert elsewhere.get(f"/api/games/{game}/seats?code={table['code']}").status_code == 200


def test_one_addresss_reads_take_turns_in_one_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """One address had 8 reads under way at once, and a flood's 8 made another table's reads wait behind all of
    them. Now an address's reads take turns in one lane: a second waits (served, not refused) until the first ends;
    another address never waits; past ``READS_WAITING`` waiting, or ``READ_WAIT_SECONDS`` waited, it is refused."""
    import threading

    from referee.board import seats

    monkeypatch.setattr(seats, "READ_WAIT_SECONDS", 1.0)
    t = seats.Tables(host=HOST)
    assert t.start_read("203.0.113.1")
    let_in: list[bool] = []
    waiting = [threading.Thread(target=lambda: let_in.append(t.start_read("203.0.113.1")))
               for _i in range(seats.READS_WAITING)]
    for thread in waiting:
        thread.start()
    while t.lanes["203.0.113.1"][0] < 1 + seats.READS_WAITING:  # all of them waiting for the lane
        threading.Event().wait(0.01)
    assert let_in == [] and t.start_read("198.51.100.1")  # another address: its own lane, at once
    assert not t.start_read("203.0.113.1")  # one too many waiting: refused without waiting
    for i in range(seats.READS_WAITING):  # each read that ends lets one more in
        t.end_read("203.0.113.1")
        while len(let_in) < i + 1:
            threading.Event().wait(0.01)
    assert let_in == [True] * seats.READS_WAITING
    assert not t.start_read("203.0.113.1")  # the lane held past READ_WAIT_SECONDS: refused
    for thread in waiting:
        thread.join()
    t.end_read("203.0.113.1")
    t.end_read("198.51.100.1")
    assert t.lanes == {}


@pytest.mark.slow
def test_a_phones_overlapping_reads_are_all_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2 reads at once per address refused a phone's own overlapping reads (a verdict as its player types beside the
    game's read after an action), and its page fell behind. On a served board, 12 reads at once from one address,
    with one seat's token, are all answered 200: they wait their turn in the address's lane."""
    import json
    import threading
    import urllib.request

    from board_support import Board

    monkeypatch.setenv("UW_BOARD_HOST_SECRET", HOST)

    def ask(url: str, method: str = "GET", body: Any = None, token: str = "") -> tuple[int, Any]:
        request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json",
                                                  **({"Authorization": f"Bearer {token}"} if token else {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, None

    with Board(tmp_path / "g.sqlite3", "--hosted") as board:
        _status, table = ask(f"{board.url}/api/tables", "POST", {"players": ["Ann", "Bob"], "dice": "physical",
                                                                  "first": "Ann"})
        _status, seat = ask(f"{board.url}/api/games/{table['game']}/seats", "POST",
                            {"code": table["code"], "seat": "Ann"})
        game, token = table["game"], seat["token"]
        statuses: list[int] = []
        reads = [threading.Thread(target=lambda path=path: statuses.append(ask(f"{board.url}{path}", token=token)[0]))
                 for i in range(12) for path in [f"/api/games/{game}/play" if i % 3 == 0
                                                 else f"/api/games/{game}/verdict?word={'catsup'[:2 + i % 4]}"]]
        for thread in reads:
            thread.start()
        for thread in reads:
            thread.join()
    assert statuses == [200] * 12


def test_a_seat_has_one_pending_request_per_kind(backend: Backend, apps: list[Any],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """One seat sent 240 correction requests in 2 s: all 240 waited on the host's page and printed 240 lines on
    the board's terminal. Now the same request again is the one already waiting (200, its id): one line, one
    request on the host's page; another kind is another request, and a request on a newer state replaces it."""
    app = hosted_app(backend.url, apps)
    table, token = _seated_table(app)
    game, phone = table["game"], {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    seen = client.get(f"/api/games/{game}/play", headers=phone).get_json()["version"]
    ids = set()
    for i in range(240):
        client.environ_base["REMOTE_ADDR"] = f"10.1.{i // 200}.{i % 200}"  # past the per-address write limit
        answer = client.post(f"/api/games/{game}/requests", headers=phone, json={"action": "undo", "seen": seen})
        assert answer.status_code in (200, 202), answer.get_data(as_text=True)
        ids.add(answer.get_json()["request"])
    client.environ_base["REMOTE_ADDR"] = "10.2.0.1"
    leave = client.post(f"/api/games/{game}/requests", headers=phone, json={"action": "leave", "seen": seen})
    assert leave.status_code == 202
    host = client.get(f"/api/games/{game}/host", headers={"Authorization": f"Bearer {table['host_token']}"})
    waiting = host.get_json()["requests"]
    assert len(ids) == 1 and sorted(r["action"] for r in waiting) == ["leave", "undo"]
    assert capsys.readouterr().out.count("asks to undo") == 1


# -- 8. limits shared by the replicas ------------------------------------------------------------------

def test_two_replicas_give_an_address_one_allowance_of_wrong_codes_and_tables(backend: Backend,
                                                                             apps: list[Any]) -> None:
    """Each replica counted its own: an address that spread its requests over two replicas had twice the wrong-code
    tries and twice the tables. The wrong codes and the tables started are counted in the database: over two
    replicas (two boards on one database) an address gets 5 wrong codes in all, then 429 on both, and 10 tables."""
    one, two = hosted_app(backend.url, apps).test_client(), hosted_app(backend.url, apps).test_client()
    for client in (one, two):
        client.environ_base["REMOTE_ADDR"] = "203.0.113.50"
    started = [(one if i % 2 else two).post("/api/tables", json={"players": ["Ann", "Bob"]}).status_code
               for i in range(12)]
    assert started.count(201) == 10 and started[-2:] == [429, 429]
    game = 1
    tries = [(one if i % 2 else two).get(f"/api/games/{game}/seats?code=AAAAAA").status_code for i in range(10)]
    assert tries[:5] == [404] * 5 and tries[5:] == [429] * 5


# -- 9. a file restored under a running board -----------------------------------------------------------

@pytest.mark.slow
def test_a_file_restored_under_a_running_board_is_shown_again(tmp_path: Path) -> None:
    """Copying a backup over the database (and removing -wal/-shm) froze the TV for good, though the file checked
    clean: the board watched the file's identity only, which a copy in place keeps. Now it notices the file was
    replaced (its size or time changed behind it), reopens it (the store checks a file it did not write before
    reading it) and shows the restored game; a play on the restored file reaches the TV too."""
    import shutil
    import sqlite3

    from board_support import Board
    from cli_support import run
    from test_board_pg import Stream

    db, backup = tmp_path / "g.sqlite3", tmp_path / "backup.sqlite3"
    assert run(db, "new", "Ann", "Bob", "--first", "Ann").exit_code == 0
    source, target = sqlite3.connect(db), sqlite3.connect(backup)
    source.backup(target)
    source.close()
    target.close()
    with Board(db, "--game", "1") as board:
        tv = Stream(f"{board.url}/games/1/events")
        try:
            assert tv.wait_for(1, 10)
            assert run(db, "play", "taps", "--roll", "11").exit_code == 0
            assert tv.wait_for(2, 10) and "TAPS" in tv.payloads[-1]["html"]
            shutil.copyfile(backup, db)  # in place: the same inode
            for extra in ("-wal", "-shm"):
                Path(f"{db}{extra}").unlink(missing_ok=True)
            assert tv.wait_for(3, 10), "the TV never showed the restored file"
            assert "TAPS" not in tv.payloads[-1]["html"]
            assert run(db, "play", "look", "--roll", "12").exit_code == 0
            assert tv.wait_for(4, 10) and "LOOK" in tv.payloads[-1]["html"]
        finally:
            tv.close()


def _discard(player: str, game: Any) -> Any:
    from referee.engine import Discarded

    return game.apply(Discarded(player))


@pytest.mark.slow
def test_a_stream_that_cannot_be_written_to_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A viewer that never reads held its stream (a viewer's place and one of its address's connections) for as long
    as the kernel's buffers took the boards sent to it: megabytes on loopback, never filled by a quiet game. A
    stream's socket now buffers at most ``SEND_BUFFER`` bytes, and a write that waits ``UW_BOARD_SEND_SECONDS`` (2 s
    here) ends the connection: after a few dozen commits, the silent viewer is dropped."""
    import socket
    import time

    from board_support import Board
    from cli_support import run

    from referee.store import Store

    db = tmp_path / "g.sqlite3"
    assert run(db, "new", "Ann", "Bob", "--first", "Ann").exit_code == 0
    monkeypatch.setenv("UW_BOARD_SEND_SECONDS", "2")
    with Board(db, "--game", "1") as board:
        silent = socket.socket()
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        silent.connect(("127.0.0.1", board.port))
        silent.sendall(b"GET /games/1/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        store = Store(db)
        players = ("Ann", "Bob")
        for i in range(150):  # about ten boards a second reach the stream (one per watcher poll)
            store.act(1, functools.partial(_discard, players[i % 2]))
            time.sleep(0.03)
        store.close()
        time.sleep(4)  # the last write's wait runs out
        silent.settimeout(5)
        dropped = False
        try:
            while True:
                if not silent.recv(1 << 20):
                    dropped = True
                    break
        except TimeoutError:
            pass  # still open: the server is waiting to write more
        except ConnectionResetError:
            dropped = True
        silent.close()
        assert board.proc.poll() is None
    assert dropped


@pytest.mark.slow
def test_parallel_wrong_codes_get_no_more_tries_than_the_lockout_allows(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The lockout was checked, then the code read and compared (a wait on the database), then the wrong code
    counted: 60 wrong codes sent at once from one address were 42 compared against a limit of 5. A try is now taken
    before the comparison, in one step: at most ``WRONG_CODES`` are compared, the rest are 429."""
    import json
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from board_support import Board

    from referee.board.seats import WRONG_CODES

    monkeypatch.setenv("UW_BOARD_HOST_SECRET", HOST)
    with Board(tmp_path / "g.sqlite3", "--hosted") as board:
        started = urllib.request.Request(f"{board.url}/api/tables", method="POST", data=b'{"players": ["Ann", "Bob"]}',
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(started, timeout=30) as answer:
            game = json.loads(answer.read())["game"]

        def guess(i: int) -> int:
            try:
                with urllib.request.urlopen(f"{board.url}/games/{game + i}?code=ZZZZZ{'ABCDEFGHJK'[i % 10]}",
                                            timeout=30) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as error:
                return int(error.code)

        with ThreadPoolExecutor(60) as pool:
            statuses = list(pool.map(guess, range(60)))
    assert statuses.count(404) <= WRONG_CODES and statuses.count(429) >= 60 - WRONG_CODES, statuses
