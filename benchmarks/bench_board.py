"""Benchmark of the live board (issue 21): commit to page at 1, 100 and 1,000 viewers, the server's CPU per
commit and per page at 10 and 2,000 events, memory per viewer, and page latency under ``wrk -c64`` while
1,000 viewers are connected. Every figure beside its baseline, measured in the same run.

The board runs as the command serves it (``uw-referee board``: gunicorn, one gevent worker, its default
limits) on a free loopback port, started by the Python running this script: run it with the Python of
a normal (non-editable) install, from outside the repository, so the board is the installed one:

    python3 -m venv /tmp/uw-bench && /tmp/uw-bench/bin/pip install -q . selenium
    cd /tmp && /tmp/uw-bench/bin/python /path/to/benchmarks/bench_board.py

* Viewers: each is an event stream (``GET /events``) on its own connection, read as a browser's
  EventSource reads it, from 20 loopback addresses (127.0.1.1 to .20, at most 50 per address: under
  the per-address limit of 64). One of them is a real page in Debian's headless Chromium (``bash
  tests/setup_browser.sh``), which stamps when it can paint the change (MutationObserver, then the next
  animation frame). Commit to page: ``--commits`` discards committed through the referee's store in
  this process at random moments; for each viewer, the time its update arrived minus the commit time.
* CPU per commit: the board worker's CPU (from /proc, to the nanosecond) from each commit until its
  update reached the one viewer, minus the worker's idle CPU over that time; per page: the same for
  each page request (GET /games/N). Medians.
  Each at games of 10 events and at one of 2,000, in 5 rounds that take each in turn (the machine's
  load changes over a run); the medians of the rounds.
* First look and undo: the worker's CPU for its first page of a game it did not follow yet, and for an undo
  committed while one viewer follows the game, at new games of 10 and of 2,000 events (medians of 5).
* Memory per viewer: the worker's resident memory before and after 1,000 viewers connect.
* Pages under load: ``wrk -t2 -c64 -d10s --latency`` on ``/`` with no viewer, then with 1,000.

``--phones`` (issue 24) measures the players' side instead, on ``uw-referee board --players``: an 8-player
game; each of 8 phones holds its seat's token and the game's event stream open (as the phone page does)
from its own loopback address; the TV holds one more stream.

* Tap to TV: the phone whose turn it is posts a discard (``POST /api/games/1/actions``, its seat's bearer
  token, the last event it saw); the time from the post until the TV's stream delivered the new board.
  Baseline, in the same run: the same discard committed through the referee's store in this process (as
  the CLI commits), until the TV's stream delivered it. p50 and p99 (target: p99 under 300 ms).
* CPU per action: the board worker's CPU from the post until the TV's update, 50 ms more, minus its idle
  CPU over that time; baseline: the same for the store's commit. Medians.

Not a timed test: run it by hand and copy the figures into BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # board_support only: the board itself is the installed package

from board_support import Board, browser_programs, chromium, players_secrets  # noqa: E402 - after the sys.path line above

from dictionaries.dictionary import open_for_command  # noqa: E402 - after the sys.path line above
from referee.actions import Referee  # noqa: E402 - after the sys.path line above
from referee.engine import Discarded, Options, RollOff, Setup  # noqa: E402 - after the sys.path line above
from referee.store import Store  # noqa: E402 - after the sys.path line above

OBSERVE = """
window.boardChanges = [];
new MutationObserver(function () {
  requestAnimationFrame(function () { window.boardChanges.push(Date.now()); });
}).observe(document.getElementById('board'), {childList: true, subtree: true, characterData: true});
"""


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of these processes' threads so far, to the nanosecond (/proc/PID/task/TID/schedstat: the
    clock-tick counters of /proc/PID/stat are 10 ms steps, as large as what is measured)."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # a thread that ended meanwhile
    return total / 1e9


def rss_kb(pid: int) -> int:
    match = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) if match else 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def discard(store: Store, game: int, count: int = 1) -> None:
    def act(g: object) -> None:
        for _ in range(count):
            g.apply(Discarded(g.state.current.name))  # type: ignore[attr-defined]  # the store hands the engine's Game
    store.act(game, act)


class Viewers:
    """``count`` event streams, read together; ``wait`` stamps when each saw a new message."""

    def __init__(self, port: int, count: int, path: str = "/events") -> None:
        self.selector = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        for i in range(count):
            sock = socket.socket()
            sock.bind((f"127.0.1.{1 + i % 20}", 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: board\r\nAccept: text/event-stream\r\n\r\n".encode())
            sock.setblocking(False)
            self.socks.append(sock)
            self.selector.register(sock, selectors.EVENT_READ, i)
        self.messages = [0] * count
        self.buffers = [b""] * count
        self.missed = 0
        self.wait(time.time(), 30)  # the board as it is: the first message of each

    def wait(self, since: float, timeout: float) -> list[float]:
        """Milliseconds from ``since`` (a time.time()) until each stream's next message."""
        target = [m + 1 for m in self.messages]
        arrived: dict[int, float] = {}
        deadline = time.monotonic() + timeout
        while len(arrived) < len(self.socks) and time.monotonic() < deadline:
            for key, _mask in self.selector.select(0.5):
                i = key.data
                try:
                    chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]  # a socket registered above
                except BlockingIOError:
                    continue
                now = time.time()
                self.buffers[i] += chunk
                while b"\n\n" in self.buffers[i]:  # one whole event (a message, or a comment)
                    event, self.buffers[i] = self.buffers[i].split(b"\n\n", 1)
                    if b"data: " in event:
                        self.messages[i] += 1
                if self.messages[i] >= target[i] and i not in arrived:
                    arrived[i] = now
        missed = len(self.socks) - len(arrived)
        if missed:
            self.missed += missed
            print(f"  ({missed} of {len(self.socks)} viewers got no update within {timeout:.0f} s; their messages so "
                  f"far: {sorted({self.messages[i] for i in range(len(self.socks)) if i not in arrived})})")
            for i in range(len(self.socks)):
                self.messages[i] = max(self.messages[i], target[i])
        return [(arrived[i] - since) * 1000 for i in arrived]

    def close(self) -> None:
        for sock in self.socks:
            self.selector.unregister(sock)
            sock.close()


