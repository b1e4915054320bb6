"""The referee's commands as a user runs them: start-up and cost per command, beside baselines of the same run.

    .venv/bin/python benchmarks/bench_referee.py            (or: make bench)

It installs the project the way a user does (``pip install .`` into a throw-away virtual
environment, not editable, bytecode compiled) and times the installed ``uw-referee``:

- start: ``check``, ``status`` and ``play`` against ``python -c pass`` of the same interpreter
  (targets: check <= 3x, status and play <= 4x), in English and in Spanish (``--lang es``);
- a long game: ``status`` and ``play`` in a game of 5,000 events against the same in a game of 10
  (target <= 1.2x);
- a full file: a ``play`` in a file holding 1,000 finished games against the same play in a file
  with one game (target <= 1.2x), and ``games`` listing the 1,000 games (target < 100 ms);
- corrections and reading a long game (issue 26): ``undo``, ``redo``, ``log`` and ``export`` at
  5,000 events against the same at 10, in the same rounds as ``status`` and ``play``; with
  ``--baseline REF`` also the same commands of the code at git commit REF (``git archive``, then
  the same ``pip install .`` into a second throw-away environment), on copies of the same
  databases, interleaved in the same rounds (target: at 5,000 events at most half of REF's).

Every figure is the median CPU time (user + system) of interleaved runs (each round runs every
command once), so load from other processes falls on all of them alike. The machine is shared and
noisy: read the ratios.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Builds the databases inside the throw-away install (so the installed code writes them).
BUILD = r"""
import sys
from referee.engine import Discarded, Game, Options, RollOff, SanityRolled, Setup, WordPlayed
from referee.store import Store
from dictionaries.dictionary import open_dictionary

kind, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open_dictionary()
words = [w.word for letters in ("aeilnrs", "toupcmd", "hgbykfe", "eaioult", "nrstwvx", "zjqgdpa", "aeiorst",
                                "lnmdpcb", "hgfkaeo", "aeinrst", "oulmpcd", "eiatnsl", "aeirstd", "eoarnlt")
         for w in d.rack(letters) if 0 < w.score < 20]  # a rack is a hand: 7 letters
words = [w for w in dict.fromkeys(words) if w != "RUM"]  # RUM is the word the benchmark plays
store = Store(path)

def long_game(events):
    def build(game):
        game.apply(RollOff(first="Ann"))
        pool = iter(words)
        while game.count < events:
            name = game.state.current.name
            if game.count % 7 == 0:
                game.apply(Discarded(name))
                continue
            word = next(pool)
            game.apply(WordPlayed(name, word, game.setup.deck.score(word), True))
            game.apply(SanityRolled(name, 20))
    store.create(Setup(("Ann", "Bob", "Cy"), target=10**9, card_accounting=False), build)

if kind == "long":
    long_game(size)
else:  # size finished games, then one game in progress (the one the timed play goes to)
    for i in range(size):
        def finish(game):
            game.apply(RollOff(first="Ann"))
            game.apply(WordPlayed("Ann", "TAPS", game.setup.deck.score("TAPS"), True))
            game.apply(SanityRolled("Ann", 20))
        store.create(Setup(("Ann", "Bob"), target=1, card_accounting=False), finish)
    long_game(10)
