"""Live updates across processes on PostgreSQL (referee/notify.py): a commit notifies, each board process
listens on one connection and streams the change to its viewers, whichever process took the action."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import psycopg
import pytest
from board_support import Board, game_code

from referee.engine import Discarded, RollOff, Setup
from referee.notify import Listener
from referee.store_pg import open_store


def new_game(url: str, players: tuple[str, ...] = ("Cindi", "Paul", "Sue")) -> int:
    gid, _, _ = open_store(url).create(Setup(players=players, card_accounting=False),
                                       lambda g: g.apply(RollOff(first=players[0])))
    return gid


def discard(url: str, gid: int) -> None:
    open_store(url).act(gid, lambda g: g.apply(Discarded(g.state.current.name)))  # type: ignore[union-attr]


def test_the_listener_hears_each_commit_and_poll_catches_up_before_it_answers(postgres_db: str) -> None:
    first, second = new_game(postgres_db), new_game(postgres_db)
    heard: list[set[int] | None] = []
    listener = Listener(postgres_db, on_change=heard.append)
    try:
        listener.start()
        deadline = time.monotonic() + 10
        while not listener.connected and time.monotonic() < deadline:
            time.sleep(0.02)
        assert listener.connected and heard == [None]  # connected: every game followed caught up (``_settled``)
        heard.clear()
        before = listener.version
        discard(postgres_db, second)
        listener.poll()  # the commit finished before the poll: its game is caught up when poll returns
        assert heard == [{second}] and listener.version == before + 1
        discard(postgres_db, first)
        assert listener.wait(before + 1, 5) == before + 2 and heard[-1] == {first}  # and without a poll
        assert listener.wait(before + 2, 0.3) == before + 2  # nothing else: no change, no wake-up
        with psycopg.connect(postgres_db, autocommit=True) as conn:  # another schema's commit, same game number
            conn.execute("SELECT pg_notify('uw_referee', 'another_site:' || %s)", (str(first),))
        listener.poll()
        assert listener.version == before + 2 and len(heard) == 2
        # a stream sleeps on its own game: another table's commit does not wake it, its own does
        mine, wake = listener.version_of(first), threading.Event()
        unsubscribe = listener.subscribe(first, wake)
        discard(postgres_db, second)
        listener.poll()  # the other table's commit is caught up: it woke nobody asleep on this one
        assert not wake.is_set() and listener.version_of(first) == mine and listener.version_of(second) != 0
        threading.Timer(0.1, discard, (postgres_db, first)).start()
        assert listener.wait(mine, 30, first) == mine + 1 and wake.is_set()
        unsubscribe()
    finally:
        listener.stop()


class Stream:
    """An event stream read in a thread: each ``data:`` payload as it arrives, with its ``id``; ``last_event_id``:
    opened as EventSource reconnects, with the id of the last message it had."""

    def __init__(self, url: str, last_event_id: str | None = None) -> None:
        host, port = url.removeprefix("http://").rsplit("/", 1)[0].split(":")[0], int(url.split(":")[2].split("/")[0])
        path = "/" + url.split("/", 3)[3]
        self.sock = socket.create_connection((host, port), timeout=30)
        resume = "" if last_event_id is None else f"Last-Event-ID: {last_event_id}\r\n"
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{resume}\r\n".encode())
        self.payloads: list[dict[str, Any]] = []
        self.ids: list[str] = []
        self.arrived: list[float] = []
        self.ended = threading.Event()  # the server closed the stream (or the connection was lost)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    self.ended.set()
                    return
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    said = ""
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            said = line[4:].decode()
                        if line.startswith(b"data: "):
                            self.ids.append(said)
                            self.payloads.append(json.loads(line[6:]))
                            self.arrived.append(time.monotonic())
        except OSError:
            self.ended.set()
            return

    def wait_for(self, count: int, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while len(self.payloads) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.payloads) >= count

    def close(self) -> None:
        self.sock.close()


#: The host secret the replicas of a test share (deploy/uw-board.env): a game's join code is made from it.
SECRET = "a-host-secret-the-replicas-share-0123456789abcdef"


def code_of(game: int, db: str) -> str:
    """The game's join code in ``db``, as every replica sharing ``SECRET`` makes it (from its number and salt)."""
    return game_code(db, SECRET, game)