def latency(board: Board, store: Store, game: int, viewers: int, commits: int, driver: object | None
            ) -> tuple[list[float], list[float]]:
    """Commit-to-viewer latencies (ms) over ``commits`` commits with ``viewers`` viewers (one of them the
    browser's page when there is a browser), and the browser's own."""
    page: list[float] = []
    if driver is not None:
        driver.get(board.url + "/")  # type: ignore[attr-defined]  # selenium's driver (untyped here)
        deadline = time.monotonic() + 10
        while driver.find_element("id", "live").get_attribute("data-state") != "live":  # type: ignore[attr-defined]  # selenium's driver (untyped here)
            if time.monotonic() > deadline:
                raise SystemExit("the browser's page never went live")
            time.sleep(0.05)
        driver.execute_script(OBSERVE)  # type: ignore[attr-defined]  # selenium's driver (untyped here)
    streams = Viewers(board.port, viewers - (1 if driver is not None else 0))
    rng = random.Random(viewers)
    found: list[float] = []
    try:
        for n in range(commits):
            time.sleep(rng.uniform(0.1, 0.4))  # commits at every phase of the watcher's poll
            discard(store, game)
            committed = time.time()
            if streams.socks:
                found += streams.wait(committed, 10)
            if driver is not None:
                deadline = time.monotonic() + 10
                while driver.execute_script("return window.boardChanges.length;") <= n:  # type: ignore[attr-defined]  # selenium's driver (untyped here)
                    if time.monotonic() > deadline:
                        raise SystemExit("the browser's page missed a commit")
                    time.sleep(0.005)
                shown = driver.execute_script(f"return window.boardChanges[{n}];")  # type: ignore[attr-defined]  # selenium's driver (untyped here)
                page.append(shown - committed * 1000)
    finally:
        streams.close()
        if driver is not None:
            driver.get("about:blank")  # type: ignore[attr-defined]  # selenium's driver (untyped here)
    return found + page, page


def worker(board: Board) -> int:
    pids = board.pids()
    return pids[-1]


