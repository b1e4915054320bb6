"""Benchmark of the live board: how soon a commit shows on an open page, and what idle pages cost.

The board runs as the command serves it (``uw-referee board``: gunicorn, one gthread worker) on a
free loopback port; Debian's headless Chromium opens it (``bash tests/setup_browser.sh``).

* Commit to page: ``--actions`` discards (default 50) are committed through the referee's store in
  this process, each at a random moment; the page records (MutationObserver, then the next
  animation frame, i.e. when the browser can paint it) when its board changed. Reported: median
  and p95 of page time minus commit time (one clock: both run on this machine). Baseline in the
  same run: a full reload of the same page (navigation start to load end), what a table would
  otherwise do, and the watcher's poll interval, the floor the design sets (half of it on average).
* Idle cost: the server's CPU (master + worker, from /proc) over ``--idle`` seconds with no page
  open, then with ``--pages`` (default 10) pages open (5 tabs in each of two Chromiums), nothing happening. Reported as the
  share of one core, and the difference the pages make.

Not a timed test: run it by hand (``python benchmarks/bench_board.py``) and copy the figures into
BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from board_support import Board, chromium  # noqa: E402

from referee.board.source import POLL_S  # noqa: E402
from referee.engine import Discarded, Options, RollOff, Setup  # noqa: E402
from referee.store import Store  # noqa: E402

PAGES_PER_BROWSER = 5
OBSERVE = """
window.boardChanges = [];
new MutationObserver(function () {
  requestAnimationFrame(function () { window.boardChanges.push(Date.now()); });
}).observe(document.getElementById('board'), {childList: true, subtree: true, characterData: true});
"""


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (from /proc/PID/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / tick


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def latency(board: Board, store: Store, actions: int, driver: object) -> tuple[list[float], list[float]]:
    """Commit-to-page latencies (ms) for ``actions`` discards, and full reloads (ms) for the baseline."""
    reloads = []
    for _ in range(5):
        driver.get(board.url + "/")  # type: ignore[attr-defined]
        reloads.append(driver.execute_script(  # type: ignore[attr-defined]
            "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime;"))
    deadline = time.monotonic() + 10
    while driver.find_element("id", "live").get_attribute("data-state") != "live":  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise SystemExit("the page never connected to its event stream")
        time.sleep(0.05)
    driver.execute_script(OBSERVE)  # type: ignore[attr-defined]
    rng = random.Random(7)
    results = []
    for n in range(actions):
        time.sleep(rng.uniform(0.05, 0.35))  # commits at every phase of the watcher's poll
        store.act(None, lambda g: g.apply(Discarded(g.state.current.name)))  # type: ignore[union-attr]
        committed = time.time() * 1000
        deadline = time.monotonic() + 5
        while True:
            seen = driver.execute_script("return window.boardChanges.length;")  # type: ignore[attr-defined]
            if seen > n:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"action {n + 1} never showed on the page")
            time.sleep(0.005)
        shown = driver.execute_script(f"return window.boardChanges[{n}];")  # type: ignore[attr-defined]
        results.append(shown - committed)
        time.sleep(0.05)
        extra = driver.execute_script("return window.boardChanges.length;")  # type: ignore[attr-defined]
        if extra != n + 1:
            raise SystemExit(f"action {n + 1} changed the page {extra - n} times")
    return results, reloads


def open_pages(board: Board, pages: int, stack: ExitStack) -> None:
    """``pages`` board pages, at most 5 per browser: a browser keeps 6 connections per host over
    HTTP/1.1, and each open page holds one for its event stream."""
    driver = None
    for n in range(pages):
        if n % PAGES_PER_BROWSER == 0:
            driver = stack.enter_context(chromium())
        else:
            driver.switch_to.new_window("tab")  # type: ignore[union-attr]
        driver.get(board.url + "/")  # type: ignore[union-attr]
        deadline = time.monotonic() + 10
        while driver.find_element("id", "live").get_attribute("data-state") != "live":  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise SystemExit(f"page {n + 1} never connected to its event stream")
            time.sleep(0.05)


def idle_cpu(board: Board, seconds: float) -> float:
    pids = board.pids()
    before = cpu_seconds(pids)
    time.sleep(seconds)
    return (cpu_seconds(pids) - before) / seconds * 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=50)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of each idle CPU window")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        store = Store(db)
        setup = Setup(players=("Cindi", "Paul", "Sue"), options=Options())
        store.create(setup, lambda g: g.apply(RollOff(first="Cindi")) and None)
        with Board(db) as board, chromium() as driver:
            ms, reloads = latency(board, store, args.actions, driver)
            print(f"commit to page over {len(ms)} actions: median {statistics.median(ms):.0f} ms, "
                  f"p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms")
            print(f"  baseline: a full reload of the page takes {statistics.median(reloads):.0f} ms (median of 5); "
                  f"the watcher polls every {POLL_S * 1000:.0f} ms")
            driver.get("about:blank")
            time.sleep(2)
            none = idle_cpu(board, args.idle)
            with ExitStack() as browsers:
                open_pages(board, args.pages, browsers)
                time.sleep(2)
                opened = idle_cpu(board, args.idle)
            print(f"server CPU, idle, over {args.idle:.0f} s: {none:.3f}% of a core with no page open, "
                  f"{opened:.3f}% with {args.pages} pages open (the pages add {opened - none:.3f} points)")


if __name__ == "__main__":
    main()