def answer(url: str, body: dict[str, Any] | None = None, token: str | None = None, method: str | None = None
           ) -> tuple[int, dict[str, Any]]:
    """A players' API call: its status and its JSON (a refusal's problem+json included)."""
    import urllib.error

    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                     method=method or ("GET" if body is None else "POST"))
    try:
        with urllib.request.urlopen(request, timeout=30) as got:
            return got.status, json.loads(got.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def _post(url: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        found: dict[str, Any] = json.loads(answer.read())
        return found


@pytest.mark.slow
def test_an_action_through_one_board_process_reaches_the_other_ones_stream(postgres_db: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    gid = new_game(postgres_db)
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    with Board(postgres_db, "--players") as one, Board(postgres_db, "--players") as other:
        code = code_of(gid, postgres_db)
        watching = Stream(f"{other.url}/games/{gid}/events")
        also = Stream(f"{one.url}/games/{gid}/events")
        try:
            assert watching.wait_for(1, 10) and also.wait_for(1, 10)
            assert not watching.wait_for(2, 0.5)  # nothing happened: nothing sent
            seat = _post(f"{one.url}/api/games/{gid}/seats", {"code": code, "seat": "Cindi"})
            acted = time.monotonic()
            seen = watching.ids[0]  # the stream's id is the game's version, what a write sends as seen
            done = _post(f"{one.url}/api/games/{gid}/actions", {"action": "discard", "seen": seen}, seat["token"])
            assert done["events"] == 3
            assert watching.wait_for(2, 10), "the other process never streamed the action"
            assert watching.payloads[1]["key"] != watching.payloads[0]["key"]
            assert "Cindi" in watching.payloads[1]["html"] and "Paul" in watching.payloads[1]["announce"]
            assert watching.arrived[1] - acted < 5  # margin: NOTIFY brings it in ms; 5 s is 25x the 185 ms p99
            # the same game on both (the acting replica may also mark the phone's action: that mark lives in its memory)
            assert also.wait_for(2, 10) and also.payloads[1]["announce"] == watching.payloads[1]["announce"]
        finally:
            watching.close()
            also.close()


@pytest.mark.slow
def test_a_seat_taken_through_one_replica_plays_through_the_other(postgres_db: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two board processes on one PostgreSQL schema: the seat one gave is the other's too (refused to a second
    phone, acting, its own undo, its requests, its release), and a stream that moves to the other replica with
    its Last-Event-ID gets only what it missed."""
    gid = new_game(postgres_db)
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    with Board(postgres_db, "--players") as one, Board(postgres_db, "--players") as other:
        api = f"/api/games/{gid}"
        status, seat = answer(f"{one.url}{api}/seats", {"code": code_of(gid, postgres_db), "seat": "Cindi"})
        assert status == 201, seat
        token = seat["token"]
        status, refused = answer(f"{other.url}{api}/seats", {"code": code_of(gid, postgres_db), "seat": "cindi"})
        assert (status, refused["type"]) == (409, "urn:uw-referee:seat-taken")
        page = Stream(f"{one.url}/games/{gid}/events")
        try:
            assert page.wait_for(1, 10) and page.ids[0].startswith("2-")
            status, done = answer(f"{other.url}{api}/actions", {"action": "discard", "seen": page.ids[0]}, token)
            assert status == 200 and done["events"] == 3 and done["seat"] == "Cindi" and done["can_undo"], done
            assert page.wait_for(2, 10) and page.ids[1] == done["version"]
        finally:
            page.close()
        status, view = answer(f"{one.url}{api}/play", token=token)
        assert status == 200 and view["can_undo"] and view["events"] == 3  # its own last action, known on both
        status, undone = answer(f"{one.url}{api}/actions", {"action": "undo", "seen": view["version"]}, token)
        assert status == 200 and undone["events"] == 2 and undone["waiting"]["player"] == "Cindi", undone
        status, asked = answer(f"{one.url}{api}/requests", {"action": "leave", "seen": undone["version"]}, token)
        assert status == 202, asked
        status, host = answer(f"{other.url}{api}/host", token=SECRET)
        assert status == 200 and [r["id"] for r in host["requests"]] == [asked["request"]]
        assert [s["taken"] for s in host["seats"]] == [True, False, False]
        resumed = Stream(f"{other.url}/games/{gid}/events", last_event_id=page.ids[1])  # it missed the undo
        again = Stream(f"{other.url}/games/{gid}/events", last_event_id=None)
        try:
            assert resumed.wait_for(1, 10) and resumed.ids[0].startswith("2-") and again.wait_for(1, 10)
            current = Stream(f"{one.url}/games/{gid}/events", last_event_id=again.ids[0])  # it missed nothing
            try:
                assert not current.wait_for(1, 1.0), "a board the page already had was sent again"
            finally:
                current.close()
        finally:
            resumed.close()
            again.close()
        assert answer(f"{other.url}{api}/seats/Cindi", token=SECRET, method="DELETE")[0] == 204
        status, void = answer(f"{one.url}{api}/play", token=token)
        assert (status, void["type"]) == (401, "urn:uw-referee:bad-token")


def test_the_listener_hears_commits_past_select_s_1024_descriptors(postgres_db: str) -> None:
    """A board with a thousand streams open gives its listening connection a descriptor past 1,024, where
    ``select`` fails: the listener used to reconnect in a loop (catching every game up each time) and hear nothing."""
    import os
    import resource

    gid = new_game(postgres_db)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2100:
        pytest.skip("this machine allows fewer than 2,100 open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2100) if hard == resource.RLIM_INFINITY else hard, hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    heard: list[set[int] | None] = []
    listener = Listener(postgres_db, on_change=heard.append)
    try:
        listener.start()
        deadline = time.monotonic() + 10
        while not listener.connected and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # a first round on the connection
        assert listener.connected and heard == [None]
        heard.clear()
        seen = listener.version_of(gid)
        discard(postgres_db, gid)
        assert listener.wait(seen, 5, gid) == seen + 1 and heard == [{gid}]
    finally:
        listener.stop()
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.slow
def test_a_burst_after_the_thread_pool_s_threads_expired_gets_no_500(postgres_db: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer's 500 (``'NoneType' object has no attribute 'run_callback'`` in psycopg_pool's growth): the
    pool, opened in a thread of gevent's default thread pool, died with that thread's hub when the thread ended
    idle (5 s by default, 0.3 s here through gevent's own setting); the next burst that grew the pool failed. Now
    PostgreSQL's calls run on the requests' greenlets and the pool is the worker's main hub's (``referee.board.offloop``),
    so no thread's end can take it: this burst must still get no 500."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    monkeypatch.setenv("UW_BOARD_PROXIES", "127.0.0.1")  # each caller its own forwarded address (no per-address limit hit)
    monkeypatch.setenv("GEVENT_THREADPOOL_IDLE_TASK_TIMEOUT", "0.3")
    with Board(postgres_db, "--hosted") as board:  # no current game: the worker's pool is opened by a request
        status, table = answer(f"{board.url}/api/tables", {"players": ["Cindi", "Paul", "Sue"], "dice": "virtual"})
        assert status == 201, table
        gid, code = table["game"], table["code"]
        url = f"{board.url}/api/games/{gid}/seats"
        time.sleep(2)  # every idle thread of gevent's pool has ended
        start = threading.Barrier(24)

        def seat(i: int) -> int:
            headers = {"Content-Type": "application/json", "X-Forwarded-For": f"10.6.{i}.1"}
            body = json.dumps({"code": code, "seat": ("Cindi", "Paul", "Sue")[i % 3]}).encode()
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            start.wait()
            try:
                with urllib.request.urlopen(request, timeout=30) as got:
                    return int(got.status)
            except urllib.error.HTTPError as error:
                return int(error.code)

        with ThreadPoolExecutor(24) as callers:
            statuses = sorted(callers.map(seat, range(24)))
        _, _, err = board.stop()
    assert statuses == [201] * 3 + [409] * 21, (statuses, err[-3000:])
    assert "Traceback" not in err, err[-3000:]
