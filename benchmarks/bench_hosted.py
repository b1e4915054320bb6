"""Load test of a hosted board (issue 25): N tables of 4 simulated phones playing through HTTP for 60 s against
two board replicas on one PostgreSQL, and the same against one replica on SQLite (the baseline), in one run;
optionally with a fault while they play (``--fault kill|pg-restart|netcut``).

Run it with the Python of a normal (non-editable) install, from outside the repository, so the boards are the
installed ones (they are started with ``sys.executable -m referee.cli board``):

    python3 -m venv /tmp/uw-bench25 && /tmp/uw-bench25/bin/pip install -q .
    cd /tmp && /tmp/uw-bench25/bin/python /path/to/benchmarks/bench_hosted.py --tables 1 10 30 100 300 1000

What one run of N tables does, per backend:

* The database: a throw-away PostgreSQL cluster this run starts from the installed binaries on port 8799 (never
  the machine's shared server; ``--postgres URL`` uses a given server instead), one new schema per run; SQLite:
  a new file. The N games (4 players each, card accounting off: the phones only discard) are created through the
  store in this process; then the boards start (``uw-referee board --players`` on ports 8701 and 8702: two
  replicas on PostgreSQL, one on SQLite).
* Each phone has its own loopback address (127.1.x.y: the board limits writes per address), takes its seat
  (``POST /api/games/N/seats``) on its table's replica, and holds the game's event stream open (as the phone
  page does), half of them on the other replica (PostgreSQL): a commit on one replica must reach the other one's
  viewers through the database's notification.
* For ``--seconds``: at each table, after a pause drawn uniformly from 0 to 2 x ``--think`` seconds, the phone
  whose turn it is posts a discard with the event number it saw, and tries it again until it is done
  (``hosted_load.py`` says how a phone retries, moves to the other replica, joins its seat again).
* ``--fault`` (PostgreSQL only), a third of the way in: ``kill`` sends kill -9 to the first replica (its phones
  and streams move to the other one); ``pg-restart`` stops the cluster (immediate mode) and starts it again
  after ``--fault-seconds``; ``netcut`` runs the second replica inside a network namespace and takes its link to
  the database down for ``--fault-seconds`` (its phones reach it through the namespace's other link and name
  themselves in X-Forwarded-For, ``UW_BOARD_PROXIES=127.0.0.1``).

Figures: actions per second (done), p50 and p99 action latency (first post to the answer), p50 and p99 commit to
viewer (post to the moment each of the 4 streams delivered the board that names the next player: an upper bound
of commit to viewer), updates never delivered, the boards' CPU per action over the play (CPU while the streams
connect is said apart), and the check: every game's events, read back and replayed, against what the phones were
told (lost, doubled, mis-credited; the kept state of each game equal to a replay of its events). With a fault:
what the attempts met during it (503s, no answer, other errors), the recovery (the fault's end to the first
action done, and to the moment every table refused meanwhile had played again), and what the phones of a killed
replica did (their token taken by the other replica, or their seat joined again). Every run has a hard time limit
(``--limit``): past it the boards are killed and the run says so. Not a timed test: copy the figures into
BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hosted_faults import BOARD_PORTS, CLUSTER_PORT, Cluster, Namespace, Server, can_cut, cpu_seconds
from hosted_load import PLAYERS, Clients, Replica, Table, check, percentile, store_history, viewer_latencies

SECRET = "bench-host-secret-0123456789abcdefghijklmnop"
FAULTS = ("kill", "pg-restart", "netcut")
#: The clusters this process started, removed by the hard time limit too (it ends the process without ``finally``).
CLUSTERS: list[Cluster] = []


class Run:
    """One run's database, boards and fault (see the module)."""

    def __init__(self, kind: str, db: str, count: int, args: argparse.Namespace, cluster: Cluster | None) -> None:
        self.kind, self.db, self.count, self.args, self.cluster = kind, db, count, args, cluster
        self.fault = args.fault if kind == "postgresql" else None
        self.namespace: Namespace | None = None
        self.servers: list[Server] = []
        self.folder = Path(tempfile.mkdtemp(prefix="uw-bench25-run-"))
        self.fault_window: tuple[float, float] | None = None
        self.timed_out = False

    def start(self) -> list[Replica]:
        env = {"UW_BOARD_HOST_SECRET": SECRET, "UW_BOARD_FEEDS": str(self.count + 16),
               "UW_BOARD_STREAMS": str(4 * self.count + 100), "UW_PG_POOL_TIMEOUT": "3"}
        viewers = 4 * self.count + 100
        replicas = self.args.replicas if self.kind == "postgresql" else 1
        flags = ("--hosted",) if self.args.hosted else ("--players",)
        if self.fault == "netcut":
            env["UW_BOARD_PROXIES"] = "127.0.0.1"
            self.namespace = Namespace()
        found: list[Replica] = []
        for i in range(replicas):
            log = self.folder / f"board{i}.log"
            if self.namespace is not None and i == 1:
                assert self.cluster is not None
                db = self.db.replace("@127.0.0.1:", f"@{self.namespace.db_host}:")
                self.servers.append(Server(db, self.args.ports[i], log, viewers, env, self.namespace.client_ns,
                                           self.namespace.name, flags, self.args.lift))
                found.append(Replica(self.namespace.client_ns, self.args.ports[i], self.namespace.client_host))
            else:
                self.servers.append(Server(self.db, self.args.ports[i], log, viewers, env, flags=flags,
                                           lift=self.args.lift))
                found.append(Replica("127.0.0.1", self.args.ports[i]))
        return found

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        if self.namespace is not None:
            self.namespace.remove()
            self.namespace = None

    def board_errors(self) -> tuple[int, list[str]]:
        """Tracebacks the boards wrote (a fault must never make one), and their other lines (warnings)."""
        text = [log.read_text(errors="replace") for log in sorted(self.folder.glob("board*.log"))]
        lines = [f"board{i}: {line}" for i, t in enumerate(text) for line in t.splitlines()
                 if line.strip() and not line.startswith((" ", "Traceback"))]
        return sum(t.count("Traceback") for t in text), lines

    async def inject(self, clients: Clients, tables: list[Table], at: float) -> None:
        """The fault, ``at`` seconds after the play began (see the module)."""
        await asyncio.sleep(at)
        began = time.monotonic()
        if self.fault == "kill":
            await asyncio.to_thread(self.servers[0].kill)
            self.fault_window = (began, time.monotonic())
            await clients.note_failover(tables, 0)
        elif self.fault == "pg-restart":
            assert self.cluster is not None
            await asyncio.to_thread(self.cluster.stop, "immediate")
            await asyncio.sleep(self.args.fault_seconds)
            await asyncio.to_thread(self.cluster.start)
            self.fault_window = (began, time.monotonic())
        elif self.fault == "netcut":
            assert self.namespace is not None
            await asyncio.to_thread(self.namespace.cut, True)
            await asyncio.sleep(self.args.fault_seconds)
            await asyncio.to_thread(self.namespace.cut, False)
            self.fault_window = (began, time.monotonic())


