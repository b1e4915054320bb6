"""Faults of a hosted board on PostgreSQL: the database restarts under a board (its own throw-away cluster, so the
machine's shared server is never stopped). An action meanwhile is refused with a clear 503 (problem+json, nothing
written), the board listens again once the server is back, and the table plays on; nothing lost, nothing doubled.
Without PostgreSQL's binaries this skips with one line."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from board_support import Board, free_port
from cluster_support import Namespace
from postgres_support import Cluster, binaries
from test_board_pg import SECRET, Stream, code_of, new_game

from referee.store_pg import close_pools, open_store


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    bindir = binaries()
    if bindir is None:
        print("\nSKIPPED LOUDLY: the PostgreSQL fault tests need its binaries (initdb, pg_ctl)", file=sys.stderr)
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl) for a cluster of the test's own")
    running = Cluster(bindir, port=free_port())
    try:
        yield running
    finally:
        close_pools()
        running.remove()


def call(url: str, body: dict[str, Any] | None = None, token: str | None = None
         ) -> tuple[int, dict[str, str], dict[str, Any]]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"{}")


@pytest.mark.slow
def test_a_database_restart_gives_clear_503s_then_the_table_plays_on(cluster: Cluster,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    url = cluster.address()
    gid = new_game(url)
    close_pools()
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    with Board(url, "--players") as board:
        code = code_of(gid, url)
        _s, _h, seat = call(f"{board.url}/api/games/{gid}/seats", {"code": code, "seat": "Cindi"})
        page = Stream(f"{board.url}/games/{gid}/events")
        try:
            assert page.wait_for(1, 10)
            status, _h, done = call(f"{board.url}/api/games/{gid}/actions", {"action": "discard",
                                                                               "seen": page.ids[0]}, seat["token"])
            assert status == 200 and done["events"] == 3 and page.wait_for(2, 5)
            paul = call(f"{board.url}/api/games/{gid}/seats", {"code": code, "seat": "Paul"})[2]["token"]

            cluster.stop("immediate")  # the server goes away with no goodbye
            started = time.monotonic()
            seen = done["version"]
            status, headers, problem = call(f"{board.url}/api/games/{gid}/actions", {"action": "discard", "seen": seen},
                                            paul)
            assert status == 503 and headers["Content-Type"] == "application/problem+json", problem
            assert "Retry-After" in headers and "Traceback" not in json.dumps(problem)
            assert time.monotonic() - started < 15  # the pool's wait, not a hang
            status, _h, shown = call(f"{board.url}/api/games/{gid}")  # the board still shows what it holds
            assert status == 200 and shown["events"] == 3

            cluster.start()
            deadline = time.monotonic() + 30
            while True:
                status, _h, done = call(f"{board.url}/api/games/{gid}/actions", {"action": "discard", "seen": seen},
                                        paul)
                if status == 200 or time.monotonic() > deadline:
                    break
                assert status == 503, done
                time.sleep(0.5)
            assert status == 200 and done["events"] == 4  # the refused attempts wrote nothing
            assert page.wait_for(3, 10), "the board did not listen again after the restart"
            assert "Sue" in page.payloads[-1]["announce"]
        finally:
            page.close()
    assert open_store(url).verify() == (1, 4, [])


# -- a network cut between a replica and its database, in a network namespace the test makes ----------------

@pytest.fixture
def namespace() -> Iterator[Namespace]:
    if os.geteuid() != 0 or shutil.which("ip") is None or binaries() is None:
        print("\nSKIPPED LOUDLY: the network cut test needs root, iproute2 and PostgreSQL's binaries",
              file=sys.stderr)
        pytest.skip("needs root, iproute2 (ip netns) and PostgreSQL's binaries")
    try:
        made = Namespace()
    except subprocess.CalledProcessError as exc:
        print(f"\nSKIPPED LOUDLY: no network namespace could be made here: {exc.stderr!r}", file=sys.stderr)
        pytest.skip("no network namespace could be made here")
    try:
        yield made
    finally:
        made.remove()


@pytest.mark.slow
def test_a_network_cut_between_a_replica_and_its_database(namespace: Namespace) -> None:
    bindir = binaries()
    assert bindir is not None
    cluster = Cluster(bindir, port=free_port(), host=namespace.db_host)
    board: subprocess.Popen[bytes] | None = None
    try:
        url = cluster.address()
        gid = new_game(url)
        close_pools()
        port = 8765
        env = {**os.environ, "UW_BOARD_HOST_SECRET": SECRET, "UW_PG_POOL_TIMEOUT": "3"}
        board = subprocess.Popen(["ip", "netns", "exec", namespace.name, sys.executable, "-m", "referee.cli", "board",
                                  "--db", url, "--players", "--host", namespace.client_ns, "--port", str(port)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                 env=env, start_new_session=True)
        base = f"http://{namespace.client_ns}:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/static/board.css", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline and board.poll() is None, "the board did not start"
                time.sleep(0.2)
        token = call(f"{base}/api/games/{gid}/seats", {"code": code_of(gid, url), "seat": "Cindi"})[2]["token"]
        page = Stream(f"{base}/games/{gid}/events")
        try:
            assert page.wait_for(1, 10)
            namespace.cut(True)  # the cable to the database is pulled
            started = time.monotonic()
            seen = page.ids[0]  # the stream's id: the game's version
            status, headers, problem = call(f"{base}/api/games/{gid}/actions", {"action": "discard", "seen": seen},
                                            token)
            assert status == 503 and headers["Content-Type"] == "application/problem+json", problem
            assert time.monotonic() - started < 30  # libpq's keepalives and tcp_user_timeout, not TCP's minutes
            namespace.cut(False)
            deadline = time.monotonic() + 40
            while True:  # the phone tries again with what it saw: done once, never twice
                status, _h, done = call(f"{base}/api/games/{gid}/actions", {"action": "discard", "seen": seen},
                                        token)
                if status in (200, 409) or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert status in (200, 409), done
            assert page.wait_for(2, 15), "the board did not hear the database again"
        finally:
            page.close()
        _gid, game, history = open_store(url).history(gid)
        assert game.count == 3 and open_store(url).verify() == (1, 3, [])  # one discard: not lost, not doubled
    finally:
        if board is not None and board.poll() is None:
            os.killpg(board.pid, signal.SIGINT)
            try:
                board.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(board.pid, signal.SIGKILL)
                board.wait()
        close_pools()
        cluster.remove()