print(len(words))
"""


def install(venv: Path, source: Path = ROOT) -> Path:
    """A normal ``pip install .`` of ``source`` into ``venv`` with bytecode compiled; returns its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    subprocess.run([str(bin_dir / "pip"), "install", "-q", str(source)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site = next((venv / "lib").glob("python3*/site-packages"))
    subprocess.run([str(bin_dir / "python"), "-m", "compileall", "-q", str(site)], check=True,
                   stdout=subprocess.DEVNULL)
    return bin_dir


def interleaved(commands: dict[str, list[str]], env: dict[str, str], rounds: int,
                before: dict[str, list[str]] | None = None) -> dict[str, float]:
    """Median CPU time (user + system, ms) of each command over ``rounds`` rounds.

    CPU time, not wall time: on this shared machine other processes' load stretches the wall time
    of a command that waits for a core, but not the CPU time it uses. ``before[name]`` runs untimed
    before each timed run of ``name``.
    """
    times: dict[str, list[float]] = {name: [] for name in commands}
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            if before and name in before:
                subprocess.run(before[name], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(proc.pid, 0)
            walls[name].append(time.perf_counter() - start)
            err = proc.stderr.read() if proc.stderr else b""
            proc.returncode = os.waitstatus_to_exitcode(status)
            times[name].append(usage.ru_utime + usage.ru_stime)
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed: {err.decode()}")
    WALL.update({name: statistics.median(values) * 1e3 for name, values in walls.items()})
    return {name: statistics.median(values) * 1e3 for name, values in times.items()}


#: Median wall times (ms) of the last ``interleaved`` call, printed beside the CPU times.
WALL: dict[str, float] = {}


def row(name: str, value: float, base_name: str, base: float, target: str, wall: tuple[str, str] | None = None) -> None:
    """One figure beside its baseline (CPU time), and the same ratio by wall time when ``wall`` names the two."""
    by_wall = f" | wall {WALL[wall[0]]:7.2f} / {WALL[wall[1]]:7.2f} ms = {WALL[wall[0]] / WALL[wall[1]]:5.2f}" if wall else ""
    print(f"{name:<38} {value:7.2f} ms | {base_name:<30} {base:7.2f} ms | ratio {value / base:5.2f} | {target:<8}{by_wall}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds per figure (default 15)")
    parser.add_argument("--baseline", metavar="REF",
                        help="also undo, redo, log and export of the code at git commit REF, in the same rounds")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="uw-bench-"))
    try:
        print("installing the project into a throw-away virtual environment (pip install .) ...", flush=True)
        bin_dir = install(work / "venv")
        python, referee = str(bin_dir / "python"), str(bin_dir / "uw-referee")
        old_referee = None
        if args.baseline:
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline], check=True,
                                    capture_output=True, text=True).stdout.strip()
            source = work / "baseline-src"
            source.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
            print(f"installing the baseline, git commit {commit}, the same way ...", flush=True)
            old_referee = str(install(work / "baseline-venv", source) / "uw-referee")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UW_")}
        env["NO_COLOR"] = "1"

        def build(kind: str, db: Path, size: int, program: str = python) -> None:
            # Run outside the checkout, so that the installed package (not the source tree) builds the games.
            subprocess.run([program, "-c", BUILD, kind, str(db), str(size)], check=True, env=env,
                           stdout=subprocess.DEVNULL, cwd=work)

        dbs = {name: work / f"{name}.sqlite3" for name in ("short", "long", "one", "full")}
        build("long", dbs["short"], 10)
        build("long", dbs["long"], 5000)
        build("full", dbs["one"], 0)
        build("full", dbs["full"], 1000)
        # A play is timed on a game that the untimed 'undo' before it brings back to the same point.
        def play(db: Path) -> list[str]:
            return [referee, "--db", str(db), "play", "rum", "--roll", "20"]

        def undo(db: Path) -> list[str]:
            return [referee, "--db", str(db), "undo"]

        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.rounds} interleaved rounds\n")
        start = interleaved({
            "pass": [python, "-c", "pass"],
            "check": [referee, "check", "taps"],
            "status": [referee, "--db", str(dbs["short"]), "status"],
            "play": play(dbs["short"]),
            # The same in Spanish: the catalogs are loaded (English loads none).
            "check es": [referee, "--lang", "es", "check", "taps"],
            "status es": [referee, "--lang", "es", "--db", str(dbs["short"]), "status"],
            "play es": [referee, "--lang", "es", *play(dbs["short"])[1:]],
        }, env, args.rounds, before={"play": undo(dbs["short"]), "play es": undo(dbs["short"])})
        row("uw-referee check taps", start["check"], "python -c pass", start["pass"], "<= 3x", ("check", "pass"))
        row("uw-referee status", start["status"], "python -c pass", start["pass"], "<= 4x", ("status", "pass"))
        row("uw-referee play WORD --roll N", start["play"], "python -c pass", start["pass"], "<= 4x", ("play", "pass"))
        row("uw-referee --lang es check taps", start["check es"], "python -c pass", start["pass"], "<= 3x",
            ("check es", "pass"))
        row("uw-referee --lang es status", start["status es"], "python -c pass", start["pass"], "<= 4x",
            ("status es", "pass"))
        row("uw-referee --lang es play WORD --roll N", start["play es"], "python -c pass", start["pass"], "<= 4x",
            ("play es", "pass"))

        # Long games: the same commands at 5,000 events and at 10.
        grow = interleaved({
            "status 10": [referee, "--db", str(dbs["short"]), "status"],
            "status 5000": [referee, "--db", str(dbs["long"]), "status"],
            "play 10": play(dbs["short"]),
            "play 5000": play(dbs["long"]),
        }, env, args.rounds, before={"play 10": undo(dbs["short"]), "play 5000": undo(dbs["long"])})
        row("status, a game of 5,000 events", grow["status 5000"], "status, a game of 10 events", grow["status 10"],
            "<= 1.2x", ("status 5000", "status 10"))
        row("play, a game of 5,000 events", grow["play 5000"], "play, a game of 10 events", grow["play 10"], "<= 1.2x",
            ("play 5000", "play 10"))

        # Corrections and reading: undo, then redo (the pair leaves the game as it was), log, export;
        # beside status and play of the same rounds, and the baseline's code on copies of the same games.
        versions = {"": referee}
        if old_referee is not None:
            versions[" old"] = old_referee
            # The same games, built by the baseline's own code: its files may be of an older schema.
            old_python = str(Path(old_referee).parent / "python")
            build("long", work / "short-old.sqlite3", 10, old_python)
            build("long", work / "long-old.sqlite3", 5000, old_python)
        reading: dict[str, list[str]] = {
            "status 10": [referee, "--db", str(dbs["short"]), "status"],
            "status 5000": [referee, "--db", str(dbs["long"]), "status"],
            "play 10": play(dbs["short"]),
            "play 5000": play(dbs["long"]),
        }
        for label, program in versions.items():
            for size, name in (("10", "short"), ("5000", "long")):
                db = str(dbs[name] if not label else work / f"{name}-old.sqlite3")
                for command in ("undo", "redo", "log", "export"):
                    reading[f"{command} {size}{label}"] = [program, "--db", db, command]
        fixes = interleaved(reading, env, args.rounds, before={"play 10": undo(dbs["short"]),
                                                               "play 5000": undo(dbs["long"])})
        print()
        for command in ("status", "play", "undo", "redo", "log", "export"):
            row(f"{command}, a game of 5,000 events", fixes[f"{command} 5000"], f"{command}, a game of 10 events",
                fixes[f"{command} 10"], "", (f"{command} 5000", f"{command} 10"))
        if old_referee is not None:
            for command in ("undo", "redo", "log", "export"):
                row(f"{command} 5,000 events, {args.baseline}", fixes[f"{command} 5000 old"],
                    f"{command} 10 events, {args.baseline}", fixes[f"{command} 10 old"], "",
                    (f"{command} 5000 old", f"{command} 10 old"))
            for command in ("undo", "redo", "log", "export"):
                row(f"{command} 5,000 events, this code", fixes[f"{command} 5000"],
                    f"the same, {args.baseline}", fixes[f"{command} 5000 old"], "<= 0.5x",
                    (f"{command} 5000", f"{command} 5000 old"))

        full = interleaved({
            "play one": play(dbs["one"]),
            "play full": play(dbs["full"]),
            "games": [referee, "--db", str(dbs["full"]), "games"],
            "pass": [python, "-c", "pass"],
        }, env, args.rounds, before={"play one": undo(dbs["one"]), "play full": undo(dbs["full"])})
        row("play, a file of 1,000 finished games", full["play full"], "play, a file of one game", full["play one"],
            "<= 1.2x", ("play full", "play one"))
        row("games, 1,001 games listed", full["games"], "python -c pass", full["pass"], "< 100 ms", ("games", "pass"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
