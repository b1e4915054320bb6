"""deploy/: two board replicas hosting tables on one PostgreSQL behind nginx, the word service beside them.

The shipped configuration is checked by nginx, then run for real: nginx with deploy/hosted-nginx.conf, and each
replica started with deploy/uw-board@.service's command and deploy/uw-board.env's settings (rewritten only for
ports, the database, the shared secret and the public address, nginx's, and a temporary prefix). Tables are
started through nginx (the start form, ``POST /api/tables``); the gate, the per-table host link and the export
are checked through it; a phone's action reaches a live page at once (the stream is not buffered); a replica
killed with SIGKILL leaves the table to the other one (its phones keep their seats, its stream comes back with its
Last-Event-ID, nothing lost or doubled), and the word service's answers are cached. Without nginx or PostgreSQL
these tests skip with one line each.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import Board, free_port
from test_board_pg import SECRET, Stream, code_of, new_game
from test_deploy import NGINX, NO_NGINX, Replica, wait_until_up

from referee.board.server import HEAD_SECONDS, SEND_SECONDS
from referee.engine import Discarded
from referee.store_pg import open_store

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "deploy" / "hosted-nginx.conf"
ENV = ROOT / "deploy" / "uw-board.env"
UNIT = ROOT / "deploy" / "uw-board@.service"


def unit_settings() -> dict[str, str]:
    """deploy/uw-board.env as systemd reads it (``NAME=value`` lines; ``#`` comments)."""
    lines = (line.strip() for line in ENV.read_text().splitlines())
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def unit_command(db: str, port: int) -> list[str]:
    """The arguments deploy/uw-board@.service gives ``uw-referee`` (its ExecStart), for ``db`` and ``port``."""
    line = next(line for line in UNIT.read_text().splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[0].endswith("/uw-referee"), words
    return [w.replace("${UW_REFEREE_DB}", db).replace("%i", str(port)) for w in words[1:]]


def test_the_shipped_settings_host_tables_behind_nginx() -> None:
    settings = unit_settings()
    assert settings["UW_BOARD_HOSTED"] == "1" and float(settings["UW_BOARD_KEEP_DAYS"]) > 0
    assert settings["UW_BOARD_PROXIES"] == "127.0.0.1" and settings["UW_BOARD_PUBLIC_URL"].startswith("http")
    assert unit_command("DB", 8101)[:3] == ["board", "--db", "DB"] and unit_command("DB", 8101)[-2:] == ["--port",
                                                                                                      "8101"]


def test_the_configuration_keeps_the_boards_limits_and_streams_unbuffered() -> None:
    text = CONF.read_text()
    assert f"client_header_timeout {HEAD_SECONDS}s;" in text and f"send_timeout {SEND_SECONDS}s;" in text
    stream = text.split("location ~ ^/(games/[0-9]+/)?events$ {", 1)[1].split("}", 1)[0]
    assert "proxy_buffering off;" in stream and "proxy_cache off;" in stream
    assert "hash $uw_table consistent;" in text and "proxy_cache uw_words;" in text
    assert "map $uri $uw_table {" in text  # the path without its query: a table's ?code= does not move it
    assert "non_idempotent" not in text  # an action is never sent to a second replica


def test_nginx_accepts_the_hosted_configuration(tmp_path: Path) -> None:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(CONF)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


class Site:
    """nginx with the hosted configuration, two board replicas on ``db`` as the systemd unit starts them with the
    shipped settings (``hosted``; else those without hosting: a ``--players`` site) and one word service replica."""

    def __init__(self, prefix: Path, db: str, hosted: bool = True, changed: dict[str, str] | None = None) -> None:
        self.prefix, self.db, self.port, self.hosted = prefix, db, free_port(), hosted
        self.changed = changed or {}  # settings the test changes from the shipped ones
        self.ports = [free_port(), free_port()]
        self.service = Replica(free_port(), prefix / "service.log")
        self.boards: list[Board | None] = [None, None]
        self.nginx: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_board(self, i: int) -> None:
        settings = {**unit_settings(), "UW_REFEREE_DB": self.db, "UW_BOARD_PUBLIC_URL": self.base + "/",
                    "UW_BOARD_HOST_SECRET": SECRET}  # shared by the replicas: each makes the same join codes
        if not self.hosted:
            settings["UW_BOARD_HOSTED"] = ""
        settings.update(self.changed)
        before = {name: os.environ.get(name) for name in settings}
        os.environ.update(settings)
        try:
            command = unit_command(self.db, self.ports[i])
            self.boards[i] = Board(self.db, *command[command.index("board") + 1:], port=self.ports[i])
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def start(self) -> None:
        assert NGINX is not None
        conf = CONF.read_text()
        for default, port in (("8101", self.ports[0]), ("8102", self.ports[1]), ("8001", self.service.port),
                              ("8002", free_port())):
            assert f"server 127.0.0.1:{default}" in conf
            conf = conf.replace(f"server 127.0.0.1:{default}", f"server 127.0.0.1:{port}")
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        (self.prefix / "tmp").mkdir(exist_ok=True)
        (self.prefix / "nginx.conf").write_text(conf)
        self.service.start()
        self.start_board(0)
        self.start_board(1)
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        self.nginx = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                                       "-g", directives], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(f"{self.base}/static/board.css", self.nginx, "nginx", self.prefix / "error.log")

    def served(self) -> list[tuple[str, str, int]]:
        """nginx's access log so far: (method and path, the replica's port that answered, the status)."""
        time.sleep(0.2)  # nginx writes a line once the answer is sent
        found = re.findall(r'"(\S+ \S+)" (\d+) .* upstream=127\.0\.0\.1:(\d+)(?: ustatus=.*)?$',
                           (self.prefix / "access.log").read_text(), re.M)
        return [(request, port, int(status)) for request, status, port in found]

    def kill(self, i: int) -> None:
        """kill -9 of a replica's whole process group (no goodbye to its streams or its database)."""
        board = self.boards[i]
        assert board is not None
        os.killpg(board.proc.pid, signal.SIGKILL)
        board.proc.wait(timeout=30)
        self.boards[i] = None

    def stop(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(timeout=30)
        for board in self.boards:
            if board is not None:
                board.stop()
        self.service.stop()


@pytest.fixture
def site(request: pytest.FixtureRequest, postgres_db: str) -> Iterator[Site]:
    """The hosted site (``request.param`` "players": the same without hosting)."""
    if NGINX is None:
        pytest.skip(NO_NGINX)
    with tempfile.TemporaryDirectory(prefix="uw-hosted-") as prefix:
        running = Site(Path(prefix), postgres_db, getattr(request, "param", "hosted") == "hosted")
        try:
            running.start()
            yield running
        finally:
            running.stop()


def call(url: str, body: dict[str, Any] | None = None, token: str | None = None, method: str | None = None
         ) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                     method=method or ("GET" if body is None else "POST"))
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def fetch(url: str, form: list[tuple[str, str]] | None = None) -> tuple[int, str, dict[str, str]]:
    """A browser's GET (or the form's POST): the status, the page and its headers."""
    data = None if form is None else urllib.parse.urlencode(form).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def start_table(site: Site) -> tuple[int, str]:
    """The kill test's table (Cindi, Paul and Sue, physical dice, Cindi first): the hosted site starts it through
    nginx (``POST /api/tables``), the ``--players`` site's host with the CLI; its number and join code."""
    if not site.hosted:
        gid = new_game(site.db)
        return gid, code_of(gid, site.db)
    status, made = call(f"{site.base}/api/tables", {"players": ["Cindi", "Paul", "Sue"], "dice": "physical",
                                                    "first": "Cindi", "card_accounting": False})
    assert status == 201, made
    assert made["join"] == f"{site.base}/games/{made['game']}/join?code={made['code']}"  # nginx's, not a replica's
    return made["game"], made["code"]


@pytest.mark.slow
@pytest.mark.parametrize("site", ["hosted", "players"], indirect=True)
def test_two_replicas_behind_nginx_stream_at_once_and_survive_a_kill(site: Site) -> None:
    """A TV and two phones through nginx; the replica that serves their table is killed with SIGKILL: the phones
    keep their seats (the database's) and play on through the other replica without joining again, and the TV's
    stream, back with its Last-Event-ID, gets only what it missed: nothing lost, nothing doubled. The hosted site's
    TV opens its table's link (``?code=``); the phones' tokens are their credentials on either replica."""
    gid, code = start_table(site)
    shown = f"?code={code}" if site.hosted else ""
    page = Stream(f"{site.base}/games/{gid}/events{shown}")  # a TV, through nginx
    seats: dict[str, str] = {}
    try:
        assert page.wait_for(1, 10)
        for name in ("Cindi", "Paul"):
            status, seat = call(f"{site.base}/api/games/{gid}/seats", {"code": code, "seat": name})
            assert status == 201, seat
            seats[name] = seat["token"]
        acted = time.monotonic()
        status, done = call(f"{site.base}/api/games/{gid}/actions", {"action": "discard", "seen": page.ids[0]},
                            seats["Cindi"])
        assert status == 200 and done["events"] == 3, done
        # not held in a buffer: a buffered stream arrives when it ends (300 s); 2 s is 10x the 185 ms p99
        assert page.wait_for(2, 5) and page.arrived[1] - acted < 2
        assert "Paul" in page.payloads[1]["announce"] and page.ids[1].startswith("3-")
        for i in (0, 1):  # the replica that serves the table (its stream ends with it): kill it
            site.kill(i)
            if page.ended.wait(5):
                break
            site.start_board(i)  # not that one: back, and the other one goes
        assert page.ended.is_set(), "neither kill ended the table's stream"
    finally:
        page.close()
    again = Stream(f"{site.base}/games/{gid}/events{shown}", page.ids[-1])  # EventSource comes back with its last id
    try:
        assert not again.wait_for(1, 1.5), "the board the TV already had was sent again"
        status, view = call(f"{site.base}/api/games/{gid}/play", token=seats["Paul"])  # no new join: the same token
        assert status == 200 and view["seat"] == "Paul" and view["your_turn"] and view["events"] == 3, view
        status, done = call(f"{site.base}/api/games/{gid}/actions", {"action": "discard", "seen": view["version"]},
                            seats["Paul"])
        assert status == 200 and done["events"] == 4, done
        assert again.wait_for(1, 5) and "Sue" in again.payloads[0]["announce"] and again.ids[0].startswith("4-")
        open_store(site.db).act(gid, lambda g: g.apply(Discarded("Sue")))  # the CLI, on the same database
        assert again.wait_for(2, 5) and "Cindi" in again.payloads[1]["announce"]
        status, refused = call(f"{site.base}/api/games/{gid}/seats", {"code": code, "seat": "Cindi"})
        assert status == 409 and refused["type"] == "urn:uw-referee:seat-taken"  # Cindi's seat is still hers
    finally:
        again.close()
    assert open_store(site.db).verify() == (1, 5, [])
    served = site.served()
    table = {port for request, port, _status in served if f"/games/{gid}" in request}
    assert len(table) == 2  # the table moved once, to the replica that was left


@pytest.mark.slow
def test_a_table_started_through_nginx_answers_only_with_its_code(site: Site) -> None:
    """The hosted site as the phones see it: the start form and the API start tables on any replica; the links
    name nginx; each table's pages answer only with its code, a seat's token or its host token, on either replica;
    its host link releases its seats only; its players download it."""
    base = site.base
    status, form, _ = fetch(f"{base}/")
    assert status == 200 and 'action="/tables"' in form
    for listing in ("/games", "/api/games", "/api/games/current", "/events", "/join", "/host"):
        assert fetch(base + listing)[0] == 404, listing  # no list of games, no current game
    status, page, _ = fetch(f"{base}/tables", [("player", "Ann"), ("player", "Bob"), ("dice", "physical"),
                                               ("first", "Ann"), ("deck", "standard")])
    assert status == 201, page
    link = re.search(r'id="table-join" href="http://127\.0\.0\.1:(\d+)/games/(\d+)/join\?code=(\w+)"', page)
    assert link is not None, page
    assert link.group(1) == str(site.port), "the table's join link names a replica, not nginx"
    first, code = int(link.group(2)), link.group(3)
    assert f'id="table-code">{code}<' in page
    for path in (f"/games/{first}?code={code}", f"/games/{first}/join?code={code}", f"/games/{first}/host?code={code}"):
        assert fetch(base + path)[0] == 200, path  # the form's table, by the links its page gave
    made = [call(f"{base}/api/tables", {"players": ["Ann", "Bob"], "dice": "physical", "first": "Ann",
                                         "target": target})[1] for target in (100, 100, 5)]
    gid, other = made[0]["game"], made[1]["game"]
    code = made[0]["code"]
    assert made[0]["host"] == f"{base}/games/{gid}/host?code={code}#{made[0]['host_token']}"
    assert made[0]["board"] == f"{base}/games/{gid}?code={code}" and made[0]["keep_days"] == 30

    for path in (f"/games/{gid}", f"/games/{gid}?code={made[1]['code']}", f"/games/{gid}/events",
                 f"/games/{gid}/join", f"/games/{gid}/host", f"/games/{gid}/join.svg"):
        assert fetch(base + path)[0] == 404, path  # without the table's code: as if there were no such game
    status, hidden = call(f"{base}/api/games/{gid}/play")
    assert status == 404 and hidden["type"] == "urn:uw-referee:no-game", hidden
    assert call(f"{base}/api/games/999999/seats", {"code": code, "seat": "Ann"})[0] == 404
    status, tv, _ = fetch(made[0]["board"])
    shown = re.sub(r"<wbr>|</?span>", "", tv)  # the link's parts, as the TV shows them (it breaks after a slash)
    assert status == 200 and f"{base}/games/{gid}/join?code={code}" in shown  # the join box names nginx
    assert fetch(f"{base}/games/{gid}/join.svg?code={code}")[0] == 200
    assert fetch(made[0]["join"])[0] == 200  # the phones' page

    tokens = {}
    for name in ("Ann", "Bob"):
        status, seat = call(f"{base}/api/games/{gid}/seats", {"code": code, "seat": name})
        assert status == 201, seat
        tokens[name] = seat["token"]
    seen = call(f"{base}/api/games/{gid}/play", token=tokens["Ann"])[1]["version"]
    status, done = call(f"{base}/api/games/{gid}/actions", {"action": "play", "word": "taps", "roll": 15,
                                                             "seen": seen}, tokens["Ann"])
    assert status == 200 and done["events"] > 2, done
    status, done = call(f"{base}/api/games/{gid}/actions", {"action": "discard", "seen": done["version"]},
                        tokens["Bob"])
    assert status == 200, done
    assert call(f"{base}/api/games/{other}/play", token=tokens["Ann"])[0] == 404  # a seat of one table only

    status, host_page, _ = fetch(made[0]["host"].split("#")[0])  # the fragment never leaves the browser
    assert status == 200 and 'id="host-join"' in host_page
    status, view = call(f"{base}/api/games/{gid}/host", token=made[0]["host_token"])  # what the page reads
    assert status == 200 and view["join"]["url"] == made[0]["join"], view
    assert [s["taken"] for s in view["seats"]] == [True, True]
    assert call(f"{base}/api/games/{gid}/host", token=made[1]["host_token"])[0] == 404
    wrong = call(f"{base}/api/games/{gid}/seats/Bob", token=made[1]["host_token"], method="DELETE")
    assert wrong[0] == 404, wrong  # another table's host token opens nothing here
    assert call(f"{base}/api/games/{gid}/seats/Bob", token=made[0]["host_token"], method="DELETE")[0] == 204
    assert call(f"{base}/api/games/{gid}/play", token=tokens["Bob"])[0] == 404  # Bob's old token is void
    status, again = call(f"{base}/api/games/{gid}/seats", {"code": code, "seat": "Bob"})
    assert status == 201, again

    for path in (f"/api/games/{gid}/export", f"/api/games/{gid}/export?code={made[1]['code']}"):
        assert fetch(base + path)[0] == 404, path
    assert fetch(f"{base}/api/games/{gid}/export?code={code}")[0] == 409  # in play: its dice's seed stays unsaid
    over, over_code = made[2]["game"], made[2]["code"]  # a target of 5: TAPS on a roll of 15 ends it
    status, seat = call(f"{base}/api/games/{over}/seats", {"code": over_code, "seat": "Ann"})
    assert status == 201, seat
    seen = call(f"{base}/api/games/{over}/play", token=seat["token"])[1]["version"]
    status, done = call(f"{base}/api/games/{over}/actions", {"action": "play", "word": "taps", "roll": 15,
                                                              "seen": seen}, seat["token"])
    assert status == 200 and done["over"], done
    status, exported, headers = fetch(f"{base}/api/games/{over}/export?code={over_code}")
    assert status == 200 and headers["Content-Disposition"] == f'attachment; filename="uw-game-{over}.json"'
    from referee.exporting import export_text

    assert exported == export_text(open_store(site.db), over)  # what `uw-referee --game N export` prints
    assert len(json.loads(exported)["events"]) == done["events"]

    served = site.served()
    starts = {port for request, port, status in served if request == "POST /api/tables" and status == 201}
    assert starts == {str(p) for p in site.ports}  # no game in the path: round-robin, both replicas start tables
    for game in (first, gid):  # a table's requests, with or without ?code= or a token: one replica
        assert len({port for request, port, _status in served if re.search(f"/games/{game}(/|$)", request)}) == 1
    assert "?code=" not in (site.prefix / "access.log").read_text()  # the join codes stay out of nginx's log


@pytest.mark.slow
def test_the_word_service_beside_the_board_is_cached(site: Site) -> None:
    answers = []
    for _ in range(2):
        with urllib.request.urlopen(f"{site.base}/v1/words/quixotic", timeout=10) as answer:
            answers.append((answer.status, answer.headers["X-Cache-Status"]))
    assert answers == [(200, "MISS"), (200, "HIT")]


def _streams(site: Site, made: dict[str, Any], source: str, count: int) -> tuple[list[Any], list[str]]:
    """``count`` live pages of the table ``made`` opened through nginx from the local address ``source`` (nginx
    forwards it as the phone's): the sockets, held open, and each answer's status line."""
    import socket

    socks, heads = [], []
    for _i in range(count):
        sock = socket.create_connection(("127.0.0.1", site.port), timeout=10, source_address=(source, 0))
        socks.append(sock)
        sock.sendall(f"GET /games/{made['game']}/events?code={made['code']} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
    for sock in socks:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        heads.append(head.split(b"\r\n", 1)[0].decode())
    return socks, heads


@pytest.mark.slow
def test_behind_nginx_the_connections_are_counted_per_phone_not_per_proxy(postgres_db: str) -> None:
    """Every connection nginx opens to a replica comes from 127.0.0.1: the per-address limit counted that, so each
    replica served ``UW_BOARD_PER_ADDRESS`` connections in all (100 by default). With the shipped settings
    (``UW_BOARD_PROXIES=127.0.0.1``) it counts the address nginx forwards. Here the limit is 20 and the phones are local
    addresses of their own: 30 pages of one table (one replica, by the table's hash) from one phone get 20 streams
    and 10 refusals; 40 more from two other phones all stream, 60 connections from nginx in all."""
    if NGINX is None:
        pytest.skip(NO_NGINX)
    with tempfile.TemporaryDirectory(prefix="uw-hosted-") as prefix:
        site = Site(Path(prefix), postgres_db, changed={"UW_BOARD_PER_ADDRESS": "20"})
        held: list[Any] = []
        try:
            site.start()
            status, made = call(f"{site.base}/api/tables", {"players": ["Ann", "Bob"], "dice": "physical",
                                                            "first": "Ann"})
            assert status == 201, made
            socks, heads = _streams(site, made, "127.0.0.2", 30)
            held += socks
            assert heads.count("HTTP/1.1 200 OK") == 20 and heads.count("HTTP/1.1 503 Service Unavailable") == 10, {
                h: heads.count(h) for h in set(heads)}
            for source in ("127.0.0.3", "127.0.0.4"):
                socks, heads = _streams(site, made, source, 20)
                held += socks
                assert heads.count("HTTP/1.1 200 OK") == 20, (source, {h: heads.count(h) for h in set(heads)})
        finally:
            for sock in held:
                sock.close()
            site.stop()
        ports = {port for request, port, _status in site.served() if "/events" in request}
        assert len(ports) == 1  # all on one replica
