"""The hosted board attacked with real wrk (issue 35), beside a baseline from the same run: one address floods a
table's database-backed read (``wrk -c90``) while a phone of another table, from another address, reads its own
game; and one client sends wrong join codes, each with another spoofed ``X-Forwarded-For``, to a replica reached
directly. Prints each figure with its baseline and the ratio; run it with the Python of a normal ``pip install .``:

    python benchmarks/bench_hosted_attacks.py --python /tmp/venv/bin/python --db sqlite
    python benchmarks/bench_hosted_attacks.py --python /tmp/venv/bin/python --db postgresql://postgres@127.0.0.1/test

The victim reads from 127.0.0.3 (a loopback address of its own), wrk from 127.0.0.1. Two floods: ``verdict``, a
seat's verdicts with its token (the seat's allowance and the address's lane bound it), and ``game``, a table's read
with its join code and no token (the address's allowance and lane). The victim reads the same route of its own
table four times a second (under any per-seat limit), after a warm-up, in rounds: a baseline, a flood, ... and a
last baseline; each round's flood is set against the baselines on either side of it (the machine's load drifts),
and the figure is the median of the rounds' ratios (a burst of other work on the shared machine moves one round,
not the figure); all the flood's reads against all the baselines' are printed too. The board's CPU (its processes' user + system
time over the wall time) is printed for both, and the load average before and after.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECRET = "a-host-secret-for-the-attack-benchmark-0123456789"
COUNT_LUA = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok = 0; c404 = 0; c429 = 0; other = 0; n = 0 end
%s
function response(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 404 then c404 = c404 + 1
  elseif status == 429 then c429 = c429 + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local a, b, c, d = 0, 0, 0, 0
  for _, t in ipairs(threads) do a = a + t:get("ok"); b = b + t:get("c404"); c = c + t:get("c429"); d = d + t:get("other") end
  io.write(string.format("STATUSES 200=%%d 404=%%d 429=%%d other=%%d\\n", a, b, c, d))
end
"""
SPOOF = """
function request()
  n = n + 1
  wrk.headers["X-Forwarded-For"] = string.format("198.51.%d.%d", n % 250, math.floor(n / 250) % 250)
  return wrk.format(nil, nil)
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         source: str = "127.0.0.1") -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    return answer.status, json.loads(data) if data.startswith(b"{") else data


class Board:
    def __init__(self, python: str, db: str, proxies: str | None) -> None:
        self.port = free_port()
        env = {**os.environ, "UW_BOARD_HOST_SECRET": SECRET, "UW_REFEREE_DB": db}
        env.pop("UW_BOARD_PROXIES", None)
        if proxies is not None:
            env["UW_BOARD_PROXIES"] = proxies
        self.proc = subprocess.Popen([python, "-m", "referee.cli", "board", "--hosted", "--port", str(self.port),
                                      "--db", db], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True, cwd=tempfile.gettempdir())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                call(self.port, "GET", "/static/board.css")
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"the board did not start: {self.proc.stderr.read().decode()}") from None  # type: ignore[union-attr]
                time.sleep(0.2)
        raise SystemExit("the board did not answer")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


def table(port: int, source: str) -> tuple[dict[str, Any], str]:
    status, made = call(port, "POST", "/api/tables", {"players": ["Ann", "Bob"], "dice": "physical", "first": "Ann"},
                        source=source)
    assert status == 201, made
    status, seat = call(port, "POST", f"/api/games/{made['game']}/seats", {"code": made["code"], "seat": "Ann"},
                        source=source)
    assert status == 201, seat
    return made, seat["token"]


def victim_reads(port: int, path: str | Callable[[], str], token: str | None, seconds: float,
                 every: float = 0.25) -> list[float]:
    """Read ``path`` (or each time the one ``path()`` gives) every ``every`` seconds from 127.0.0.3 on one kept-alive
    connection: each read's latency (s)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=("127.0.0.3", 0))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    took, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        conn.request("GET", path if isinstance(path, str) else path(), headers=headers)
        answer = conn.getresponse()
        answer.read()
        took.append(time.monotonic() - began)
        assert answer.status == 200, answer.status
        time.sleep(max(0.0, every - (time.monotonic() - began)))
    conn.close()
    return took


def cpu_seconds(group: int) -> float:
    """The user + system CPU seconds of the processes of process group ``group`` (the board and its worker)."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group:  # pgrp (the fields after the name: state, ppid, pgrp, ...)
                total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def timed(board: Board, work: Any) -> tuple[Any, float]:
    """``work()`` and the board's CPU share over it (CPU seconds / wall seconds)."""
    cpu, wall = cpu_seconds(board.proc.pid), time.monotonic()
    result = work()
    return result, (cpu_seconds(board.proc.pid) - cpu) / (time.monotonic() - wall)


def wrk(url: str, lua: str, connections: int, seconds: int, token: str | None = None) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(COUNT_LUA % lua)
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", script.name]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    done = subprocess.run([*command, url], capture_output=True, text=True, timeout=seconds + 60)
    os.unlink(script.name)
    return done.stdout


def quantiles(took: list[float]) -> tuple[float, float]:
    ordered = sorted(took)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.9)] * 1000


def database(kind: str, folder: str) -> str:
    if kind == "sqlite":
        Path(folder).mkdir(parents=True, exist_ok=True)
        return str(Path(folder) / "g.sqlite3")
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(kind, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}".encode())
    return f"{kind}{'&' if '?' in kind else '?'}options=-csearch_path%3D{schema}"


