"""The board's concurrency model on a real PostgreSQL (docs/development.md, "Concurrency"): a game whose row another
connection holds locked holds no other table's calls, its own writes are refused as busy (503, Retry-After, nothing
changed), the board's master never loads psycopg (its worker's calls would block its event loop), and the board
stops without a traceback or a warning."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest
from board_support import Board, game_code

from referee.engine import RollOff, Setup
from referee.store_pg import open_store

pytestmark = pytest.mark.slow

SECRET = "a-host-secret-for-the-concurrency-tests-0123456789"
PLAYERS = ("Cindi", "Paul", "Sue")


def new_game(url: str) -> int:
    gid, _, _ = open_store(url).create(Setup(players=PLAYERS, card_accounting=False),
                                       lambda g: g.apply(RollOff(first=PLAYERS[0])))
    return gid


def call(url: str, body: dict[str, Any] | None = None, token: str | None = None, lang: str = "en"
         ) -> tuple[int, dict[str, str], dict[str, Any]]:
    """A players' API call: its status, its headers and its JSON (a refusal's problem+json included)."""
    headers = {"Content-Type": "application/json", "Accept-Language": lang,
               **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as got:
            return got.status, dict(got.headers), json.loads(got.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"{}")


def seated(board: Board, gid: int, db: str) -> tuple[str, Any]:
    """Cindi's token at game ``gid`` and the version her phone saw (``version`` when the board says one, else the
    event count)."""
    status, _h, seat = call(f"{board.url}/api/games/{gid}/seats", {"code": game_code(db, SECRET, gid), "seat": "Cindi"})
    assert status == 201, seat
    status, _h, view = call(f"{board.url}/api/games/{gid}/play", token=seat["token"])
    assert status == 200, view
    return seat["token"], view.get("version", view["events"])


def test_a_game_held_locked_holds_no_other_table_and_its_writes_answer_busy(
        postgres_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Game A's row held by another connection (a replica that died mid-transaction): a burst of A's writes,
    more than the board's pool has connections, waits at A's gate and in the database, and B's phone action is
    answered while every one of them is still waiting and the lock still held. Then each of A's writes is a 503
    with Retry-After, in the phone's language, and A is as it was."""
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    monkeypatch.setenv("UW_PG_LOCK_TIMEOUT", "10000")  # room for B on a loaded machine; A waits that long
    locked, other = new_game(postgres_db), new_game(postgres_db)
    with Board(postgres_db, "--players") as board:
        token_a, seen_a = seated(board, locked, postgres_db)
        token_b, seen_b = seated(board, other, postgres_db)
        holder = psycopg.connect(postgres_db)  # a transaction left open with A's row locked
        try:
            holder.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (locked,))
            answers: list[tuple[int, dict[str, str], dict[str, Any], str]] = []

            def write(lang: str) -> None:
                found = call(f"{board.url}/api/games/{locked}/actions", {"action": "discard", "seen": seen_a},
                             token_a, lang)
                answers.append((*found, lang))

            burst = [threading.Thread(target=write, args=("es" if i % 2 else "en",)) for i in range(12)]
            for thread in burst:
                thread.start()
            with psycopg.connect(postgres_db, autocommit=True) as watch:  # A's first write waits on the lock
                for _ in range(300):
                    row = watch.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                        ).fetchone()
                    if row and row[0]:
                        break
                    time.sleep(0.05)
                else:
                    raise AssertionError("no write of game A ever waited for its lock")
            status, _h, done = call(f"{board.url}/api/games/{other}/actions", {"action": "discard", "seen": seen_b},
                                    token_b)
            waiting = 12 - len(answers)
            still_held = holder.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            assert status == 200 and done["events"] == 3, done
            assert waiting == 12 and still_held, ("table B's action waited for game A's lock", answers)
            for thread in burst:
                thread.join(60)
            assert holder.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS  # held all along
        finally:
            holder.rollback()
            holder.close()
        assert len(answers) == 12
        for status, headers, problem, lang in answers:
            assert status == 503, problem
            assert headers["Content-Type"].startswith("application/problem+json") and headers["Retry-After"].isdigit()
            assert headers.get("Content-Language") == lang and problem["detail"]
        assert {p["detail"] for _s, _h, p, lang in answers if lang == "es"}.isdisjoint(
            {p["detail"] for _s, _h, p, lang in answers if lang == "en"})
        status, _h, view = call(f"{board.url}/api/games/{locked}/play", token=token_a)
        assert status == 200 and view["events"] == 2 and view.get("version", 2) == seen_a  # nothing was changed
        with psycopg.connect(postgres_db) as conn:
            assert conn.execute("SELECT count(*) FROM events WHERE game_id = %s", (locked,)).fetchone() == (2,)
        _code, _out, err = board.stop()
    assert "Traceback" not in err, err[-3000:]


