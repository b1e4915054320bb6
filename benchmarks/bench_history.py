"""The table's history (issue 39): what ``stats`` and a finished game's board page cost, beside their baselines.

    .venv/bin/python benchmarks/bench_history.py            (or: make bench)

It installs the project the way a user does (``pip install .`` into a throw-away virtual environment, not editable,
bytecode compiled; ``bench_referee.install``) and measures, in the same run:

- ``uw-referee stats`` over a file of 1,000 finished games (each about 30 turns of words, rolls and discards:
  eliminations, Psychotherapy), against ``uw-referee status`` of the same file: median CPU time (user + system) of
  interleaved runs of the installed command (target: at most 3x), the figures kept from the run before
  (``referee.history.kept``); and its first run, with nothing kept, which replays every game;
- the board's page of a finished game (its chart, winner and best word) against the page of a game in play of the
  same length, served by the installed package's app (Flask's test client, one process, CPU time of the process):
  the first request after a commit (the render, which for the finished game replays its events for the chart) and
  the requests after it (the page as rendered once per commit; target: about the same).

The machine is shared and noisy: read the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_referee import install, interleaved, row

#: Builds the file inside the throw-away install (so the installed code writes the games): ``count`` finished games
#: of up to 30 turns (target 60, Psychotherapy on: some discards give a pawn back; a game not over by then ends as
#: the others leave), then one game in play of ``turns`` turns,
#: and one finished game of as many (the pages' pair).
BUILD = r"""
import random, sys
from dictionaries.deck import STANDARD
from referee.engine import (Discarded, Options, PlayerLeft, PsychotherapyRolled, RollOff, SanityRolled, Setup,
                            WordPlayed)
from referee.store import Store

path, count = sys.argv[1], int(sys.argv[2])
words = ["LOOK", "CHAMP", "TOP", "TAPS", "TEN", "RUM", "HILL", "FIRE", "COLUMNS", "WIZARD", "GARDEN", "FEATHER",
         "EARLIER", "BRANCH", "SUN", "DOG", "OWL", "NUT", "POOL", "MOON", "SNOW", "SPOON", "SOIL", "DOOR", "CORN"]
rng = random.Random(39)
store = Store(path)

def game(turns, finish, target=60):
    def build(g):
        g.apply(RollOff(first="Ann"))
        pool = iter([w for w in rng.sample(words, len(words)) + [w + "S" for w in words] + [w + "ED" for w in words]
                     if len(w) <= 7])
        for _turn in range(turns):
            if g.state.is_over():
                return
            name = g.state.current.name
            if rng.random() < 0.2:
                g.apply(Discarded(name, "OCLNUSM"))
                if g.state.phase.value == "psychotherapy":
                    g.apply(PsychotherapyRolled(name, rng.randint(1, 20)))
                continue
            word = next(pool)
            g.apply(WordPlayed(name, word, STANDARD.score(word), True))
            g.apply(SanityRolled(name, rng.randint(1, 20)))
        for other in g.state.players[1:]:  # not over yet: the others leave, Ann is the last standing
            if finish and not g.state.is_over() and not other.out and g.state.phase.value == "action":
                g.apply(PlayerLeft(other.name))
    names = tuple(rng.sample(["Ann", "Bob", "Cy", "Dee", "Eve"], rng.randint(2, 4)))
    names = ("Ann",) + tuple(n for n in names if n != "Ann")
    store.create(Setup(names, target=target, options=Options(psychotherapy=True), card_accounting=False), build)

for _ in range(count):
    game(30, True)
game(30, True)    # the finished game whose page is timed (its number: count + 1)
game(30, False, 10**6)  # the game in play whose page is the baseline (count + 2): the current game
"""

#: Times the board's pages in one process of the installed package: the first request after a commit (each request
#: after a fresh app: the render) and the request after (the page as rendered), for each game, interleaved.
PAGES = r"""
import os, resource, statistics, sys, json
from referee.board.app import create_app

path, finished, playing, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

times = {"first finished": [], "first playing": [], "again finished": [], "again playing": []}
for _ in range(rounds):
    for name, gid in (("finished", finished), ("playing", playing)):
        app = create_app({"BOARD_DB": path, "BOARD_GAME": None, "TESTING": True})
        client = app.test_client()
        client.get("/static/board.css")  # the app's first request: its set-up is not the page's cost
        start = cpu()
        page = client.get(f"/games/{gid}")
        times["first " + name].append(cpu() - start)
        assert page.status_code == 200 and (b"<svg" in page.data) == (name == "finished"), name
        start = cpu()
        for _i in range(20):
            client.get(f"/games/{gid}")
        times["again " + name].append((cpu() - start) / 20)
        app.extensions["board"].watcher.stop()
print(json.dumps({k: statistics.median(v) * 1e3 for k, v in times.items()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds per figure (default 15)")
    parser.add_argument("--games", type=int, default=1000, help="finished games in the file (default 1,000)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="uw-bench-history-"))
    try:
        print("installing the project into a throw-away virtual environment (pip install .) ...", flush=True)
        bin_dir = install(work / "venv")
        python, referee = str(bin_dir / "python"), str(bin_dir / "uw-referee")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UW_")}
        env["NO_COLOR"] = "1"
        env["XDG_CACHE_HOME"] = str(work / "cache")  # the figures kept between commands: this run's own
        kept = work / "cache" / "uw-referee" / "history.sqlite3"
        db = work / "games.sqlite3"
        print(f"writing {args.games:,} finished games ...", flush=True)
        subprocess.run([python, "-c", BUILD, str(db), str(args.games)], check=True, env=env, cwd=work)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.rounds} interleaved rounds\n")
        cost = interleaved({
            "status": [referee, "--db", str(db), "status"],
            "stats": [referee, "--db", str(db), "stats"],
            "stats json": [referee, "--db", str(db), "stats", "--json"],
        }, env, args.rounds)
        row(f"stats, {args.games:,} games", cost["stats"], "status", cost["status"], "<= 3x", ("stats", "status"))
        row(f"stats --json, {args.games:,} games", cost["stats json"], "status", cost["status"], "<= 3x",
            ("stats json", "status"))
        cold = interleaved({
            "status": [referee, "--db", str(db), "status"],
            "stats": [referee, "--db", str(db), "stats"],
        }, env, max(3, args.rounds // 3), before={"stats": ["rm", "-f", str(kept)]})
        row("stats, nothing kept yet (its first run)", cold["stats"], "status", cold["status"], "report",
            ("stats", "status"))
        pages = json.loads(subprocess.run(
            [python, "-c", PAGES, str(db), str(args.games + 1), str(args.games + 2), str(args.rounds)],
            check=True, env=env, cwd=work, capture_output=True, text=True).stdout)
        row("board page, finished game (rendered)", pages["again finished"], "the same, a game in play",
            pages["again playing"], "~1x")
        row("board page, finished game (first)", pages["first finished"], "the same, a game in play",
            pages["first playing"], "report")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
