"""Concurrent tables: several real ``uw-referee`` processes on one database at once.

Each game gets several "terminals" (two people typing at one table); several games share the
database. Every terminal plays its own words, rolls and discards with ``--game ID``, as fast as it
can, with at most ``--parallel`` processes running at a time. Afterwards:

* no lost action: every play, roll and discard that exited 0 is recorded, once;
* no duplicated action: nothing is recorded twice, and nothing a refused command tried;
* turn order: the players of the recorded actions follow the seats (nobody goes out: every roll is a
  20), and the engine replays every game;
* no "database is locked" reaches a user: a command either succeeds, is refused by the rules with
  "Nothing was changed", or (only when a lock is held past the 10 s bound) says the database is busy.

The bounded wait is shown apart: a writer holds the lock (3 s, then 15 s); a command waits and
succeeds when the lock goes within 10 s, and says "... is busy ... try again" (exit 1, nothing changed) when not.

Run: ``.venv/bin/python reliability/concurrency.py`` (``--games``, ``--terminals``, ``--commands``,
``--parallel``, ``--json FILE``). Exit status 0 when every check held.
"""
from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (python reliability/x.py): the repository's packages import from here
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability.common import Outcome, integrity, legal_words, run_referee, snapshot

PLAYERS = ("Ann", "Bob", "Cy")
KINDS: tuple[tuple[str, float], ...] = (("play_roll", 0.45), ("play", 0.20), ("roll", 0.15), ("discard", 0.20))


@dataclass
class Sent:
    """One command a terminal sent, and how it ended."""

    game: int
    terminal: str
    kind: str
    word: str | None
    outcome: Outcome

    @property
    def result(self) -> str:
        """ok, refused (by the rules), busy (the clear message after the bounded wait) or error."""
        out = self.outcome
        if out.code == 0:
            return "ok"
        if out.code == 1 and out.stderr.startswith("Refused: ") and "Nothing was changed." in out.stderr:
            return "refused"
        if out.code == 1 and "is busy" in out.stderr and "try again" in out.stderr and len(out.stderr.splitlines()) == 1:
            return "busy"
        return "error"


@dataclass
class Report:
    games: int = 0
    terminals_per_game: int = 0
    commands: int = 0
    ok: int = 0
    refused: int = 0
    busy: int = 0
    errors: int = 0
    locked_messages: int = 0          # a raw "database is locked" shown to a user
    actions_recorded: int = 0
    lost: int = 0
    duplicated: int = 0
    refused_but_recorded: int = 0
    turn_order_violations: int = 0
    replay_failures: int = 0
    integrity: str = ""
    slowest_command_s: float = 0.0
    seconds: float = 0.0
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def terminal(db: Path, game: int, name: str, words: list[str], commands: int, seed: int, gate: threading.Semaphore,
             sent: list[Sent], lock: threading.Lock) -> None:
    """One person at a table: ``commands`` commands of random kinds, each in a fresh process."""
    rng = random.Random(seed)
    kinds, weights = [kind for kind, _ in KINDS], [weight for _, weight in KINDS]
    words = list(words)
    for _ in range(commands):
        kind = rng.choices(kinds, weights)[0]
        word = words.pop() if kind in ("play_roll", "play") else None
        args = {"play_roll": ("play", str(word).lower(), "--roll", "20"), "play": ("play", str(word).lower()),
                "roll": ("roll", "20"), "discard": ("discard",)}[kind]
        with gate:
            outcome = run_referee(db, "--game", str(game), *args, timeout=120)
        with lock:
            sent.append(Sent(game, name, kind, word, outcome))


def check_game(game: int, events: list[tuple[str, dict[str, Any]]], sent: list[Sent], report: Report) -> None:
    """Lost, duplicated, refused-but-recorded actions and turn order of one game."""
    from referee.engine import Game, event_from_dict

    mine = [s for s in sent if s.game == game]
    ok_words = Counter(s.word for s in mine if s.result == "ok" and s.kind in ("play_roll", "play"))
    not_ok_words = {s.word for s in mine if s.result != "ok" and s.word}
    recorded = Counter(e["word"] for _, e in events if e["type"] == "word_played")
    lost_words = ok_words - recorded
    extra_words = recorded - ok_words
    report.lost += sum(lost_words.values())
    report.duplicated += sum(n - 1 for n in recorded.values() if n > 1)
    report.refused_but_recorded += sum(1 for w in extra_words if w in not_ok_words)
    if lost_words or extra_words:
        report.failures.append(f"game {game}: lost words {sorted(w for w in lost_words if w)}, unexpected words {sorted(w for w in extra_words if w)}")
    for kind, event_type, from_kinds in (("rolls", "sanity_rolled", ("play_roll", "roll")),
                                         ("discards", "discarded", ("discard",))):
        wanted = sum(1 for s in mine if s.result == "ok" and s.kind in from_kinds)
        found = sum(1 for _, e in events if e["type"] == event_type)
        if wanted != found:
            report.lost += max(0, wanted - found)
            report.duplicated += max(0, found - wanted)
            report.failures.append(f"game {game}: {wanted} {kind} exited 0, {found} recorded")
    report.actions_recorded += sum(1 for _, e in events if e["type"] in ("word_played", "discarded"))
    seat = 0
    pending: str | None = None
    for i, (_, e) in enumerate(events[2:], start=2):
        expected = PLAYERS[seat % len(PLAYERS)]
        if e["type"] in ("word_played", "discarded") and (e["player"] != expected or pending):
            report.turn_order_violations += 1
            report.failures.append(f"game {game} event {i}: {e['type']} by {e['player']}, "
                                   f"{'a roll was awaited' if pending else expected + ' was to act'}")
        if e["type"] == "word_played":
            pending = e["player"]
        elif e["type"] == "sanity_rolled":
            if e["player"] != pending:
                report.turn_order_violations += 1
                report.failures.append(f"game {game} event {i}: roll by {e['player']} with no play of theirs pending")
            pending = None
            seat += 1
        elif e["type"] == "discarded":
            seat += 1
    try:
        Game.replay([event_from_dict(e) for _, e in events])
    except Exception as exc:  # any failure to replay is a finding
        report.replay_failures += 1
        report.failures.append(f"game {game} does not replay: {exc}")


