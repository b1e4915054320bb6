"""Slow clients against the service as the Procfile starts it: do normal requests still get through?

``--headers`` connections send a request head one byte at a time (a byte every ``--interval``
seconds) and ``--bodies`` connections send ``Content-Length: 60000`` bodies 4 bytes at a time; each
one the server closes is opened again at once, so the pressure holds for the whole run. Meanwhile
``--probes`` threads each send a normal request (a word, a rack, a batch, /healthz in turn) on a
new connection every 50 ms. Reported: the normal requests' latency (median, p99, max) and failures,
and how long the server let each slow connection live before closing it.

Run: ``.venv/bin/python reliability/slow_clients.py`` (200 + 200 for 60 s; ``--seconds``,
``--headers``, ``--bodies``, ``--config FILE`` for another gunicorn config, ``--json FILE``).
Exit status 0 when no normal request failed, their p99 is under 100 ms, and every slow connection
was closed within the stated limits (head: ``keepalive`` s, body: ``BODY_SECONDS`` s, plus 2 s).
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import resource
import statistics
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

if not __package__:  # run as a script (python reliability/x.py): the repository's packages import from here
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability.common import GUNICORN, Server
from service import gunicorn_conf
from service.core import BODY_SECONDS

HEAD = b"GET /v1/words/taps HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
BODY_HEAD = b"POST /v1/words HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
PROBES = [("GET", "/v1/words/taps", None), ("GET", "/v1/racks/tapsxe?limit=5", None),
          ("POST", "/v1/words", json.dumps({"words": ["taps", "jazz", "london"] * 10}).encode()),
          ("GET", "/healthz", None)]


@dataclass
class Report:
    seconds: float
    slow_heads: int
    slow_bodies: int
    probes: int = 0
    probe_failures: int = 0
    probe_errors: list[str] = field(default_factory=list)
    probe_ms_median: float = 0.0
    probe_ms_p99: float = 0.0
    probe_ms_max: float = 0.0
    head_closes: int = 0
    head_lifetime_max_s: float = 0.0
    body_closes: int = 0
    body_lifetime_max_s: float = 0.0
    slow_connect_failures: int = 0
    head_limit_s: float = 0.0
    body_limit_s: float = 0.0
    server_tracebacks: int = 0
    worker_class: str = ""


async def trickle(port: int, head: bytes, body: bool, interval: float, until: float, lifetimes: list[float],
                  failures: list[float]) -> None:
    """One slow client, reopened whenever the server closes it, until ``until``."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            failures.append(1)
            await asyncio.sleep(0.5)
            continue
        opened = time.monotonic()
        closed = asyncio.ensure_future(reader.read(65536))
        try:
            if body:
                writer.write(head)  # the head at once, then the body 4 bytes at a time
            pieces = ([b"[   "] * 15000) if body else [head[i:i + 1] for i in range(len(head))]
            for piece in pieces:
                writer.write(piece)
                await writer.drain()
                try:
                    await asyncio.wait_for(asyncio.shield(closed), timeout=interval)
                except TimeoutError:
                    pass
                if closed.done() or time.monotonic() >= until:
                    break
            if closed.done():
                # The server answered (a 408 or a 400) or closed: wait for the end of the connection.
                while (await asyncio.wait_for(reader.read(65536), timeout=5)):
                    pass
                lifetimes.append(time.monotonic() - opened)
        except (TimeoutError, OSError):
            lifetimes.append(time.monotonic() - opened)
        finally:
            closed.cancel()
            writer.close()


def slow_clients(port: int, heads: int, bodies: int, interval: float, seconds: float,
                 out: dict[str, list[float]]) -> None:
    """Run every slow client in one event loop (a thread of its own)."""
    until = time.monotonic() + seconds

    async def all_clients() -> None:
        await asyncio.gather(
            *(trickle(port, HEAD, False, interval, until, out["head"], out["failures"]) for _ in range(heads)),
            *(trickle(port, BODY_HEAD, True, 4.0, until, out["body"], out["failures"]) for _ in range(bodies)))

    asyncio.run(all_clients())


