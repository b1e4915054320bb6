"""deploy/hosted-nginx.conf: two board replicas on one PostgreSQL behind nginx, the word service beside them.

The shipped configuration is checked by nginx, then run for real (rewritten only for ports and a temporary
prefix): a phone's action through nginx reaches a live page through nginx at once (the stream is not buffered),
a replica killed with SIGKILL leaves the table to the other one (its phones keep their seats, its stream comes back
with its Last-Event-ID, nothing lost or doubled), and the word service's answers are cached. Without nginx or PostgreSQL these tests skip with one line each.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
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


def test_the_configuration_keeps_the_boards_limits_and_streams_unbuffered() -> None:
    text = CONF.read_text()
    assert f"client_header_timeout {HEAD_SECONDS}s;" in text and f"send_timeout {SEND_SECONDS}s;" in text
    stream = text.split("location ~ ^/(games/[0-9]+/)?events$ {", 1)[1].split("}", 1)[0]
    assert "proxy_buffering off;" in stream and "proxy_cache off;" in stream
    assert "hash $uw_table consistent;" in text and "proxy_cache uw_words;" in text
    assert "non_idempotent" not in text  # an action is never sent to a second replica


def test_nginx_accepts_the_hosted_configuration(tmp_path: Path) -> None:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(CONF)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


class Site:
    """nginx with the hosted configuration, two board replicas on ``db`` and one word service replica."""

    def __init__(self, prefix: Path, db: str) -> None:
        self.prefix, self.db, self.port = prefix, db, free_port()
        self.ports = [free_port(), free_port()]
        self.service = Replica(free_port(), prefix / "service.log")
        self.boards: list[Board | None] = [None, None]
        self.nginx: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_board(self, i: int) -> None:
        os.environ["UW_BOARD_HOST_SECRET"] = SECRET  # shared by the replicas: each makes the same join codes
        try:
            self.boards[i] = Board(self.db, "--players", port=self.ports[i])
        finally:
            os.environ.pop("UW_BOARD_HOST_SECRET", None)

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
def site(postgres_db: str) -> Iterator[Site]:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    with tempfile.TemporaryDirectory(prefix="uw-hosted-") as prefix:
        running = Site(Path(prefix), postgres_db)
        try:
            running.start()
            yield running
        finally:
            running.stop()


def call(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.mark.slow
def test_two_replicas_behind_nginx_stream_at_once_and_survive_a_kill(site: Site) -> None:
    """A TV and two phones through nginx; the replica that serves their table is killed with SIGKILL: the phones
    keep their seats (the database's) and play on through the other replica without joining again, and the TV's
    stream, back with its Last-Event-ID, gets only what it missed: nothing lost, nothing doubled."""
    gid = new_game(site.db)
    page = Stream(f"{site.base}/games/{gid}/events")  # a TV, through nginx
    seats: dict[str, str] = {}
    try:
        assert page.wait_for(1, 10)
        for name in ("Cindi", "Paul"):
            status, seat = call(f"{site.base}/api/games/{gid}/seats", {"code": code_of(gid), "seat": name})
            assert status == 201, seat
            seats[name] = seat["token"]
        acted = time.monotonic()
        status, done = call(f"{site.base}/api/games/{gid}/actions", {"action": "discard", "seen": 2}, seats["Cindi"])
        assert status == 200 and done["events"] == 3, done
        assert page.wait_for(2, 5) and page.arrived[1] - acted < 2  # not held in a buffer
        assert "Paul" in page.payloads[1]["announce"] and page.ids[1].startswith("3-")
        for i in (0, 1):  # the replica that serves the table (its stream ends with it): kill it
            site.kill(i)
            if page.ended.wait(5):
                break
            site.start_board(i)  # not that one: back, and the other one goes
        assert page.ended.is_set(), "neither kill ended the table's stream"
    finally:
        page.close()
    again = Stream(f"{site.base}/games/{gid}/events", page.ids[-1])  # EventSource comes back with its last id
    try:
        assert not again.wait_for(1, 1.5), "the board the TV already had was sent again"
        status, view = call(f"{site.base}/api/games/{gid}/play", token=seats["Paul"])  # no new join: the same token
        assert status == 200 and view["seat"] == "Paul" and view["your_turn"] and view["events"] == 3, view
        status, done = call(f"{site.base}/api/games/{gid}/actions", {"action": "discard", "seen": 3}, seats["Paul"])
        assert status == 200 and done["events"] == 4, done
        assert again.wait_for(1, 5) and "Sue" in again.payloads[0]["announce"] and again.ids[0].startswith("4-")
        open_store(site.db).act(gid, lambda g: g.apply(Discarded("Sue")))  # the CLI, on the same database
        assert again.wait_for(2, 5) and "Cindi" in again.payloads[1]["announce"]
        status, refused = call(f"{site.base}/api/games/{gid}/seats", {"code": code_of(gid), "seat": "Cindi"})
        assert status == 409 and refused["type"] == "urn:uw-referee:seat-taken"  # Cindi's seat is still hers
    finally:
        again.close()
    assert open_store(site.db).verify() == (1, 5, [])


@pytest.mark.slow
def test_the_word_service_beside_the_board_is_cached(site: Site) -> None:
    answers = []
    for _ in range(2):
        with urllib.request.urlopen(f"{site.base}/v1/words/quixotic", timeout=10) as answer:
            answers.append((answer.status, answer.headers["X-Cache-Status"]))
    assert answers == [(200, "MISS"), (200, "HIT")]