def run_concurrency(db: Path, games: int = 3, terminals: int = 2, commands: int = 30, parallel: int = 4,
                    seed: int = 1) -> Report:
    """Create ``games`` games on ``db``, let ``terminals`` terminals per game act at once, then check."""
    report = Report(games=games, terminals_per_game=terminals)
    started = time.perf_counter()
    for _ in range(games):
        outcome = run_referee(db, "new", *PLAYERS, "--first", PLAYERS[0], "--target", str(10**9))
        if outcome.code != 0:
            raise RuntimeError(outcome.describe())
    words = legal_words(games * terminals * commands, seed)
    gate, lock = threading.Semaphore(parallel), threading.Lock()
    sent: list[Sent] = []
    threads = []
    for g in range(1, games + 1):
        for t in range(terminals):
            index = (g - 1) * terminals + t
            share = words[index * commands:(index + 1) * commands]
            threads.append(threading.Thread(target=terminal, args=(db, g, f"g{g}t{t}", share, commands,
                                                                    seed * 1000 + index, gate, sent, lock)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.commands = len(sent)
    results = Counter(s.result for s in sent)
    report.ok, report.refused, report.busy, report.errors = (results[k] for k in ("ok", "refused", "busy", "error"))
    for s in sent:
        result = s.result
        report.by_kind.setdefault(s.kind, Counter())[result] += 1
        if "database is locked" in s.outcome.stdout + s.outcome.stderr:
            report.locked_messages += 1
        if result == "error":
            report.failures.append(f"{s.terminal}: {s.outcome.describe()}")
        report.slowest_command_s = max(report.slowest_command_s, round(s.outcome.seconds, 2))
    report.by_kind = {k: dict(v) for k, v in report.by_kind.items()}
    report.integrity = integrity(db)
    if report.integrity != "ok":
        report.failures.append(f"integrity_check: {report.integrity}")
    snap = snapshot(db)
    for g in range(1, games + 1):
        check_game(g, snap.events(g), sent, report)
    if report.locked_messages:
        report.failures.append(f"{report.locked_messages} commands showed 'database is locked'")
    report.seconds = round(time.perf_counter() - started, 1)
    return report


# -- the bounded wait -----------------------------------------------------------------------------

@dataclass
class BusyResult:
    held_s: float
    waited_s: float
    outcome: Outcome
    recorded: bool


def hold_lock_while(db: Path, hold: float, *args: str) -> BusyResult:
    """Hold the write lock of ``db`` for ``hold`` seconds while ``uw-referee ARGS`` runs."""
    before = snapshot(db)
    holder = sqlite3.connect(db, isolation_level=None, timeout=30, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(hold, lambda: holder.execute("ROLLBACK"))
    release.start()
    try:
        outcome = run_referee(db, *args, timeout=hold + 60)
    finally:
        release.join()
        holder.close()
    return BusyResult(hold, round(outcome.seconds, 2), outcome, snapshot(db).games != before.games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--terminals", type=int, default=3, help="terminals per game")
    parser.add_argument("--commands", type=int, default=60, help="commands per terminal")
    parser.add_argument("--parallel", type=int, default=6, help="most processes running at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uw-concurrency-") as tmp:
        db = Path(tmp) / "games.sqlite3"
        report = run_concurrency(db, args.games, args.terminals, args.commands, args.parallel, args.seed)
        figures: dict[str, Any] = {"tables": asdict(report)}
        print(json.dumps(figures["tables"], indent=2), flush=True)
        waits: dict[str, dict[str, Any]] = {}
        fresh = run_referee(db, "new", "Wait", "Here", "--first", "Wait")  # a game waiting for a discard
        game = str(max(snapshot(db).games))
        for hold in (3.0, 15.0):
            busy = hold_lock_while(db, hold, "--game", game, "discard")
            waits[f"lock_held_{hold:g}s"] = {"exit": busy.outcome.code, "waited_s": busy.waited_s,
                                             "message": busy.outcome.stderr.strip(), "recorded": busy.recorded}
        ok_short = fresh.code == 0 and waits["lock_held_3s"]["exit"] == 0 and waits["lock_held_3s"]["recorded"]
        long = waits["lock_held_15s"]
        ok_long = (long["exit"] == 1 and not long["recorded"] and "is busy" in long["message"]
                   and "try again" in long["message"] and len(long["message"].splitlines()) == 1
                   and 10 <= long["waited_s"] < 15)
        if not ok_short or not ok_long:
            report.failures.append(f"bounded wait: {waits}")
        figures["bounded_wait"] = waits
        print(json.dumps(waits, indent=2))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if report.failures:
        print("concurrency: FAILED:\n  " + "\n  ".join(report.failures[:20]), file=sys.stderr)
    sys.exit(0 if report.passed else 1)


if __name__ == "__main__":
    main()
