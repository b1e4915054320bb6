"""Benchmark of the players' side of the board (issue 24): tap to TV, with 8 phones and a TV on loopback.

The board runs as ``uw-referee board --players`` serves it (gunicorn, one gevent worker) on a free loopback
port. An 8-player game; each phone holds its seat's token and the game's event stream open (as the phone
page does) from its own loopback address (127.0.2.1 to .8); the TV holds one more stream.

* Tap to TV: the phone whose turn it is posts a discard (``POST /api/games/1/actions``, its seat's bearer
  token, the last event it saw); the time from the post until the TV's stream delivered the new board.
  Baseline, in the same run: the same discard committed through the referee's store in this process (as
  the CLI commits), until the TV's stream delivered it.
* CPU per action: the board worker's CPU (from /proc, to the nanosecond) from the post until the TV's
  update, 50 ms more, minus its idle CPU over that time; baseline: the same for the store's commit.

Run it with the Python of a normal (non-editable) install, from outside the repository:

    python3 -m venv /tmp/uw-bench && /tmp/uw-bench/bin/pip install -q . selenium
    cd /tmp && /tmp/uw-bench/bin/python /path/to/benchmarks/bench_phones.py

Not a timed test: run it by hand and copy the figures into BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_board import Board, Viewers, cpu_seconds, discard, percentile, worker  # noqa: E402

from referee.engine import Options, RollOff, Setup  # noqa: E402
from referee.store import Store  # noqa: E402

PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")


def call(url: str, body: dict[str, object] | None = None, token: str | None = None,
         method: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        found: dict[str, object] = json.loads(answer.read())
        return found


def code_of(board: Board) -> str:
    while True:
        line = board.proc.stdout.readline() if board.proc.stdout else ""
        if "with the code" in line:
            return line.rsplit(" ", 1)[1].strip().rstrip(".")
        if not line:
            raise SystemExit("the board did not print its join code")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="uw-bench-phones-"))
    db = folder / "games.sqlite3"
    store = Store(db)
    from dictionaries.deck import DOUBLE

    game, _g, _n = store.create(Setup(players=PLAYERS, target=100, deck=DOUBLE, options=Options()),
                                lambda g: g.apply(RollOff(first="Ann")))
    with Board(db, "--players") as board:
        base = board.url
        code = code_of(board)
        tokens = {}
        for name in PLAYERS:
            tokens[name] = str(call(f"{base}/api/games/{game}/seats", {"code": code, "seat": name})["token"])
        phones = Viewers(board.port, len(PLAYERS), f"/games/{game}/events")
        tv = Viewers(board.port, 1, f"/games/{game}/events")
        pid = [worker(board)]
        idle_before, idle_began = cpu_seconds(pid), time.monotonic()
        time.sleep(2)
        idle_ms = (cpu_seconds(pid) - idle_before) * 1000 / (time.monotonic() - idle_began)
        taps, commits, tap_cpu, commit_cpu = [], [], [], []
        for i in range(args.actions):
            view = store.load(game)[1]
            current = view.state.current.name  # type: ignore[union-attr]
            time.sleep(0.05)
            before, began = cpu_seconds(pid), time.monotonic()
            since = time.time()
            if i % 2 == 0:
                call(f"{base}/api/games/{game}/actions", {"action": "discard", "seen": view.count},
                     token=tokens[current])
                taps += tv.wait(since, 10)
            else:
                discard(store, game)
                commits += tv.wait(since, 10)
            phones.wait(since, 10)
            time.sleep(0.05)
            spent = (cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began)
            (tap_cpu if i % 2 == 0 else commit_cpu).append(spent)
        phones.close()
        tv.close()
    print(f"8 phones and a TV on loopback, {len(taps)} taps and {len(commits)} store commits, interleaved")
    print(f"tap to TV (ms):            p50 {percentile(taps, .5):7.1f}  p99 {percentile(taps, .99):7.1f}")
    print(f"store commit to TV (ms):   p50 {percentile(commits, .5):7.1f}  p99 {percentile(commits, .99):7.1f}"
          f"   ratio p50 {percentile(taps, .5) / percentile(commits, .5):.2f}")
    print(f"board CPU per tap (ms):    median {statistics.median(tap_cpu):6.2f}")
    print(f"board CPU per commit (ms): median {statistics.median(commit_cpu):6.2f}"
          f"   ratio {statistics.median(tap_cpu) / statistics.median(commit_cpu):.2f}")
    print(f"missed updates: TV {tv.missed}, phones {phones.missed}")


if __name__ == "__main__":
    main()
