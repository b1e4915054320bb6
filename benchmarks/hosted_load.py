"""The simulated phones of ``bench_hosted.py`` and the check of what they were told (issue 25).

Each table is one coroutine: the phone whose turn it is posts a discard with the event number it saw, and keeps
trying the same action (the same ``seen``) until it is answered: a 503 or a lost connection is tried again on the
same replica, or on the next one when its replica refuses connections (a killed replica); a seat's token the
replica does not know (401) is joined again with the table's code; a 409 (the game moved) means an earlier
attempt was done after all (its answer was lost), which the phone confirms by reading the game. Each stream holds
the game's event stream open and, when it drops, connects again (to the next replica if its own is gone), sending
the last ``id:`` it saw as ``Last-Event-ID`` when the board numbers its messages.

``check`` compares every game's events, read back from the database, with what its phones were told: lost (an
action answered 200, or confirmed by a read, that is not in the events), doubled (an event more than the
actions), mis-credited (an event of another player than the phone that posted it), kept state unlike a replay.
"""
from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

PLAYERS = ("Alba", "Bruno", "Celia", "Dario")
#: How long one request may take before the phone gives up on it (its answer is then unknown).
REQUEST_TIMEOUT_S = 30.0
#: The pause before a phone tries an action again after a 503 or a lost connection.
RETRY_PAUSE_S = 0.5


def address(i: int) -> str:
    """Phone ``i``'s own loopback address (127.1.x.y): the board limits writes per address."""
    return f"127.1.{i // 250}.{i % 250 + 1}"


@dataclass
class Replica:
    """Where the phones reach one replica: its host and port, the source addresses they may use
    (None: their own loopback addresses), and whether they name themselves in X-Forwarded-For instead."""

    host: str
    port: int
    source: str | None = None


@dataclass
class Table:
    game: int
    replica: int
    code: str
    first: int  # the number of its first phone's address
    tokens: dict[str, str] = field(default_factory=dict)
    acked: list[tuple[str, float, float, int]] = field(default_factory=list)  # seat, sent, answered, events after
    refused: Counter[str] = field(default_factory=Counter)  # what the attempts met that was not a 200
    attempts: list[tuple[float, int]] = field(default_factory=list)  # (time, status; 0: no answer) of each post
    arrivals: list[list[tuple[float, str]]] = field(default_factory=list)  # per stream: (time, announce)
    rejoined: int = 0   # seats joined again after a replica refused their token
    kept_token: int = 0  # seats whose token the other replica took after a failover
    confirmed: int = 0  # actions whose answer was lost, found done by a read
    version: str = ""   # the game's version its phones last saw (what an action sends as ``seen``)
    unsure: str | None = None  # the player of the action the phone gave up on at the end (done or not: unknown)
    moved: int = 0      # times the phones moved to another replica
    ids: int = 0        # stream messages that carried an ``id:``
    resumed: int = 0    # stream reconnections that sent Last-Event-ID
    connects: int = 0   # stream connections made (4 at the start; more when a stream ended or dropped)