def probe(port: int, until: float, times: list[float], errors: list[str], index: int) -> None:
    """Normal requests on new connections, every 50 ms."""
    turn = index
    while time.monotonic() < until:
        method, path, body = PROBES[turn % len(PROBES)]
        turn += 1
        started = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status != 200:
                errors.append(f"{method} {path}: {response.status}")
        except OSError as exc:
            errors.append(f"{method} {path}: {type(exc).__name__} {exc}")
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(max(0.05 - (time.perf_counter() - started), 0))


def run(seconds: float = 60, heads: int = 200, bodies: int = 200, probes: int = 4, interval: float = 1.0,
        args: tuple[str, ...] = GUNICORN) -> Report:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    report = Report(seconds=seconds, slow_heads=heads, slow_bodies=bodies,
                    head_limit_s=float(gunicorn_conf.keepalive), body_limit_s=BODY_SECONDS,
                    worker_class=str(gunicorn_conf.worker_class) if args == GUNICORN else f"see {args[2]}")
    with Server(args=args) as server:
        slow: dict[str, list[float]] = {"head": [], "body": [], "failures": []}
        crowd = threading.Thread(target=slow_clients, args=(server.port, heads, bodies, interval, seconds, slow))
        crowd.start()
        time.sleep(min(5.0, seconds / 4))  # let the slow clients take their places first
        until = time.monotonic() + seconds - min(5.0, seconds / 4)
        times: list[float] = []
        errors: list[str] = []
        threads = [threading.Thread(target=probe, args=(server.port, until, times, errors, i)) for i in range(probes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        crowd.join()
        report.server_tracebacks = server.log().count("Traceback")
    ordered = sorted(times)
    report.probes, report.probe_failures, report.probe_errors = len(times), len(errors), errors[:10]
    if ordered:
        report.probe_ms_median = round(statistics.median(ordered), 1)
        report.probe_ms_p99 = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)
        report.probe_ms_max = round(ordered[-1], 1)
    report.head_closes, report.body_closes = len(slow["head"]), len(slow["body"])
    report.head_lifetime_max_s = round(max(slow["head"], default=0), 1)
    report.body_lifetime_max_s = round(max(slow["body"], default=0), 1)
    report.slow_connect_failures = len(slow["failures"])
    return report


def passed(report: Report) -> bool:
    return (report.probe_failures == 0 and report.probe_ms_p99 < 100 and report.server_tracebacks == 0
            and report.head_lifetime_max_s <= report.head_limit_s + 2
            and report.body_lifetime_max_s <= report.body_limit_s + 2
            and (report.seconds < 2 * report.body_limit_s or (report.head_closes > 0 and report.body_closes > 0)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--headers", type=int, default=200, help="connections trickling a request head")
    parser.add_argument("--bodies", type=int, default=200, help="connections trickling a request body")
    parser.add_argument("--config", help="another gunicorn config file (e.g. the old gthread one, to compare)")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    args = GUNICORN if options.config is None else tuple(options.config if a == "service/gunicorn_conf.py" else a
                                                          for a in GUNICORN)
    report = run(options.seconds, options.headers, options.bodies, args=args)
    ok = passed(report)
    print(json.dumps(asdict(report), indent=2))
    print(f"slow clients: {report.slow_heads} heads + {report.slow_bodies} bodies for {report.seconds:g} s: "
          f"{report.probes} normal requests, {report.probe_failures} failed, median {report.probe_ms_median} ms, "
          f"p99 {report.probe_ms_p99} ms, max {report.probe_ms_max} ms; slow heads closed after at most "
          f"{report.head_lifetime_max_s} s ({report.head_closes} closes), slow bodies after at most "
          f"{report.body_lifetime_max_s} s ({report.body_closes} closes)")
    if options.json:
        options.json.write_text(json.dumps(asdict(report), indent=2))
    print("slow clients: " + ("passed" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
