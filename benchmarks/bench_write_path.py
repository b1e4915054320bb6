"""The write path of a phone's action: SQL transactions and rows read per action, at 10 and at thousands of events,
this tree against a baseline (``--baseline REF``, default ``main``) in the same run.

    .venv/bin/python benchmarks/bench_write_path.py [--baseline main] [--sizes 10,2000,5000] [--actions 20]

Both are installed as a user installs them (``pip install '.[postgres]'`` into throw-away virtual environments; the
baseline from ``git archive REF``). Each install then plays phones' actions through the board's players' API (Flask's test
client, in process) on a game built to each size, on PostgreSQL and on SQLite:

- one phone action is the phone's read of the game (``GET /api/games/N/play``) then its action (``POST .../actions``,
  a discard, with what the read returned as ``seen``);
- PostgreSQL: a database of its own (``uw_bench_write_path``) on ``--pg`` (default ``127.0.0.1:5432``); transactions
  from the server's own counters (``pg_stat_database``: xact_commit + xact_rollback) and rows read from
  ``pg_stat_user_tables`` (seq_tup_read + idx_tup_fetch) of the run's schema. The counters are flushed by closing the
  board's pool (a backend reports its counts when it exits), and each figure is a slope: (the counts over N + 1
  actions - the counts over 1 action) / N, which cancels the pool's opening and the observer's own queries;
- SQLite: transactions are the BEGINs its connections run (a trace callback on every connection), and the work is
  SQLite's virtual machine steps (a progress handler; SQLite does not count rows read), as the same slope;
- CPU: the process time per action (user + system), the least of 5 rounds of N actions (load from other processes
  only ever adds to it).

Figures are per action; read them beside the baseline's and the 10-event game's of the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Runs inside an install: builds each game, plays the actions, prints one JSON line per (backend, size).
MEASURE = r'''
import json, sqlite3, sys, tempfile, time
from pathlib import Path

counts = {"begin": 0, "steps": 0}
_connect = sqlite3.connect

def counting(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    def traced(sql):
        if sql.lstrip().upper().startswith("BEGIN"):
            counts["begin"] += 1
    conn.set_trace_callback(traced)
    def step():
        counts["steps"] += 1
        return 0
    conn.set_progress_handler(step, 1)
    return conn

sqlite3.connect = counting

import psycopg
from dictionaries.dictionary import open_dictionary
from referee.board.app import create_app
from referee.board.seats import join_code
from referee.engine import Discarded, RollOff, SanityRolled, Setup, WordPlayed
from referee.store_pg import close_pools, open_store, with_schema
import referee.board.seats as seats
seats.ADDRESS_WRITES = seats.SEAT_ACTIONS = 10**9  # one address plays every phone here: no rate limit

pg, sizes, actions = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
HOST = "bench-host-secret-" + "x" * 30
d = open_dictionary()
words = [w.word for w in d.rack("aeilnrstoupcmdhgbykf") if 0 < w.score < 20]

def build(size):
    def make(game):
        game.apply(RollOff(first="Ann"))
        pool = iter(words * (size // len(words) + 2))
        while game.count < size:
            name = game.state.current.name
            if game.count % 7 == 0:
                game.apply(Discarded(name))
                continue
            word = next(pool)
            game.apply(WordPlayed(name, word, game.setup.deck.score(word), True))
            game.apply(SanityRolled(name, 20))
    return make

def measure(db, counters, size):
    store = open_store(db)
    gid, _game, _ = store.create(Setup(("Ann", "Bob", "Cy"), target=10**9, card_accounting=False), build(size))
    app = create_app({"BOARD_DB": db, "BOARD_GAME": None, "TESTING": True, "BOARD_PLAYERS": True,
                      "BOARD_HOST_SECRET": HOST})
    client = app.test_client()
    tokens = {n: client.post(f"/api/games/{gid}/seats", json={"code": join_code(HOST, gid), "seat": n}
                             ).get_json()["token"] for n in ("Ann", "Bob", "Cy")}
    def bearer(name):
        return {"Authorization": "Bearer " + tokens[name]}
    state = {"turn": client.get(f"/api/games/{gid}/play", headers=bearer("Ann")).get_json()["waiting"]["player"]}
    def read():
        return client.get(f"/api/games/{gid}/play", headers=bearer(state["turn"])).get_json()
    def act():
        view = read()
        seen = view.get("version") or view["events"]
        answer = client.post(f"/api/games/{gid}/actions", json={"action": "discard", "seen": seen},
                             headers=bearer(state["turn"]))
        assert answer.status_code == 200, answer.get_json()
        state["turn"] = answer.get_json()["waiting"]["player"]
    def cycle(work, n):
        before = counters()
        cpu = time.process_time()
        for _ in range(n):
            work()
        spent = time.process_time() - cpu
        after = counters()
        return [a - b for a, b in zip(after, before)], spent
    slopes = {}
    for name, work in (("read", read), ("action", act)):
        one, _ = cycle(work, 1)
        many, _ = cycle(work, actions + 1)
        cpu = []
        for _round in range(5):  # the least of 5 rounds: other processes' load only ever adds
            began = time.process_time()
            for _ in range(actions):
                work()
            cpu.append((time.process_time() - began) * 1000 / actions)
        slopes[name] = [(m - o) / actions for m, o in zip(many, one)] + [min(cpu)]
    return slopes

def pg_counters(base, schema):
    def read():
        close_pools()  # each backend reports its counts when it exits
        time.sleep(0.2)
        with psycopg.connect(base, autocommit=True) as c:
            x = c.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                          "WHERE datname = current_database()").fetchone()[0]
            r = c.execute("SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) "
                          "FROM pg_stat_user_tables WHERE schemaname = %s", (schema,)).fetchone()[0]
        return [int(x), int(r)]
    return read

def sqlite_counters():
    return [counts["begin"], counts["steps"]]

admin = f"postgresql://{pg}/postgres"
base = f"postgresql://{pg}/uw_bench_write_path"
with psycopg.connect(admin, autocommit=True) as c:
    if c.execute("SELECT 1 FROM pg_database WHERE datname = 'uw_bench_write_path'").fetchone() is None:
        c.execute("CREATE DATABASE uw_bench_write_path")
for size in sizes:
    schema = f"bench_{int(time.time() * 1000)}_{size}"
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    try:
        found = measure(with_schema(base, schema), pg_counters(base, schema), size)
    finally:
        close_pools()
        with psycopg.connect(base, autocommit=True) as c:
            c.execute(f"DROP SCHEMA {schema} CASCADE")
    print(json.dumps({"backend": "postgresql", "size": size, **found}), flush=True)
    work = Path(tempfile.mkdtemp())
    found = measure(str(work / "games.sqlite3"), sqlite_counters, size)
    print(json.dumps({"backend": "sqlite", "size": size, **found}), flush=True)
'''


def install(venv: Path, source: Path) -> Path:
    """A normal ``pip install`` of ``source`` with its PostgreSQL extra (where it has one) into ``venv``, bytecode
    compiled; returns its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    subprocess.run([str(bin_dir / "pip"), "install", "-q", f"{source}[postgres]"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site = next((venv / "lib").glob("python3*/site-packages"))
    subprocess.run([str(bin_dir / "python"), "-m", "compileall", "-q", str(site)], check=True,
                   stdout=subprocess.DEVNULL)
    return bin_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="main", metavar="REF", help="the code to compare with (git ref)")
    parser.add_argument("--sizes", default="10,2000,5000", help="the games' event counts (default 10,2000,5000)")
    parser.add_argument("--actions", type=int, default=20, help="actions per figure (default 20)")
    parser.add_argument("--pg", default="root@127.0.0.1:5432", help="PostgreSQL's user@host:port (trust auth)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="uw-bench-write-"))
    installs = {"this tree": ROOT}
    if args.baseline:
        source = work / "baseline"
        source.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        installs[args.baseline] = source
    results: dict[str, list[dict[str, object]]] = {}
    for name, source in installs.items():
        print(f"installing {name} (pip install .) ...", flush=True)
        python = install(work / f"venv-{len(results)}", source) / "python"
        done = subprocess.run([str(python), "-c", MEASURE, args.pg, args.sizes, str(args.actions)],
                              capture_output=True, text=True, cwd=work, env={**os.environ, "UW_LANG": "en"})
        if done.returncode != 0:
            raise SystemExit(f"{name}: the measurement failed:\n{done.stderr}")
        results[name] = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    print()
    print("per phone action = the phone's read + its action; a slope over", args.actions, "actions")
    print("transactions: PostgreSQL's counters, SQLite's BEGINs; work: PostgreSQL's rows read, SQLite's VM steps")
    print(f"{'code':<12} {'backend':<11} {'events':>6} | {'xacts: read':>11} {'action':>6} {'both':>5} | "
          f"{'work: read':>10} {'action':>9} {'both':>9} | {'cpu ms, both':>12}")
    for name, rows in results.items():
        for row in rows:
            read, act = row["read"], row["action"]
            assert isinstance(read, list) and isinstance(act, list)
            print(f"{name:<12} {row['backend']:<11} {row['size']:>6} | {read[0]:>11.2f} {act[0] - read[0]:>6.2f} "
                  f"{act[0]:>5.2f} | {read[1]:>10.1f} {act[1] - read[1]:>9.1f} {act[1]:>9.1f} | {act[2]:>12.2f}")
    print()
    for name, rows in results.items():
        for backend in ("postgresql", "sqlite"):
            mine = {r["size"]: r["action"] for r in rows if r["backend"] == backend}
            small = min(mine)
            for size, act in sorted(mine.items()):
                if size != small:
                    base = mine[small]
                    assert isinstance(act, list) and isinstance(base, list)
                    print(f"{name:<12} {backend:<11} read+action at {size} events / at {small}: rows or steps "
                          f"{act[1] / base[1]:.2f}x, cpu {act[2] / base[2]:.2f}x")


if __name__ == "__main__":
    main()