class Clients:
    """What the phones share: the replicas, the fault's log of answers (time, status), the counters."""

    def __init__(self, replicas: list[Replica]) -> None:
        self.replicas = replicas
        self.log: list[tuple[float, int]] = []  # every action attempt's outcome: 200, 409, 503, ..., 0 = no answer

    async def request(self, replica: int, phone: int, method: str, path: str, body: dict[str, Any] | None = None,
                      token: str | None = None) -> tuple[int, dict[str, Any]]:
        """One HTTP/1.0 request from phone ``phone``; status and JSON body (OSError, TimeoutError when none)."""
        return await asyncio.wait_for(self._request(replica, phone, method, path, body, token), REQUEST_TIMEOUT_S)

    async def _request(self, replica: int, phone: int, method: str, path: str, body: dict[str, Any] | None,
                       token: str | None) -> tuple[int, dict[str, Any]]:
        where = self.replicas[replica]
        reader, writer = await asyncio.open_connection(where.host, where.port,
                                                       local_addr=(where.source or address(phone), 0))
        try:
            data = b"" if body is None else json.dumps(body).encode()
            head = [f"{method} {path} HTTP/1.0", f"Host: {where.host}", f"Content-Length: {len(data)}",
                    "Content-Type: application/json"]
            if where.source:
                head.append(f"X-Forwarded-For: {address(phone)}")
            if token:
                head.append(f"Authorization: Bearer {token}")
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            await writer.drain()
            raw = await reader.read()
        finally:
            writer.close()
        status_line, _, rest = raw.partition(b"\r\n")
        _headers, _, payload = rest.partition(b"\r\n\r\n")
        parts = status_line.split()
        if len(parts) < 2 or not parts[1].isdigit():
            raise ConnectionResetError("no answer")
        try:
            return int(parts[1]), json.loads(payload or b"{}")
        except ValueError:
            return int(parts[1]), {}

    async def join(self, table: Table, replica: int, name: str) -> int:
        """Take ``name``'s seat on ``replica``; the status (201: its new token is kept)."""
        i = PLAYERS.index(name)
        status, body = await self.request(replica, table.first + i, "POST", f"/api/games/{table.game}/seats",
                                          {"code": table.code, "seat": name})
        if status in (200, 201):
            table.tokens[name] = str(body["token"])
        return status

    async def stream(self, table: Table, i: int, into: list[tuple[float, str]]) -> None:
        """Hold the table's event stream open (from phone ``i``'s address), noting each board it delivers;
        connect again when it drops, to the next replica when its own refuses (until cancelled)."""
        replica = (table.replica + i) % len(self.replicas)  # half the streams on the other replica
        last_id: str | None = None
        while True:
            where = self.replicas[replica]
            try:
                reader, writer = await asyncio.open_connection(where.host, where.port,
                                                               local_addr=(where.source or address(table.first + i), 0))
            except OSError:
                replica = (replica + 1) % len(self.replicas)
                await asyncio.sleep(RETRY_PAUSE_S)
                continue
            table.connects += 1
            head = f"GET /games/{table.game}/events HTTP/1.0\r\nHost: {where.host}\r\nAccept: text/event-stream\r\n"
            if last_id is not None:
                head += f"Last-Event-ID: {last_id}\r\n"
                table.resumed += 1
            if where.source:
                head += f"X-Forwarded-For: {address(table.first + i)}\r\n"
            writer.write((head + "\r\n").encode())
            buffer = b""
            try:
                while True:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    now = time.monotonic()
                    buffer += chunk
                    while b"\n\n" in buffer:
                        block, buffer = buffer.split(b"\n\n", 1)
                        for line in block.split(b"\n"):
                            if line.startswith(b"id:"):
                                last_id = line[3:].strip().decode()
                                table.ids += 1
                            elif line.startswith(b"data: "):
                                into.append((now, str(json.loads(line[6:]).get("announce", ""))))
            except (OSError, ValueError):
                pass
            finally:
                writer.close()
            await asyncio.sleep(RETRY_PAUSE_S * random.random())

    async def play(self, table: Table, seconds: float, think: float, events: int) -> None:
        """The table's phones take turns discarding until the time is up (see the module)."""
        deadline = time.monotonic() + seconds
        turn = 0
        while True:
            await asyncio.sleep(min(random.uniform(0, 2 * think), max(0.0, deadline - time.monotonic())))
            if time.monotonic() >= deadline:
                return
            name = PLAYERS[turn % 4]
            done = await self.act(table, name, events, deadline + 60)
            if done is None:
                table.unsure = name  # gave up at the deadline: its outcome unknown, never counted as told
                return
            events = done
            turn += 1

    async def act(self, table: Table, name: str, seen: int, give_up: float) -> int | None:
        """Post ``name``'s discard until it is done; the events after it (None: given up)."""
        phone = table.first + PLAYERS.index(name)
        sent = time.monotonic()
        while time.monotonic() < give_up:
            if not table.version and await self._events(table, name) is None:  # the version its phone reads
                await asyncio.sleep(RETRY_PAUSE_S)
                continue
            seen_version = table.version
            try:
                status, body = await self.request(table.replica, phone, "POST", f"/api/games/{table.game}/actions",
                                                  {"action": "discard", "seen": seen_version}, table.tokens.get(name))
            except (OSError, TimeoutError):
                self.log.append((time.monotonic(), 0))
                table.attempts.append(self.log[-1])
                table.refused["no answer"] += 1
                if not await self._reachable(table.replica, phone):
                    table.replica = (table.replica + 1) % len(self.replicas)
                    table.moved += 1
                await asyncio.sleep(RETRY_PAUSE_S)
                continue
            self.log.append((time.monotonic(), status))
            table.attempts.append(self.log[-1])
            if status == 200:
                table.acked.append((name, sent, time.monotonic(), int(body["events"])))
                table.version = str(body["version"])
                return int(body["events"])
            table.refused[str(status)] += 1
            if status == 401:  # this replica does not know the seat: join it again there
                if await self.join(table, table.replica, name) in (200, 201):
                    table.rejoined += 1
                    continue
            if status == 409 and body.get("type") == "urn:uw-referee:game-moved":
                now = await self._events(table, name)
                if now is not None and now > seen:  # an earlier attempt was done; its answer was lost
                    table.confirmed += 1
                    table.acked.append((name, sent, time.monotonic(), now))
                    return now
            await asyncio.sleep(RETRY_PAUSE_S)
        return None

    async def _events(self, table: Table, name: str) -> int | None:
        try:
            status, body = await self.request(table.replica, table.first + PLAYERS.index(name), "GET",
                                              f"/api/games/{table.game}/play", None, table.tokens.get(name))
        except (OSError, TimeoutError):
            return None
        if status != 200:
            return None
        table.version = str(body["version"])
        return int(body["events"])

    async def _reachable(self, replica: int, phone: int) -> bool:
        where = self.replicas[replica]
        try:
            _r, writer = await asyncio.wait_for(asyncio.open_connection(
                where.host, where.port, local_addr=(where.source or address(phone), 0)), 5)
        except (OSError, TimeoutError):
            return False
        writer.close()
        return True

    async def note_failover(self, tables: list[Table], dead: int) -> None:
        """After a replica died: each of its tables' phones tries its token on the next replica (kept, or not:
        then it joins again when it acts)."""
        async def one(table: Table, name: str) -> None:
            if table.replica != dead:
                return
            other = (dead + 1) % len(self.replicas)
            try:
                status, _body = await self.request(other, table.first + PLAYERS.index(name), "GET",
                                                   f"/api/games/{table.game}/play", None, table.tokens.get(name))
            except (OSError, TimeoutError):
                return
            if status == 200:
                table.kept_token += 1

        await asyncio.gather(*(one(t, n) for t in tables for n in PLAYERS))


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