async def seat_all(clients: Clients, tables: list[Table]) -> None:
    sem = asyncio.Semaphore(64)

    async def one(table: Table, name: str) -> None:
        async with sem:
            status = await clients.join(table, table.replica, name)
            if status not in (200, 201):
                raise SystemExit(f"seat {name} at table {table.game}: {status}")

    await asyncio.gather(*(one(table, name) for table in tables for name in PLAYERS))


async def drive(run: Run, clients: Clients, tables: list[Table], marks: dict[str, float]) -> None:
    readers = []
    for table in tables:
        table.arrivals = [[] for _ in PLAYERS]
        readers += [asyncio.create_task(clients.stream(table, i, table.arrivals[i])) for i in range(4)]
    wanted, deadline = len(readers), time.monotonic() + 30 + len(tables) / 20
    while sum(1 for t in tables for a in t.arrivals if a) < wanted and time.monotonic() < deadline:
        await asyncio.sleep(0.2)  # every stream connected and got its first board
    marks["streams"] = sum(1 for t in tables for a in t.arrivals if a)
    marks["connects"] = sum(t.connects for t in tables)
    marks["connected"] = time.monotonic()
    marks["cpu_connected"] = cpu_seconds([p for s in run.servers for p in s.pids()])
    if run.kind == "postgresql":
        marks["xacts_connected"] = await asyncio.to_thread(transactions, run.db)
    print(f"  ({marks['streams']:.0f} streams up; the play begins)", file=sys.stderr, flush=True)
    seconds = run.args.seconds
    players = [asyncio.create_task(clients.play(table, seconds, run.args.think, 2)) for table in tables]
    fault = asyncio.create_task(run.inject(clients, tables, seconds / 3)) if run.fault else None
    await asyncio.gather(*players)
    marks["played"] = time.monotonic()
    marks["cpu_played"] = cpu_seconds([p for s in run.servers for p in s.pids()])
    marks["reconnects"] = sum(t.connects for t in tables) - marks["connects"]
    if fault is not None:
        await fault
    await asyncio.sleep(3)  # the last updates reach the streams (and the backends report their counters)
    if run.kind == "postgresql":
        marks["xacts_played"] = await asyncio.to_thread(transactions, run.db)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)


