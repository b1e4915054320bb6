"""Issue 33's throughput figures: one hosted board on PostgreSQL against pgbench running a transaction like one
phone action's, at the same client count, in one run on one throw-away cluster.

Run it with the Python of a normal (non-editable) install, from outside the repository (the board is the installed
one; pgbench, initdb and pg_ctl come from the machine's PostgreSQL):

    python3 -m venv /tmp/uw-bench33 && /tmp/uw-bench33/bin/pip install -q .
    cd /tmp && /tmp/uw-bench33/bin/python /path/to/benchmarks/bench_writepath.py --tables 16 64

For each N of ``--tables``, on a new schema each:

* pgbench's like transaction, N clients (``-c N -j 2``, simple protocol, ``--pgbench-seconds``): each client owns
  one game of the store's own tables (made by the store) and, in one transaction, locks the game's row, reads its
  last event, inserts an event, upserts its snapshot (a real game's snapshot: state and view, about 4.5 kB),
  updates the game's row and sends a NOTIFY. Transactions per second, p50 and p99 (pgbench's per-transaction log).
* The board: ``uw-referee board --hosted`` (one replica), N tables x 4 phones (``bench_hosted.py``'s phones: each
  its own loopback address, its seat's token and the game's event stream open), each table's phones discarding in
  turn with no pause for ``--seconds``; the per-seat and per-address write limits lifted (they are for people: 20
  actions a seat per 10 s). Actions per second, p50 and p99 (post to answer), the board's CPU per action, the
  database's transactions per action (pg_stat_database, every connection's), and the check (lost, doubled,
  mis-credited).

Then the ratio of the two rates. And, with one phone alone (``--sequential``, the database otherwise idle): the
database's transactions and rows read (``pg_stat_database``: tup_returned + tup_fetched) per phone action, the
phone's read of the game before it included (``GET /play``, then the discard), at a game of 10 events and at one of
``--long`` events. With ``--profile FOLDER``, py-spy (``pip install py-spy`` beside the board) records the board's
worker during each play (collapsed stacks, FOLDER/board-N.txt). Not a timed test: copy the figures into
BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_hosted
from hosted_faults import Cluster, Server
from hosted_load import percentile

#: pgbench's transaction: one phone action's statements, as the store makes them (lock, read, write, notify).
LIKE = """\\set g :client_id + 1
BEGIN;
SELECT id FROM games WHERE id = :g FOR UPDATE;
SELECT seq, at, data, chain FROM events WHERE game_id = :g ORDER BY seq DESC LIMIT 1;
INSERT INTO events (game_id, seq, at, data, chain) SELECT :g, coalesce(max(seq), 0) + 1, now()::text, b.event, b.chain FROM events, bench_blob b WHERE game_id = :g GROUP BY b.event, b.chain;
INSERT INTO snapshots (game_id, seq, state, view, digest, recent) SELECT :g, 0, b.state, b.view, b.digest, b.recent FROM bench_blob b ON CONFLICT (game_id) DO UPDATE SET seq = snapshots.seq + 1, state = EXCLUDED.state, view = EXCLUDED.view, digest = EXCLUDED.digest, recent = EXCLUDED.recent;
UPDATE games SET updated_at = now()::text, summary = (SELECT summary FROM bench_blob) WHERE id = :g;
SELECT pg_notify('uw_bench', :g::text);
END;
"""


def prepare(db: str, count: int) -> int:
    """``count`` games in the schema of ``db`` (the store's tables) and ``bench_blob``: a real game's last event,
    snapshot and summary after a few discards. The snapshot's size in bytes."""
    from referee.engine import Discarded, RollOff, Setup
    from referee.store_pg import close_pools, open_store

    store = open_store(db)
    players = bench_hosted.PLAYERS
    first = 0
    for _ in range(count):
        first = store.create(Setup(players=players, card_accounting=False),
                             lambda g: g.apply(RollOff(first=players[0])))[0]
    for i in range(8):
        store.act(first, lambda g, i=i: g.apply(Discarded(player=players[i % 4])))  # type: ignore[misc]
    close_pools()
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE TABLE bench_blob AS SELECT e.data AS event, e.chain, s.state, s.view, s.digest, s.recent, "
                     "g.summary FROM games g JOIN snapshots s ON s.game_id = g.id JOIN events e ON e.game_id = g.id "
                     "WHERE g.id = %s ORDER BY e.seq DESC LIMIT 1", (first,))
        row = conn.execute("SELECT octet_length(state) + octet_length(view) FROM bench_blob").fetchone()
    return int(row[0]) if row else 0