def check(history_of: Any, tables: list[Table]) -> dict[str, int]:
    """Every game's events against what its phones were told, and its kept state against a replay.
    ``history_of(game)`` gives (players of its discards in order, kept state equals replay). The last action of a
    phone that gave up waiting (``unsure``) may be in the events: it is then counted apart ("done unanswered"),
    never as doubled."""
    lost = doubled = miscredited = mismatched = unanswered = 0
    for table in tables:
        discards, same = history_of(table.game)
        told = [name for name, *_ in table.acked]
        extra = len(discards) - len(told)
        if extra > 0 and table.unsure is not None and discards[len(told)] == table.unsure:
            unanswered += 1
            extra -= 1
        lost += max(0, -extra)
        doubled += max(0, extra)
        miscredited += sum(1 for a, b in zip(told, discards) if a != b)
        mismatched += 0 if same else 1
    return {"lost": lost, "doubled": doubled, "miscredited": miscredited, "kept state unlike replay": mismatched,
            "done unanswered": unanswered}


def store_history(store: Any) -> Any:
    """``check``'s reader of a store: each game's discarding players and whether its kept state is its replay."""
    from referee.engine import Discarded

    def history_of(game: int) -> tuple[list[str], bool]:
        _gid, replayed, history = store.history(game)
        discards = [event.player for _at, event in history if isinstance(event, Discarded)]
        kept = store.load(game)[1]
        same = json.loads(json.dumps(kept.state.to_snapshot())) == json.loads(json.dumps(replayed.state.to_snapshot()))
        return discards, same

    return history_of


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


__all__ = ["PLAYERS", "Clients", "Replica", "Table", "address", "check", "percentile", "store_history",
           "viewer_latencies"]