def recovery(clients: Clients, tables: list[Table], window: tuple[float, float]) -> dict[str, Any]:
    """What the attempts met from the fault's start until every table refused meanwhile played again: the
    tables refused at least once from the fault's start, and when each next had an action done."""
    began, ended = window
    back = []
    for table in tables:
        refused = [at for at, status in table.attempts if status != 200 and at >= began]
        if refused:
            done = [answered for _n, _s, answered, _e in table.acked if answered > refused[0]]
            back.append(min(done) if done else float("inf"))
    last = max(back, default=ended)
    met = Counter(status for at, status in clients.log if began <= at <= max(last, ended))
    return {"first_ok": min(back, default=ended) - ended, "all_ok": last - ended, "met": dict(sorted(met.items())),
            "refused_tables": len(back), "fault_s": ended - began}


def run_one(kind: str, db: str, count: int, args: argparse.Namespace, cluster: Cluster | None) -> dict[str, Any]:
    from referee.board.seats import join_code
    from referee.engine import RollOff, Setup
    from referee.store_pg import close_pools, open_store
    from referee.store_seats import SeatBook

    store = open_store(db)
    games = [store.create(Setup(players=PLAYERS, card_accounting=False), lambda g: g.apply(RollOff(first=PLAYERS[0]))
                          )[0] for _ in range(count)]
    salts = {game: SeatBook(store).salt(game) or "" for game in games}  # each table's code is made from its salt
    close_pools()
    run = Run(kind, db, count, args, cluster)
    limit = args.limit or (args.seconds * 3 + 120 + count / 5)
    watchdog = threading.Timer(limit, _give_up, (run, limit))
    watchdog.daemon = True
    marks: dict[str, float] = {}
    try:
        clients = Clients(run.start())
        tables = [Table(game, i % len(run.servers), join_code(SECRET, game, salts[game]), 4 * i) for i, game in enumerate(games)]
        watchdog.start()
        began = time.monotonic()
        asyncio.run(seat_all(clients, tables))
        cpu0 = cpu_seconds([p for s in run.servers for p in s.pids()])
        asyncio.run(asyncio.wait_for(drive(run, clients, tables, marks), limit - (time.monotonic() - began)))
        errors, said = run.board_errors()
    finally:
        watchdog.cancel()
        run.stop()
    acked = [a for t in tables for a in t.acked]
    latencies = [answered - sent for t in tables for _n, sent, answered, _e in t.acked]
    viewers: list[float] = []
    missed = 0
    for t in tables:
        found, lost = viewer_latencies(t)
        viewers += found
        missed += lost
    verdict = check(store_history(open_store(db)), tables)
    close_pools()
    result = {"kind": kind, "tables": count, "replicas": len(run.servers), "actions": len(acked),
              "refused": sum((t.refused for t in tables), Counter()), "per_s": len(acked) / args.seconds,
              "p50": percentile(latencies, .5) * 1000, "p99": percentile(latencies, .99) * 1000,
              "v50": percentile(viewers, .5) * 1000, "v99": percentile(viewers, .99) * 1000, "missed": missed,
              "streams": int(marks.get("streams", 0)), "reconnects": int(marks.get("reconnects", 0)), "connect_cpu": marks["cpu_connected"] - cpu0,
              "cpu_ms": (marks["cpu_played"] - marks["cpu_connected"]) * 1000 / max(1, len(acked)),
              "cpu_s": marks["cpu_played"] - marks["cpu_connected"], "play_s": marks["played"] - marks["connected"],
              "tracebacks": errors, "said": said, "load": os.getloadavg(), **verdict}
    if "xacts_played" in marks:  # every transaction of the database, the listeners' round trips included
        result["xacts"] = (marks["xacts_played"] - marks["xacts_connected"]) / max(1, len(acked))
    if run.fault:
        result["fault"] = run.fault
        result["recovery"] = recovery(clients, tables, run.fault_window) if run.fault_window else None
        result["moved"] = {"kept token": sum(t.kept_token for t in tables), "joined again": sum(t.rejoined for t in tables),
                           "answers lost, found done": sum(t.confirmed for t in tables),
                           "streams resumed with Last-Event-ID": sum(t.resumed for t in tables),
                           "stream messages with id": sum(t.ids for t in tables)}
    shutil.rmtree(run.folder, ignore_errors=True)
    return result