def test_the_board_stops_on_sigterm_without_a_traceback_or_a_warning(postgres_db: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A board on PostgreSQL that served an action and holds a stream open: SIGTERM (a service manager's stop)
    ends it with status 0 and nothing on its error output but gunicorn's own lines."""
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    gid = new_game(postgres_db)
    board = Board(postgres_db, "--players")
    try:
        token, seen = seated(board, gid, postgres_db)
        stream = urllib.request.urlopen(f"{board.url}/games/{gid}/events", timeout=30)
        assert stream.readline()  # the stream is open and has sent its first board
        status, _h, done = call(f"{board.url}/api/games/{gid}/actions", {"action": "discard", "seen": seen}, token)
        assert status == 200, done
        time.sleep(6)  # longer than gevent's idle thread timeout: every way a worker thread or hub may end
        code, _out, err = board.stop(signal.SIGTERM)
        stream.close()
    finally:
        board.stop()
    said = [line for line in err.splitlines() if line.strip() and "[INFO]" not in line]
    assert code == 0 and not [line for line in said if any(
        word in line for word in ("Traceback", "Exception", "Error", "Warning", "warning", "greenlet"))], err


def test_the_boards_master_never_loads_psycopg(postgres_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board with phones on PostgreSQL, started on a game (its join code said on the terminal, made from the game's
    salt in the database): its master, the process gunicorn forks the worker from, has not loaded psycopg, so the
    worker's first import comes after gevent's patch and waits on gevent's loop; the worker has it once it served
    a phone. (Read in the master, the salt made every call of the worker block the loop: one game's locked row held
    every table for its lock's time-out.)"""
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    gid = new_game(postgres_db)

    def loaded(pid: int) -> list[str]:
        maps = Path(f"/proc/{pid}/maps").read_text()
        return sorted({line.split()[-1] for line in maps.splitlines() if "psycopg" in line or "libpq" in line})

    with Board(postgres_db, "--players") as board:
        seated(board, gid, postgres_db)
        master, *workers = board.pids()
        assert workers and all(loaded(worker) for worker in workers)  # the check sees psycopg where it is loaded
        assert loaded(master) == [], loaded(master)
        _code, out, _err = board.stop()
    assert f"with the code {game_code(postgres_db, SECRET, gid)}" in out  # the code was read, in a child


def test_psycopg_imported_before_gevents_patch_is_said() -> None:
    """Were psycopg imported before gevent's patch all the same (a deployment that preloads it), ``blocks_the_loop``
    says so (the worker then logs it at its first PostgreSQL call: its calls block the loop); imported after, it does not."""
    script = ("import sys\nif sys.argv[1] == 'before':\n    import psycopg\nfrom gevent import monkey\n"
              "monkey.patch_all()\nfrom referee.board.offloop import blocks_the_loop\nprint(blocks_the_loop())\n")
    said = {order: subprocess.run([sys.executable, "-c", script, order], capture_output=True, text=True, timeout=60,
                                  check=True).stdout.strip() for order in ("before", "after")}
    assert said == {"before": "True", "after": "False"}
