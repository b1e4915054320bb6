"""Load test of a hosted board (issue 25): N tables of 4 simulated phones playing through HTTP for 60 s against
two board replicas on one PostgreSQL, and the same against one replica on SQLite (the baseline), in one run.

Run it with the Python of a normal (non-editable) install, from outside the repository, so the boards are the
installed ones (they are started with ``sys.executable -m referee.cli board``):

    python3 -m venv /tmp/uw-bench25 && /tmp/uw-bench25/bin/pip install -q .
    cd /tmp && /tmp/uw-bench25/bin/python /path/to/benchmarks/bench_hosted.py --tables 100 300 1000

What one run of N tables does, per backend:

* The N games (4 players each, card accounting off: the phones only discard) are created through the store in
  this process, then the boards start (``uw-referee board --players``; PostgreSQL: two replicas on one schema of
  ``--postgres``, made and dropped by the run; SQLite: one replica on a new file).
* Each phone has its own loopback address (127.1.x.y: the board limits writes per address as it would for real
  phones), takes its seat (``POST /api/games/N/seats``) on its table's replica, and holds the game's event stream
  open (as the phone page does), half of them on the other replica (PostgreSQL): a commit on one replica must
  reach the other one's viewers through the database's notification.
* For ``--seconds``: at each table, after a pause drawn uniformly from 0 to 2 x ``--think`` seconds, the phone
  whose turn it is posts a discard with the event number it saw (``POST /api/games/N/actions``), and so on.

Figures: actions per second (answered 200), p50 and p99 action latency (post to answer), p50 and p99 commit to
viewer (post to the moment each of the 4 streams delivered the board that names the next player: an upper bound
of commit to viewer, since the commit happens between the post and its answer), updates never delivered, the
boards' CPU per action, and the check: every game's events, read back and replayed, against what the phones
were told (lost: an acknowledged action not in the events; doubled: an event more than the acknowledged
actions; mis-credited: an event of another player than the phone that posted it; and the kept state of each game
equal to a replay of its events). Not a timed test: run it by hand, copy the figures into BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # board_support only: the board itself is the installed package

from board_support import Board  # noqa: E402

from referee.board.seats import join_code  # noqa: E402
from referee.engine import Discarded, RollOff, Setup  # noqa: E402
from referee.store import Store  # noqa: E402

PLAYERS = ("Alba", "Bruno", "Celia", "Dario")
SECRET = "bench-host-secret-0123456789abcdefghijklmnop"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            continue
    return total / 1e9


def worker_pids(board: Board) -> list[int]:
    return board.pids()


def address(i: int) -> str:
    return f"127.1.{i // 250}.{i % 250 + 1}"


@dataclass
class Table:
    game: int
    replica: int
    tokens: dict[str, str] = field(default_factory=dict)
    acked: list[tuple[str, float, float, int]] = field(default_factory=list)  # seat, sent, answered, events after
    refused: int = 0
    arrivals: list[list[tuple[float, str]]] = field(default_factory=list)  # per stream: (time, announce)


async def request(host: str, port: int, source: str, method: str, path: str, body: dict[str, Any] | None = None,
                  token: str | None = None) -> tuple[int, dict[str, Any]]:
    """One HTTP/1.0 request from ``source``; status and JSON body."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    data = b"" if body is None else json.dumps(body).encode()
    head = [f"{method} {path} HTTP/1.0", f"Host: {host}", f"Content-Length: {len(data)}",
            "Content-Type: application/json"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    _headers, _, payload = rest.partition(b"\r\n\r\n")
    status = int(status_line.split()[1])
    try:
        return status, json.loads(payload or b"{}")
    except ValueError:
        return status, {}


async def stream(host: str, port: int, source: str, path: str, into: list[tuple[float, str]],
                 stop: asyncio.Event) -> None:
    """Hold an event stream open; note each board it delivers (arrival time, what it announces)."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        except OSError:
            await asyncio.sleep(0.5)
            continue
        writer.write(f"GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        buffer = b""
        try:
            while not stop.is_set():
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                now = time.monotonic()
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            into.append((now, str(json.loads(line[6:]).get("announce", ""))))
        except (OSError, ValueError):
            pass
        finally:
            writer.close()


async def play(table: Table, ports: list[int], seconds: float, think: float, first: int, count: int) -> None:
    """The table's phones take turns discarding until the time is up."""
    deadline = time.monotonic() + seconds
    seats = {name: address(first + i) for i, name in enumerate(PLAYERS)}
    turn, events = 0, count
    port = ports[table.replica]
    while True:
        await asyncio.sleep(min(random.uniform(0, 2 * think), max(0.0, deadline - time.monotonic())))
        if time.monotonic() >= deadline:
            return
        name = PLAYERS[turn % 4]
        sent = time.monotonic()
        try:
            status, body = await request("127.0.0.1", port, seats[name], "POST", f"/api/games/{table.game}/actions",
                                         {"action": "discard", "seen": events}, table.tokens[name])
        except OSError:
            table.refused += 1
            continue
        answered = time.monotonic()
        if status == 200:
            events = int(body["events"])
            table.acked.append((name, sent, answered, events))
            turn += 1
        else:
            table.refused += 1
            if status == 409:  # never expected: one phone acts at a time
                events = int((await request("127.0.0.1", port, seats[name], "GET", f"/api/games/{table.game}/play",
                                            None, table.tokens[name]))[1].get("events", events))


def viewer_latencies(table: Table) -> tuple[list[float], int]:
    """For each acknowledged action and each stream: post to the first board that shows it, that is, names the
    player after it, or after a later action already posted (under load a stream may skip to a later board:
    it always sends the latest). Missed: no such board at all."""
    found: list[float] = []
    missed = 0
    sent_at = [sent for _name, sent, _answered, _events in table.acked]
    for k, sent in enumerate(sent_at):
        for arrivals in table.arrivals:
            hit = None
            for t, announce in arrivals:
                if t < sent:
                    continue
                if any(PLAYERS[(j + 1) % 4] in announce for j in range(k, min(len(sent_at), k + 3))
                       if sent_at[j] <= t):
                    hit = t
                    break
            if hit is None:
                missed += 1
            else:
                found.append(hit - sent)
    return found, missed


def check(store: Store, tables: list[Table]) -> dict[str, int]:
    """Every game's events against what its phones were told, and its kept state against a replay."""
    lost = doubled = miscredited = mismatched = 0
    for table in tables:
        _gid, replayed, history = store.history(table.game)
        discards = [event.player for _at, event in history if isinstance(event, Discarded)]
        told = [name for name, *_ in table.acked]
        lost += max(0, len(told) - len(discards))
        doubled += max(0, len(discards) - len(told))
        miscredited += sum(1 for a, b in zip(told, discards) if a != b)
        kept = store.load(table.game)[1]
        if json.loads(json.dumps(kept.state.to_snapshot())) != json.loads(json.dumps(replayed.state.to_snapshot())):
            mismatched += 1
    return {"lost": lost, "doubled": doubled, "miscredited": miscredited, "kept state unlike replay": mismatched}


def open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def drive(tables: list[Table], ports: list[int], seconds: float, think: float) -> None:
    stop = asyncio.Event()
    readers = []
    for t, table in enumerate(tables):
        table.arrivals = [[] for _ in PLAYERS]
        for i in range(4):
            port = ports[(table.replica + i) % len(ports)]  # half the streams on the other replica
            readers.append(asyncio.create_task(stream("127.0.0.1", port, address(4 * t + i),
                                                      f"/games/{table.game}/events", table.arrivals[i], stop)))
    await asyncio.sleep(2 + len(tables) / 500)  # the streams connect and get their first board
    players = [asyncio.create_task(play(table, ports, seconds, think, 4 * t, 2))
               for t, table in enumerate(tables)]
    await asyncio.gather(*players)
    await asyncio.sleep(3)  # the last updates reach the streams
    stop.set()
    await asyncio.gather(*readers, return_exceptions=True)


async def seat_all(tables: list[Table], ports: list[int]) -> None:
    sem = asyncio.Semaphore(64)

    async def one(t: int, table: Table, i: int, name: str) -> None:
        async with sem:
            status, body = await request("127.0.0.1", ports[table.replica], address(4 * t + i), "POST",
                                         f"/api/games/{table.game}/seats", {"code": join_code(SECRET, table.game), "seat": name})
            if status not in (200, 201):
                raise SystemExit(f"seat {name} at table {table.game}: {status} {body}")
            table.tokens[name] = str(body["token"])

    await asyncio.gather(*(one(t, table, i, name) for t, table in enumerate(tables)
                           for i, name in enumerate(PLAYERS)))


def run(kind: str, db: str, count: int, seconds: float, think: float) -> dict[str, Any]:
    from referee.store_pg import close_pools, open_store

    store = open_store(db)
    games = [store.create(Setup(players=PLAYERS, card_accounting=False), lambda g: g.apply(RollOff(first=PLAYERS[0]))
                          )[0] for _ in range(count)]
    close_pools()
    replicas = 2 if kind == "postgresql" else 1
    env = {"UW_BOARD_HOST_SECRET": SECRET, "UW_BOARD_FEEDS": str(count + 16),
           "UW_BOARD_STREAMS": str(4 * count + 100)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    boards: list[Board] = []
    try:
        for _ in range(replicas):
            boards.append(Board(db, "--players", "--max-per-address", "0", "--max-viewers", str(4 * count + 100)))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    ports = [b.port for b in boards]
    tables = [Table(game, i % replicas) for i, game in enumerate(games)]
    try:
        asyncio.run(seat_all(tables, ports))
        pids = [pid for b in boards for pid in worker_pids(b)]
        cpu_before, began = cpu_seconds(pids), time.monotonic()
        asyncio.run(drive(tables, ports, seconds, think))
        cpu = cpu_seconds(pids) - cpu_before
        elapsed = time.monotonic() - began
    finally:
        for b in boards:
            b.stop()
    acked = [a for t in tables for a in t.acked]
    latencies = [answered - sent for t in tables for _n, sent, answered, _e in t.acked]
    viewers: list[float] = []
    missed = 0
    for t in tables:
        found, lost = viewer_latencies(t)
        viewers += found
        missed += lost
    verdict = check(open_store(db), tables)
    close_pools()
    return {"kind": kind, "tables": count, "replicas": replicas, "actions": len(acked),
            "refused": sum(t.refused for t in tables), "per_s": len(acked) / seconds,
            "p50": percentile(latencies, .5) * 1000, "p99": percentile(latencies, .99) * 1000,
            "v50": percentile(viewers, .5) * 1000, "v99": percentile(viewers, .99) * 1000, "missed": missed,
            "cpu_ms": cpu * 1000 / max(1, len(acked)), "elapsed": elapsed, **verdict}


def show(result: dict[str, Any]) -> None:
    print(f"{result['kind']:<10} {result['tables']:>5} tables x 4 phones, {result['replicas']} replica(s): "
          f"{result['per_s']:7.1f} actions/s ({result['actions']} answered 200, {result['refused']} not); "
          f"action p50 {result['p50']:6.1f} ms p99 {result['p99']:7.1f} ms; "
          f"to viewer p50 {result['v50']:6.1f} ms p99 {result['v99']:7.1f} ms, {result['missed']} updates missed; "
          f"boards' CPU {result['cpu_ms']:.2f} ms/action; lost {result['lost']}, doubled {result['doubled']}, "
          f"mis-credited {result['miscredited']}, kept state unlike replay {result['kept state unlike replay']}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[100])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=5.0, help="mean pause before each action at a table (s)")
    parser.add_argument("--postgres", default=os.environ.get("UW_TEST_POSTGRES",
                                                             "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--only", choices=("postgresql", "sqlite"))
    args = parser.parse_args()
    open_files()
    import psycopg

    from referee.store_pg import with_schema

    print(f"{os.cpu_count()} CPUs; think {args.think:g} s; {args.seconds:g} s per run; "
          f"board from {Path(sys.modules['referee'].__file__ or '').parent}", flush=True)
    for count in args.tables:
        for kind in ("postgresql", "sqlite"):
            if args.only and kind != args.only:
                continue
            if kind == "postgresql":
                schema = f"uw_bench_{uuid.uuid4().hex[:10]}"
                with psycopg.connect(args.postgres, autocommit=True) as conn:
                    conn.execute(f"CREATE SCHEMA {schema}".encode())
                try:
                    show(run(kind, with_schema(args.postgres, schema), count, args.seconds, args.think))
                finally:
                    with psycopg.connect(args.postgres, autocommit=True) as conn:
                        conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())
            else:
                folder = tempfile.mkdtemp(prefix="uw-bench25-")
                try:
                    show(run(kind, str(Path(folder) / "games.sqlite3"), count, args.seconds, args.think))
                finally:
                    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