def transactions(db: str) -> int:
    """The database's transactions so far (``pg_stat_database``: commits and rollbacks of every connection)."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                           "WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def _give_up(run: Run, limit: float) -> None:
    """The hard time limit: kill the boards (and the fault's namespace), say so, and end the harness."""
    print(f"HARD LIMIT: the run of {run.count} tables ({run.kind}) passed {limit:.0f} s; boards killed", flush=True)
    for server in run.servers:
        server.kill()
    if run.namespace is not None:
        run.namespace.remove()
    for cluster in CLUSTERS:
        cluster.remove()
    os._exit(3)


def show(r: dict[str, Any]) -> None:
    refused = ", ".join(f"{n} {k}" for k, n in sorted(r["refused"].items())) or "none"
    print(f"{r['kind']:<10} {r['tables']:>5} tables x 4 phones, {r['replicas']} replica(s): "
          f"{r['per_s']:7.1f} actions/s ({r['actions']} done; attempts refused: {refused}); "
          f"action p50 {r['p50']:6.1f} ms p99 {r['p99']:7.1f} ms; "
          f"to viewer p50 {r['v50']:6.1f} ms p99 {r['v99']:7.1f} ms, {r['missed']} updates missed; "
          + (f"{r['xacts']:.2f} transactions/action (pg_stat_database); " if "xacts" in r else "")
          + f"{r['streams']} streams up, {r['reconnects']} reconnections during the play; boards' CPU {r['cpu_ms']:.2f} ms/action ({r['cpu_s']:.1f} s in "
          f"{r['play_s']:.0f} s of play; {r['connect_cpu']:.1f} s while the streams connected); "
          f"lost {r['lost']}, doubled {r['doubled']}, mis-credited {r['miscredited']}, "
          f"kept state unlike replay {r['kept state unlike replay']}, done after its phone gave up "
          f"{r.get('done unanswered', 0)}; tracebacks {r['tracebacks']}; "
          f"load {r['load'][0]:.1f}", flush=True)
    for line in r["said"][:6]:
        print(f"  {line[:300]}", flush=True)
    if len(r["said"]) > 6:
        print(f"  ... and {len(r['said']) - 6} more lines from the boards", flush=True)
    if "fault" in r:
        rec = r["recovery"]
        if rec is None:
            print(f"  fault {r['fault']}: not made (the play ended first)", flush=True)
        else:
            met = ", ".join(f"{'no answer' if k == 0 else k} x{n}" for k, n in rec["met"].items())
            print(f"  fault {r['fault']} ({rec['fault_s']:.1f} s): attempts met {met}; "
                  f"{rec['refused_tables']} tables refused at least once; of those, the first played again "
                  f"{rec['first_ok']:.2f} s after the fault ended, the last {rec['all_ok']:.2f} s after; "
                  + "; ".join(f"{k} {v}" for k, v in r["moved"].items()), flush=True)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[100])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=5.0, help="mean pause before each action at a table (s)")
    parser.add_argument("--postgres", default=None, help="a PostgreSQL server to use (default: a throw-away cluster)")
    parser.add_argument("--only", choices=("postgresql", "sqlite"))
    parser.add_argument("--fault", choices=FAULTS)
    parser.add_argument("--fault-seconds", type=float, default=12.0)
    parser.add_argument("--limit", type=float, default=0, help="hard time limit of each run (s; default from its size)")
    parser.add_argument("--ports", type=int, nargs=2, default=list(BOARD_PORTS), help="the two replicas' ports")
    parser.add_argument("--cluster-port", type=int, default=CLUSTER_PORT)
    parser.add_argument("--replicas", type=int, default=2, choices=(1, 2), help="board replicas on PostgreSQL")
    parser.add_argument("--hosted", action="store_true", help="serve with --hosted instead of --players")
    parser.add_argument("--lift", action="store_true",
                        help="lift the boards' per-seat and per-address write limits (a load test of the board)")
    return parser.parse_args(argv)