def routes(kind: str, made: dict[str, Any], token: str) -> tuple[str, str | None]:
    """The read a flood of ``kind`` makes on table ``made`` and the token it sends (None: its code instead)."""
    if kind == "verdict":
        return f"/api/games/{made['game']}/verdict?word=cat", token
    return f"/api/games/{made['game']}?code={made['code']}", None


def flood(args: argparse.Namespace, db: str, kind: str) -> None:
    board = Board(args.python, db, None)
    try:
        mine, mine_token = table(board.port, "127.0.0.3")
        theirs, their_token = table(board.port, "127.0.0.1")
        path, token = routes(kind, mine, mine_token)
        target, weapon = routes(kind, theirs, their_token)
        victim_reads(board.port, path, token, 3)  # warm-up: the game read once, the connections made
        bases: list[list[float]] = []
        floods: list[list[float]] = []
        shares: dict[str, list[float]] = {"base": [], "flood": []}
        statuses = [0, 0, 0, 0]
        rates = []
        for round_ in range(args.rounds + 1):
            took, share = timed(board, lambda: victim_reads(board.port, path, token, args.seconds))
            bases.append(took)
            shares["base"].append(share)
            if round_ == args.rounds:
                break
            found: dict[str, Any] = {}
            flooding = threading.Thread(target=lambda out=found: out.update(out=wrk(
                f"http://127.0.0.1:{board.port}{target}", "", 90, args.seconds + 1, weapon)))
            flooding.start()
            time.sleep(0.3)  # wrk connected: its first burst of allowed reads is measured too
            took, share = timed(board, lambda: victim_reads(board.port, path, token, args.seconds))
            floods.append(took)
            shares["flood"].append(share)
            flooding.join()
            counted = re.search(r"STATUSES 200=(\d+) 404=(\d+) 429=(\d+) other=(\d+)", found["out"])
            statuses = [a + int(b) for a, b in zip(statuses, counted.groups(), strict=True)] if counted else statuses
            rate = re.search(r"Requests/sec:\s+([\d.]+)", found["out"])
            rates.append(float(rate.group(1)) if rate else float("nan"))
            time.sleep(5)  # the flood's refusals (sent after 2-4 s) and the reads in its lane done
        each = [statistics.median(floods[i]) / statistics.median(bases[i] + bases[i + 1]) for i in range(args.rounds)]
        base = [t for b in bases for t in b]
        under = [t for f in floods for t in f]
        (b50, b90), (u50, u90) = quantiles(base), quantiles(under)
        where = args.db.split("@")[-1] if "@" in args.db else args.db
        print(f"flood {kind} ({where}), {args.rounds} rounds of {args.seconds} s: another table's read, median of "
              f"the rounds x{statistics.median(each):.2f} (each x{', x'.join(f'{r:.2f}' for r in each)}); all "
              f"reads' median {b50:.1f} ms -> {u50:.1f} ms under wrk -c90 (x{u50 / b50:.2f}), p90 {b90:.1f} -> "
              f"{u90:.1f} ms (x{u90 / b90:.2f}); board CPU "
              f"{100 * statistics.mean(shares['base']):.0f}% -> {100 * statistics.mean(shares['flood']):.0f}% of a "
              f"core; wrk {statistics.mean(rates):.1f} req/s, STATUSES 200={statuses[0]} 404={statuses[1]} "
              f"429={statuses[2]} other={statuses[3]}", flush=True)
    finally:
        board.stop()


def spoof(args: argparse.Namespace, db: str) -> None:
    board = Board(args.python, db, args.proxies)
    try:
        mine, _token = table(board.port, "127.0.0.3")
        out = wrk(f"http://127.0.0.1:{board.port}/api/games/{mine['game']}/seats?code=AAAAAA", SPOOF, 4, 10)
        statuses = re.search(r"404=(\d+) 429=(\d+)", out)
        if statuses is None:
            print(out)
        tried = int(statuses.group(1)) if statuses else -1
        print(f"spoofed X-Forwarded-For (UW_BOARD_PROXIES={args.proxies}, reached directly): {tried} wrong codes "
              f"evaluated (404), {statuses.group(2) if statuses else '?'} locked out (429); escapes past the 5 "
              f"allowed: {max(0, tried - 5)}")
    finally:
        board.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the Python of a normal install of the project")
    parser.add_argument("--db", default="sqlite", help="sqlite, or a PostgreSQL address")
    parser.add_argument("--floods", nargs="+", choices=("verdict", "game"), default=["verdict", "game"],
                        help="the reads flooded: a seat's verdicts with its token, a table's game with its code")
    parser.add_argument("--seconds", type=int, default=11,
                        help="each baseline's and each flood's: over 10 s, a whole window of the board's allowances")
    parser.add_argument("--rounds", type=int, default=4, help="floods, each between two baselines")
    parser.add_argument("--proxies", default="10.0.0.1", help="UW_BOARD_PROXIES of the spoof test")
    parser.add_argument("--only", choices=("flood", "spoof"))
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        if args.only != "spoof":
            for n, kind in enumerate(args.floods):
                flood(args, database(args.db, f"{folder}/{n}"), kind)
        if args.only != "flood":
            spoof(args, database(args.db, folder + "/s"))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