def cpu_per_commit(board: Board, store: Store, game: int, commits: int, idle_ms: float) -> list[float]:
    """Worker CPU (ms) of each commit to ``game`` with one viewer of it, from the commit to its update reaching
    the viewer and 50 ms more, the worker's idle CPU over the same time subtracted."""
    pid = [worker(board)]
    streams = Viewers(board.port, 1, f"/games/{game}/events")
    spent: list[float] = []
    try:
        for _ in range(commits):
            time.sleep(0.05)
            before, began = cpu_seconds(pid), time.monotonic()
            discard(store, game)
            streams.wait(time.time(), 10)
            time.sleep(0.05)
            spent.append((cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began))
    finally:
        streams.close()
    return spent


def cpu_per_page(board: Board, pages: int, idle_ms: float, path: str = "/") -> list[float]:
    """Worker CPU (ms) of each of ``pages`` page requests, one after the other, the worker's idle CPU over
    the same time subtracted (schedstat's nanoseconds make one request measurable on its own)."""
    pid = [worker(board)]
    opener = urllib.request.build_opener()
    opener.open(board.url + path).read()
    spent = []
    for _ in range(pages):
        before, began = cpu_seconds(pid), time.monotonic()
        opener.open(board.url + path).read()
        spent.append((cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began))
    return spent


def first_looks_and_undos(board: Board, store: Store, setup: Setup, current: int, idle_ms: float, games: int = 5
                          ) -> None:
    """The board's CPU (ms) for its first look at a game (the first page of a game it does not follow yet,
    GET /games/N) and for an undo committed to a game it follows (one viewer, from the commit to the update),
    at ``games`` new games of 10 events and as many of 2,000, medians; then ``current`` is made current again."""
    made: dict[int, list[int]] = {10: [], 2000: []}
    for _ in range(games):
        for events in made:
            gid, _g, _r = store.create(setup, lambda g: g.apply(RollOff(first="Cindi")) and None)
            discard(store, gid, events - 2)
            made[events].append(gid)
    time.sleep(1)  # the watcher has seen those commits
    pid = [worker(board)]
    looks: dict[int, list[float]] = {10: [], 2000: []}
    undos: dict[int, list[float]] = {10: [], 2000: []}
    after: dict[int, list[float]] = {10: [], 2000: []}  # from the undo's return: without the writer's own time
    for i in range(games):  # a short game then a long one in turn (the machine's load changes over a run)
        for events, ids in made.items():
            before, began = cpu_seconds(pid), time.monotonic()
            urllib.request.urlopen(f"{board.url}/games/{ids[i]}").read()
            looks[events].append((cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began))
            streams = Viewers(board.port, 1, f"/games/{ids[i]}/events")
            try:
                time.sleep(0.05)
                before, began = cpu_seconds(pid), time.monotonic()
                Referee(store, open_for_command).undo(ids[i], 1)  # the library's undo (the store keeps no rule)
                middle, returned = cpu_seconds(pid), time.monotonic()
                streams.wait(time.time(), 10)
                time.sleep(0.05)
                undos[events].append((cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began))
                after[events].append((cpu_seconds(pid) - middle) * 1000 - idle_ms * (time.monotonic() - returned))
            finally:
                streams.close()
    for events in made:
        print(f"at {events} events: {statistics.median(looks[events]):.2f} ms of server CPU for the first look at a "
              f"game (its first page), {statistics.median(undos[events]):.2f} ms per undo (1 viewer), "
              f"{statistics.median(after[events]):.2f} ms of it after the writer's undo returned; medians of {games}")
    ratio = {name: statistics.median(found[2000]) / statistics.median(found[10])
             for name, found in (("look", looks), ("undo", undos), ("after", after))}
    print(f"  2,000 events / 10 events: first look {ratio['look']:.2f}x, undo {ratio['undo']:.2f}x "
          f"({ratio['after']:.2f}x after the undo returned)")
    discard(store, current)  # the long game current again, for what follows


def wrk(url: str, seconds: int) -> dict[str, float]:
    done = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", "--latency", url], capture_output=True, text=True,
                          check=True)
    out = done.stdout

    def ms(label: str) -> float:
        match = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not match:
            raise SystemExit(f"wrk said: {out}")
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]  # wrk always prints the rate
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"p50": ms("50"), "p99": ms("99"), "rps": rate, "errors": float(errors.group(1)) if errors else 0.0}


PHONE_PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")