def pgbench(cluster: Cluster, schema: str, clients: int, seconds: float) -> dict[str, float]:
    """pgbench's like transaction at ``clients`` clients: tps, p50 and p99 (ms)."""
    folder = Path(tempfile.mkdtemp(prefix="uw-bench33-pgbench-"))
    script = folder / "like.sql"
    script.write_text(LIKE)
    env = {**os.environ, "PGOPTIONS": f"-csearch_path={schema}"}
    command = [f"{cluster.bindir}/pgbench", "-n", "-f", str(script), "-c", str(clients), "-j", "2", "-T",
               str(int(seconds)), "-l", "--log-prefix", str(folder / "log"), "-h", "127.0.0.1", "-p", str(cluster.port),
               "-U", "postgres", "test"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=seconds + 120)
    if done.returncode != 0:
        raise SystemExit(f"pgbench failed: {done.stderr[-2000:]}")
    tps = next(float(line.split("=")[1].split()[0]) for line in done.stdout.splitlines() if line.startswith("tps"))
    latencies = []
    for log in folder.glob("log*"):
        for line in log.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3:
                latencies.append(int(parts[2]) / 1000)
    shutil.rmtree(folder, ignore_errors=True)
    return {"tps": tps, "p50": percentile(latencies, .5), "p99": percentile(latencies, .99), "count": len(latencies)}


def counters(db: str) -> tuple[int, int]:
    """The database's transactions and rows read so far (every connection's, as the server last heard them)."""
    import psycopg

    time.sleep(11)  # an idle backend reports what it has not reported yet 10 s after (PostgreSQL 15's stats)
    with psycopg.connect(db, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit + xact_rollback, tup_returned + tup_fetched FROM pg_stat_database "
                           "WHERE datname = current_database()").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _call(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            found: dict[str, Any] = json.loads(answer.read())
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{url}: {error.code} {error.read()[:300]!r}") from None
    return found


def sequential(db: str, port: int, actions: int, long: int) -> list[tuple[int, float, float]]:
    """One phone at a time (each seat's in turn): (events, transactions per action, rows read per action) at 10
    events and at ``long``; an action is the phone's read of the game, then its discard."""
    from referee.board.seats import join_code
    from referee.engine import Discarded, RollOff, Setup
    from referee.store_pg import close_pools, open_store
    from referee.store_seats import SeatBook

    store = open_store(db)
    players = bench_hosted.PLAYERS
    games = []
    for events in (10, long):
        gid = store.create(Setup(players=players, card_accounting=False), lambda g: g.apply(RollOff(first=players[0])))[0]
        for i in range(events - 2):
            store.act(gid, lambda g, i=i: g.apply(Discarded(player=players[i % 4])))  # type: ignore[misc]
        games.append((events, gid))
    codes = {gid: join_code(bench_hosted.SECRET, gid, SeatBook(store).salt(gid) or "") for _events, gid in games}
    close_pools()
    folder = Path(tempfile.mkdtemp(prefix="uw-bench33-seq-"))
    env = {"UW_BOARD_HOST_SECRET": bench_hosted.SECRET}
    server = Server(db, port, folder / "board.log", 100, env, flags=("--hosted",), lift=True)
    found = []
    try:
        base = f"http://127.0.0.1:{port}"
        for events, gid in games:
            tokens = [_call(f"{base}/api/games/{gid}/seats", {"code": codes[gid], "seat": name}
                            )["token"] for name in players]
            turn = (events - 2) % 4  # whose turn it is (each discard passes it on)
            _call(f"{base}/api/games/{gid}/play", token=tokens[turn])  # warm
            with urllib.request.urlopen(f"{base}/games/{gid}?code={codes[gid]}", timeout=30):
                pass  # the table's board shown (its TV): the board follows the game, as at a real table
            xacts, rows = counters(db)
            for _ in range(actions):
                view = _call(f"{base}/api/games/{gid}/play", token=tokens[turn])
                _call(f"{base}/api/games/{gid}/actions", {"action": "discard", "seen": view.get("version", view["events"])},
                      tokens[turn])
                turn = (turn + 1) % 4
            after = counters(db)
            found.append((events, (after[0] - xacts - 1) / actions, (after[1] - rows) / actions))
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[16, 64])
    parser.add_argument("--seconds", type=float, default=30, help="the board's play (s)")
    parser.add_argument("--pgbench-seconds", type=float, default=20)
    parser.add_argument("--no-streams", action="store_true", help="the phones hold no event stream")
    parser.add_argument("--cluster-port", type=int, default=8790)
    parser.add_argument("--port", type=int, default=8791, help="the board's port")
    parser.add_argument("--sequential", type=int, default=0, metavar="ACTIONS",
                        help="also one phone at a time: this many reads and discards at 10 and at --long events")
    parser.add_argument("--long", type=int, default=5000, help="the long game's events for --sequential")
    parser.add_argument("--profile", metavar="FOLDER", help="record the board's worker with py-spy (on PATH, or beside "
                        "this Python) during each play: FOLDER/board-N.txt, collapsed stacks")
    args = parser.parse_args()
    if args.profile:
        profiled(Path(args.profile), args.seconds)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    import psycopg

    from referee.store_pg import with_schema

    cluster = Cluster(port=args.cluster_port)
    bench_hosted.CLUSTERS.append(cluster)
    base = cluster.address()
    print(f"{os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; board from "
          f"{Path(sys.modules['referee'].__file__ or '').parent}; {args.seconds:g} s of play, pgbench "
          f"{args.pgbench_seconds:g} s", flush=True)
    board_args = bench_hosted.options(["--seconds", str(args.seconds), "--think", "0", "--replicas", "1",
                                       "--hosted", "--lift", "--only", "postgresql",
                                       "--ports", str(args.port), str(args.port + 1)])
    try:
        if args.sequential:
            schema = f"uw_bench33_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}".encode())
            for events, xacts, rows in sequential(with_schema(base, schema), args.port, args.sequential,
                                                  args.long):
                print(f"one phone at a time, a game of {events} events: {xacts:.2f} transactions and {rows:.0f} rows read "
                      "per action (its read of the game included; pg_stat_database)", flush=True)
        for count in args.tables:
            found: dict[str, Any] = {}
            for side in ("pgbench", "board"):
                schema = f"uw_bench33_{uuid.uuid4().hex[:8]}"
                with psycopg.connect(base, autocommit=True) as conn:
                    conn.execute(f"CREATE SCHEMA {schema}".encode())
                try:
                    if side == "pgbench":
                        size = prepare(with_schema(base, schema), count)
                        found["pgbench"] = pgbench(cluster, schema, count, args.pgbench_seconds)
                        found["size"] = size
                    else:
                        found["board"] = bench_hosted.run_one("postgresql", with_schema(base, schema), count,
                                                              board_args, cluster)
                finally:
                    with psycopg.connect(base, autocommit=True) as conn:
                        conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())
            report(count, found)
    finally:
        cluster.remove()