def measure(args: argparse.Namespace, report: Any = show) -> list[dict[str, Any]]:
    """Every run ``args`` asks for (tables x backends), each handed to ``report`` as it ends; their results."""
    import psycopg

    from referee.store_pg import with_schema

    if args.fault == "netcut" and (why := can_cut()):
        raise SystemExit(f"--fault netcut: {why}")
    if args.fault in ("pg-restart", "netcut") and args.postgres:
        raise SystemExit(f"--fault {args.fault} needs the run's own cluster: leave --postgres out")
    cluster = None
    if args.postgres is None and args.only != "sqlite":
        # a network cut's replica reaches it from its namespace's link (pg_hba trusts the loopback and that link)
        cluster = Cluster(port=args.cluster_port, hosts="*" if args.fault == "netcut" else "127.0.0.1")
        CLUSTERS.append(cluster)
    base = args.postgres or (cluster.address() if cluster else "")
    print(f"{os.cpu_count()} CPUs; think {args.think:g} s; {args.seconds:g} s per run; fault {args.fault or 'none'}; "
          f"PostgreSQL {'throw-away cluster' if cluster else base}; load {os.getloadavg()[0]:.1f}; "
          f"board from {Path(sys.modules['referee'].__file__ or '').parent}", flush=True)
    results = []
    try:
        for count in args.tables:
            for kind in ("postgresql", "sqlite"):
                if (args.only and kind != args.only) or (args.fault and kind == "sqlite"):
                    continue
                if kind == "postgresql":
                    schema = f"uw_bench_{uuid.uuid4().hex[:10]}"
                    with psycopg.connect(base, autocommit=True) as conn:
                        conn.execute(f"CREATE SCHEMA {schema}".encode())
                    try:
                        results.append(run_one(kind, with_schema(base, schema), count, args, cluster))
                    finally:
                        with psycopg.connect(base, autocommit=True) as conn:
                            conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())
                else:
                    folder = tempfile.mkdtemp(prefix="uw-bench25-")
                    try:
                        results.append(run_one(kind, str(Path(folder) / "games.sqlite3"), count, args, None))
                    finally:
                        shutil.rmtree(folder, ignore_errors=True)
                report(results[-1])
    finally:
        if cluster is not None:
            cluster.remove()
            CLUSTERS.remove(cluster)
    return results


def main() -> None:
    args = options()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    measure(args)


if __name__ == "__main__":
    main()