def call(url: str, body: dict[str, object] | None = None, token: str | None = None) -> dict[str, object]:
    """A JSON request to the players' API (a bearer token when given)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=10) as answer:
        found: dict[str, object] = json.loads(answer.read())
        return found


def phones(actions: int) -> None:
    """Tap to TV and the board's CPU per action, with 8 phones and a TV (``--phones``; see the docstring)."""
    from dictionaries.deck import DOUBLE

    folder = Path(tempfile.mkdtemp(prefix="uw-bench-phones-"))
    db = folder / "games.sqlite3"
    store = Store(db)
    game, _g, _n = store.create(Setup(players=PHONE_PLAYERS, target=100, deck=DOUBLE, options=Options()),
                                lambda g: g.apply(RollOff(first="Ann")))
    with Board(db, "--players") as board:
        base = board.url
        code, _secret = players_secrets(board)
        tokens = {name: str(call(f"{base}/api/games/{game}/seats", {"code": code, "seat": name})["token"])
                  for name in PHONE_PLAYERS}
        held = Viewers(board.port, len(PHONE_PLAYERS), f"/games/{game}/events")
        tv = Viewers(board.port, 1, f"/games/{game}/events")
        pid = [worker(board)]
        idle_before, idle_began = cpu_seconds(pid), time.monotonic()
        time.sleep(2)
        idle_ms = (cpu_seconds(pid) - idle_before) * 1000 / (time.monotonic() - idle_began)
        taps: list[float] = []
        commits: list[float] = []
        tap_cpu: list[float] = []
        commit_cpu: list[float] = []
        for i in range(actions):
            view = store.load(game)[1]
            current = view.state.current.name  # type: ignore[union-attr]  # under way: there is a current player
            time.sleep(0.05)
            before, began = cpu_seconds(pid), time.monotonic()
            since = time.time()
            if i % 2 == 0:
                call(f"{base}/api/games/{game}/actions", {"action": "discard", "seen": view.version or view.count},
                     token=tokens[current])
                taps += tv.wait(since, 10)
            else:
                discard(store, game)
                commits += tv.wait(since, 10)
            held.wait(since, 10)
            time.sleep(0.05)
            spent = (cpu_seconds(pid) - before) * 1000 - idle_ms * (time.monotonic() - began)
            (tap_cpu if i % 2 == 0 else commit_cpu).append(spent)
        held.close()
        tv.close()
    print(f"{len(PHONE_PLAYERS)} phones and a TV on loopback, {len(taps)} taps and {len(commits)} store commits, "
          "interleaved")
    print(f"tap to TV (ms):            p50 {percentile(taps, .5):7.1f}  p99 {percentile(taps, .99):7.1f}"
          "   (target: p99 under 300 ms)")
    print(f"store commit to TV (ms):   p50 {percentile(commits, .5):7.1f}  p99 {percentile(commits, .99):7.1f}"
          f"   ratio p50 {percentile(taps, .5) / percentile(commits, .5):.2f}")
    print(f"board CPU per tap (ms):    median {statistics.median(tap_cpu):6.2f}")
    print(f"board CPU per commit (ms): median {statistics.median(commit_cpu):6.2f}"
          f"   ratio {statistics.median(tap_cpu) / statistics.median(commit_cpu):.2f}")
    print(f"missed updates: TV {tv.missed}, phones {held.missed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--wrk-seconds", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true", help="socket viewers only")
    parser.add_argument("--costs-only", action="store_true",
                        help="only the CPU per commit and per page (to measure an older board, installed apart)")
    parser.add_argument("--phones", action="store_true",
                        help="the players' side instead (issue 24): tap to TV with 8 phones and a TV, CPU per action")
    parser.add_argument("--actions", type=int, default=200, help="with --phones: taps and commits, interleaved")
    args = parser.parse_args()
    import referee

    print(f"the board served from {Path(referee.__file__).parent} ({sys.executable})")
    if args.phones:
        phones(args.actions)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        store = Store(db)
        setup = Setup(players=("Cindi", "Paul", "Sue"), options=Options())
        shorts = []
        for _ in range(5):  # short games of 10 events
            short, _g, _r = store.create(setup, lambda g: g.apply(RollOff(first="Cindi")) and None)
            discard(store, short, 8)
            shorts.append(short)
        game, _g, _r = store.create(setup, lambda g: g.apply(RollOff(first="Cindi")) and None)
        discard(store, game, 1998)  # the long game: 2,000 events, the current one
        with Board(db) as board:
            # -- CPU per commit and per page at 10 and at 2,000 events: in rounds, a short game then the long
            # one in each (the machine's load changes over a run), each round on a new short game.
            urllib.request.urlopen(board.url + "/").read()
            idle_pid = [worker(board)]
            t0 = cpu_seconds(idle_pid)
            time.sleep(5)
            idle_ms = (cpu_seconds(idle_pid) - t0) / 5 * 1000
            rounds = 5
            commits: dict[int, list[float]] = {10: [], 2000: []}
            pages: dict[int, list[float]] = {10: [], 2000: []}
            for short in shorts:
                for events, which in ((10, short), (2000, game)):
                    urllib.request.urlopen(f"{board.url}/games/{which}").read()  # followed from now on
                    commits[events] += cpu_per_commit(board, store, which, max(1, args.commits // rounds), idle_ms)
                    pages[events] += cpu_per_page(board, max(1, args.pages // rounds), idle_ms, f"/games/{which}")
            median = {events: (statistics.median(commits[events]), statistics.median(pages[events]))
                      for events in commits}
            for events, (commit, page) in median.items():
                print(f"at {events} events: {commit:.2f} ms of server CPU per commit (1 viewer; median of "
                      f"{len(commits[events])}), {page:.3f} ms per page (GET /games/N; median of "
                      f"{len(pages[events])})")
            print(f"  2,000 events / 10 events: commit {median[2000][0] / max(median[10][0], 1e-9):.2f}x, "
                  f"page {median[2000][1] / max(median[10][1], 1e-9):.2f}x (target: at most 1.2x); "
                  f"the worker idle: {idle_ms:.1f} ms of CPU a second (the watcher's poll)")
            first_looks_and_undos(board, store, setup, game, idle_ms)
            if args.costs_only:
                return
            # -- commit to page at 1, 100 and 1,000 viewers
            use_browser = not args.no_browser and browser_programs() is not None
            driver_ctx = chromium() if use_browser else None
            driver = driver_ctx.__enter__() if driver_ctx is not None else None
            try:
                for viewers in (1, 100, 1000):
                    every, page = latency(board, store, game, viewers, args.commits, driver)
                    line = (f"commit to page, {viewers} viewer{'s' if viewers > 1 else ''}, {args.commits} commits: "
                            f"median {statistics.median(every):.0f} ms, p99 {percentile(every, 0.99):.0f} ms, "
                            f"max {max(every):.0f} ms ({len(every)} updates)")
                    if page:
                        line += f"; the Chromium page alone: median {statistics.median(page):.0f} ms, " \
                                f"max {max(page):.0f} ms"
                    print(line)
            finally:
                if driver_ctx is not None:
                    driver_ctx.__exit__(None, None, None)
            print("  baseline: the watcher polls every 100 ms (the design's average wait is half of it)")
            # -- memory per viewer, and pages under wrk while 1,000 viewers are connected
            if shutil.which("wrk") is None:
                raise SystemExit("wrk is not installed (apt-get install wrk)")
            time.sleep(2)  # the browser's connections closed (they count toward 127.0.0.1's limit)
            alone = wrk(board.url + "/", args.wrk_seconds)
            pid = worker(board)
            time.sleep(1)
            before = rss_kb(pid)
            crowd = Viewers(board.port, 1000)
            time.sleep(1)
            after = rss_kb(pid)
            try:
                loaded = wrk(board.url + "/", args.wrk_seconds)
                discard(store, game)  # and the crowd still gets its update
                late = crowd.wait(time.time(), 10)
            finally:
                crowd.close()
            print(f"memory: the worker holds {before / 1024:.1f} MiB with no viewer, {after / 1024:.1f} MiB with 1,000: "
                  f"{(after - before) / 1000:.1f} KiB per viewer")
            for label, found in (("no viewer", alone), ("1,000 viewers", loaded)):
                print(f"GET / under wrk -c64, {label}: p50 {found['p50']:.1f} ms, p99 {found['p99']:.1f} ms, "
                      f"{found['rps']:.0f} pages/s, {found['errors']:.0f} errors")
            print(f"  a commit during it reached the 1,000 viewers: median {statistics.median(late):.0f} ms, "
                  f"p99 {percentile(late, 0.99):.0f} ms")


if __name__ == "__main__":
    main()
