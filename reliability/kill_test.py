"""Kill test: a long scripted game through the real ``uw-referee``, killed with SIGKILL at random moments.

Every command runs in a fresh process on one database. Some are killed: half at a uniformly random
moment of the command's life ("random"), half once the process has opened the database, after a
random part of the time commands keep it open ("aimed", so that kills land during the SQLite work).
After each kill:

* the database opens and ``PRAGMA integrity_check`` says ok;
* every action whose command had exited 0 is still there, byte for byte;
* the killed action is either wholly there or wholly absent (a play and its roll, a new game and its
  first events, an undo) -- never half;
* the next command succeeds (exit 0) and is recorded exactly.

Turn order is checked too: with nobody out, the player of each action is the next seat. Every 25
steps ``export`` and ``status --json`` are compared with the database.

Run: ``.venv/bin/python reliability/kill_test.py`` (300 kills; ``--kills N``, ``--seed S``,
``--json FILE`` for the figures). Exit status 0 when every check held.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (python reliability/x.py): the repository's packages import from here
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability.common import (
    Outcome,
    Snapshot,
    integrity,
    legal_words,
    run_referee,
    snapshot,
    start_referee,
)

PLAYERS = ("Ann", "Bob", "Cy")
MAIN = 1           # the long game; side games are created now and then in the same database
TARGET = 10**9     # nobody ever wins: the game goes on as long as the script wants
PAWNS = 5


class KillTestFailure(AssertionError):
    """A check after a kill or a command failed."""


@dataclass(frozen=True)
class Command:
    """One referee command and what it must record when it is applied."""

    kind: str                      # play_roll, play, roll, discard, undo, new
    args: tuple[str, ...]
    word: str | None = None
    roll: int | None = None
    player: str | None = None      # whose action it is (the main game's current player)


@dataclass
class Report:
    """The figures of a run."""

    kills: int = 0
    kills_random: int = 0
    kills_aimed: int = 0
    killed_after_commit: int = 0       # the killed command's action was found wholly recorded
    killed_before_commit: int = 0      # ... or wholly absent
    finished_before_kill: int = 0      # the process ended before the kill landed (not counted as a kill)
    commands_ok: int = 0               # commands that exited 0 (each one checked in the database)
    integrity_checks: int = 0
    actions_lost: int = 0
    half_applied: int = 0
    continue_failures: int = 0
    export_checks: int = 0
    median_command_s: float = 0.0      # a whole command, start to exit
    median_db_open_s: float = 0.0      # from opening the database to exit: the span aimed kills spread over
    events_main_game: int = 0
    words_played: int = 0
    games: int = 0
    seconds: float = 0.0
    kinds_killed: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


# -- the model: what the main game must look like ------------------------------------------------

def completed_actions(events: list[tuple[str, dict[str, Any]]]) -> int:
    return sum(1 for _, e in events if e["type"] in ("sanity_rolled", "discarded"))


def current_player(events: list[tuple[str, dict[str, Any]]]) -> str:
    """With nobody out, the turn passes seat by seat from Ann after each roll or discard."""
    return PLAYERS[completed_actions(events) % len(PLAYERS)]


def pawns(events: list[tuple[str, dict[str, Any]]], player: str) -> int:
    """Pawns left: one lost per failed sanity check (a roll below the score that is not a 20)."""
    lost, score = 0, 0
    for _, e in events:
        if e["type"] == "word_played":
            score = e["score"]
        elif e["type"] == "sanity_rolled" and e["player"] == player and e["roll"] != 20 and e["roll"] < score:
            lost += 1
    return PAWNS - lost


def last_action_start(events: list[tuple[str, dict[str, Any]]]) -> int:
    """Index of the first event of the last action (a play starts one; its roll belongs to it)."""
    for i in range(len(events) - 1, 1, -1):
        if events[i][1]["type"] in ("word_played", "discarded"):
            return i
    raise ValueError("no action to undo")


def expected_delta(cmd: Command) -> list[tuple[str, dict[str, Any]]]:
    """The events an applied command appends to the main game (type and the fields that matter)."""
    p = cmd.player
    if cmd.kind == "play_roll":
        return [("word_played", {"player": p, "word": cmd.word}), ("sanity_rolled", {"player": p, "roll": cmd.roll})]
    if cmd.kind == "play":
        return [("word_played", {"player": p, "word": cmd.word})]
    if cmd.kind == "roll":
        return [("sanity_rolled", {"player": p, "roll": cmd.roll})]
    if cmd.kind == "discard":
        return [("discarded", {"player": p})]
    raise ValueError(cmd.kind)


def matches(events: list[tuple[str, dict[str, Any]]], delta: list[tuple[str, dict[str, Any]]]) -> bool:
    return len(events) == len(delta) and all(
        e["type"] == kind and all(e.get(k) == v for k, v in wanted.items()) for (_, e), (kind, wanted) in zip(events, delta))


def classify(before: Snapshot, after: Snapshot, cmd: Command) -> bool:
    """True when ``cmd`` is wholly recorded, False when wholly absent; KillTestFailure otherwise."""
    if after.games == before.games:
        return False
    if cmd.kind == "new":
        added = set(after.games) - set(before.games)
        others_same = all(after.games.get(g) == ev for g, ev in before.games.items())
        if not others_same:
            raise KillTestFailure(f"creating a game changed or lost recorded games (command {cmd.args})")
        if len(added) != 1:
            raise KillTestFailure(f"{len(added)} games appeared for one 'new'")
        events = after.games[added.pop()]
        if [e["type"] for _, e in events] != ["created", "roll_off"] or \
                events[0][1]["setup"]["players"] != list(cmd.args[cmd.args.index("new") + 1:cmd.args.index("--first")]):
            raise KillTestFailure(f"half-created game: events {[e['type'] for _, e in events]}")
        return True
    if set(after.games) != set(before.games) or any(after.games[g] != ev for g, ev in before.games.items() if g != MAIN):
        raise KillTestFailure(f"{cmd.args} changed another game or the list of games")
    b, a = before.events(MAIN), after.events(MAIN)
    if cmd.kind == "undo":
        if a == b[:last_action_start(b)]:
            return True
        raise KillTestFailure(f"undo left {len(a)} events where {len(b)} or {last_action_start(b)} were expected")
    if a[:len(b)] != b:
        lost = sum(1 for x, y in zip(a, b) if x != y) + max(0, len(b) - len(a))
        raise KillTestFailure(f"LOST: {lost} recorded event(s) of the main game changed or vanished after {cmd.args}")
    if matches(a[len(b):], expected_delta(cmd)):
        return True
    raise KillTestFailure(f"HALF-APPLIED or wrong: {cmd.args} recorded {[e for _, e in a[len(b):]]}")


# -- the script -----------------------------------------------------------------------------------

class KillTest:
    """One database, one long game, commands chosen from the recorded state, some killed."""

    def __init__(self, db: Path, seed: int, words: int) -> None:
        self.db = db
        self.rng = random.Random(seed)
        self.words = legal_words(words, seed)
        self.next_word = 0
        self.side_games = 0
        self.durations: list[float] = []
        self.db_spans: list[float] = []
        self.report = Report()

    def start(self) -> Snapshot:
        # Random legal words by the hundred, with no real cards: the referee's card count (RULES.md 6)
        # would refuse some, which is not what this test is about.
        outcome = run_referee(self.db, "new", *PLAYERS, "--first", PLAYERS[0], "--target", str(TARGET),
                              "--no-card-accounting")
        if outcome.code != 0:
            raise KillTestFailure(outcome.describe())
        self.report.commands_ok += 1
        return snapshot(self.db)

    def word(self) -> str:
        word = self.words[self.next_word]
        self.next_word += 1
        return word

    def choose(self, snap: Snapshot) -> Command:
        events = snap.events(MAIN)
        player = current_player(events)
        game = ("--game", str(MAIN))
        if events[-1][1]["type"] == "word_played":
            r = self.roll(events, player)
            return Command("roll", (*game, "roll", str(r)), roll=r, player=player)
        pick = self.rng.random()
        if pick < 0.50:
            word, r = self.word(), self.roll(events, player)
            return Command("play_roll", (*game, "play", word.lower(), "--roll", str(r)), word=word, roll=r, player=player)
        if pick < 0.65:
            word = self.word()
            return Command("play", (*game, "play", word.lower()), word=word, player=player)
        if pick < 0.85:
            return Command("discard", (*game, "discard"), player=player)
        if pick < 0.95 and len(events) > 2:
            return Command("undo", (*game, "undo"))
        self.side_games += 1
        names = (f"Side{self.side_games}a", f"Side{self.side_games}b")
        return Command("new", ("new", *names, "--first", names[0]))

    def roll(self, events: list[tuple[str, dict[str, Any]]], player: str) -> int:
        """Mostly a pass (20); sometimes a 1 (a failure) while the player keeps at least 2 pawns."""
        return 1 if pawns(events, player) > 2 and self.rng.random() < 0.15 else 20

    def db_span(self) -> float:
        """How long a command usually works with the database open (the median of the last ones)."""
        return statistics.median(self.db_spans[-30:]) if self.db_spans else 0.02

    def window(self) -> float:
        """How long a command usually lives (the median of the last ones)."""
        return statistics.median(self.durations[-50:]) if self.durations else 0.2

    def run(self, cmd: Command, before: Snapshot) -> Snapshot:
        """Run ``cmd`` to the end: it must exit 0 and be recorded exactly.

        Every third run also times how long the process works with the database open (from the
        moment it opens the file to its exit): the span the aimed kills spread over.
        """
        if len(self.durations) % 3 == 0:
            process = start_referee(self.db, *cmd.args)
            started = time.perf_counter()
            seen = wait_for_open(process, self.db.name)
            opened = time.perf_counter()
            out, err = process.communicate()
            ended = time.perf_counter()
            if seen:
                self.db_spans.append(ended - opened)
            outcome = Outcome(cmd.args, process.returncode, out, err, ended - started)
        else:
            outcome = run_referee(self.db, *cmd.args)
        self.durations.append(outcome.seconds)
        if outcome.code != 0:
            self.report.continue_failures += 1
            raise KillTestFailure(f"command after a kill failed: {outcome.describe()}")
        after = self.check(before, cmd, killed=False)
        self.report.commands_ok += 1
        return after

    def check(self, before: Snapshot, cmd: Command, killed: bool) -> Snapshot:
        verdict = integrity(self.db)
        self.report.integrity_checks += 1
        if verdict != "ok":
            raise KillTestFailure(f"integrity_check after {cmd.args}: {verdict}")
        after = snapshot(self.db)
        try:
            applied = classify(before, after, cmd)
        except KillTestFailure as exc:
            if "LOST" in str(exc):
                self.report.actions_lost += 1
            else:
                self.report.half_applied += 1
            raise
        if not killed and not applied:
            raise KillTestFailure(f"{cmd.args} exited 0 but is not recorded")
        if killed:
            if applied:
                self.report.killed_after_commit += 1
            else:
                self.report.killed_before_commit += 1
        return after

    def kill(self, cmd: Command, before: Snapshot, aimed: bool) -> Snapshot:
        """Start ``cmd`` and SIGKILL it; then check the database."""
        process = start_referee(self.db, *cmd.args)
        started = time.perf_counter()
        if aimed:
            wait_for_open(process, self.db.name)
            time.sleep(self.rng.uniform(0, 1.1 * self.db_span()))
        else:
            time.sleep(self.rng.uniform(0, 1.1 * self.window()))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        if process.returncode != -signal.SIGKILL:
            self.durations.append(time.perf_counter() - started)
            self.report.finished_before_kill += 1
            if process.returncode != 0:
                raise KillTestFailure(f"{cmd.args} exited {process.returncode} (not killed)")
            self.report.commands_ok += 1
            return self.check(before, cmd, killed=False)
        self.report.kills += 1
        if aimed:
            self.report.kills_aimed += 1
        else:
            self.report.kills_random += 1
        self.report.kinds_killed[cmd.kind] = self.report.kinds_killed.get(cmd.kind, 0) + 1
        return self.check(before, cmd, killed=True)

    def cross_check(self, snap: Snapshot) -> None:
        """``export`` and ``status --json`` tell the same story as the database."""
        exported = run_referee(self.db, "--game", str(MAIN), "export")
        status = run_referee(self.db, "--game", str(MAIN), "status", "--json")
        if exported.code or status.code:
            raise KillTestFailure(f"export/status failed: {exported.describe()} {status.describe()}")
        events = json.loads(exported.stdout)["events"]
        recorded = snap.events(MAIN)
        if [(e["at"], e["type"]) for e in events] != [(at, e["type"]) for at, e in recorded]:
            raise KillTestFailure("export differs from the database")
        state = json.loads(status.stdout)
        if state["turn"] != current_player(recorded):
            raise KillTestFailure(f"status says {state['turn']}'s turn; turn order says {current_player(recorded)}")
        self.report.export_checks += 1


def wait_for_open(process: subprocess.Popen[str], name: str, limit: float = 10.0) -> bool:
    """Poll /proc/PID/fd until the process has the database open; False when it ended first."""
    deadline = time.monotonic() + limit
    fd_dir = f"/proc/{process.pid}/fd"
    while time.monotonic() < deadline and process.poll() is None:
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # the process is gone
            return False
        for fd in fds:
            try:
                if os.readlink(f"{fd_dir}/{fd}").endswith(name):
                    return True
            except OSError:  # that descriptor closed while we looked (imports open and close files)
                continue
        time.sleep(0.0005)
    return False


def run_kill_test(db: Path, kills: int, seed: int = 1, log: bool = False, report: Report | None = None) -> Report:
    """Kill ``kills`` commands of one long game on ``db``; raises KillTestFailure at the first broken check
    (``report`` then holds the figures so far)."""
    test = KillTest(db, seed, words=max(400, kills * 4 + 200))
    if report is not None:
        test.report = report
    report = test.report
    started = time.perf_counter()
    try:
        snap = test.start()
        step = 0
        while report.kills < kills:
            step += 1
            for _ in range(test.rng.randrange(0, 3)):  # a few plain commands between kills
                snap = test.run(test.choose(snap), snap)
            snap = test.kill(test.choose(snap), snap, aimed=step % 2 == 0)
            snap = test.run(test.choose(snap), snap)  # the game continues
            if step % 25 == 0:
                test.cross_check(snap)
                if log:
                    print(f"kill-test: {report.kills} kills, {report.commands_ok} commands ok, "
                          f"{len(snap.events(MAIN))} events", flush=True)
        test.cross_check(snap)
    except KillTestFailure as exc:
        report.failures.append(str(exc))
        raise
    finally:
        report.seconds = round(time.perf_counter() - started, 1)
        report.median_command_s = round(statistics.median(test.durations), 3) if test.durations else 0.0
        report.median_db_open_s = round(statistics.median(test.db_spans), 3) if test.db_spans else 0.0
        final = snapshot(db) if db.exists() else Snapshot()
        report.events_main_game = len(final.events(MAIN))
        report.words_played = sum(1 for _, e in final.events(MAIN) if e["type"] == "word_played")
        report.games = len(final.games)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=300, help="SIGKILLs to land (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="database file (default: a new one in a temporary directory)")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uw-kill-") as tmp:
        db = args.db or Path(tmp) / "games.sqlite3"
        report = Report()
        try:
            run_kill_test(db, args.kills, args.seed, log=True, report=report)
            ok = True
        except KillTestFailure as exc:
            print(f"kill-test: FAILED: {exc}", file=sys.stderr)
            ok = False
        figures = asdict(report)
        print(json.dumps(figures, indent=2))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