def profiled(folder: Path, seconds: float) -> None:
    """py-spy on the board's worker during each play: the harness's first reading of the board's CPU (once every
    phone is seated, just before the play) starts it, for the play's length."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    folder.mkdir(parents=True, exist_ok=True)
    measure = bench_hosted.cpu_seconds
    started: set[int] = set()

    def cpu_seconds(pids: list[int]) -> float:
        if pids and pids[0] not in started and len(pids) > 1:
            started.add(pids[0])
            out = folder / f"board-{len(started)}.txt"
            subprocess.Popen([spy, "record", "--pid", str(pids[-1]), "--duration", str(int(seconds)), "--rate", "200",
                              "--format", "raw", "--output", str(out), "--nonblocking"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return measure(pids)

    bench_hosted.cpu_seconds = cpu_seconds  # type: ignore[assignment]


def report(count: int, found: dict[str, Any]) -> None:
    pg, board = found["pgbench"], found["board"]
    print(f"{count} clients: pgbench's like transaction (snapshot {found['size']} B): {pg['tps']:.0f} tps, "
          f"p50 {pg['p50']:.1f} ms, p99 {pg['p99']:.1f} ms", flush=True)
    bench_hosted.show(board)
    print(f"  => the board: {board['per_s']:.1f} actions/s = {100 * board['per_s'] / pg['tps']:.2f}% of pgbench's "
          f"rate at {count} clients; p50 {board['p50']:.1f} ms, p99 {board['p99']:.1f} ms; "
          f"{board.get('xacts', float('nan')):.2f} transactions per action; board CPU {board['cpu_ms']:.2f} ms "
          "per action", flush=True)


if __name__ == "__main__":
    main()
