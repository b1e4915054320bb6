"""Service soak: gunicorn with the word service on loopback under a bounded, mixed load.

The server is started as the Procfile starts it (``service/gunicorn_conf.py`` with its own worker
and thread counts, unless ``--workers`` is given). ``--threads`` load threads each keep one HTTP/1.1
connection alive (http.client) and send, as fast as the answers come, a mix of legal and illegal
words, racks, batches of up to 1,000 words, malformed words, racks, bodies and query strings,
oversized bodies, unknown paths and methods, and request lines or headers over gunicorn's limits. A
probe in its own process opens a new connection to ``/healthz`` every 0.25 s.

Checked: zero 5xx (from the answers and from the access log), zero dropped connections (a request
that got no answer although the server had not said ``Connection: close``), every answer as expected
(status, JSON body, ``X-Content-Type-Options: nosniff``), no error or traceback in the server log, no
worker restarted, every /healthz answered within 100 ms, and worker memory flat: RSS of each worker
(from /proc) at start, after the warm-up (a third of the run, at least 10 s), every 5 s and at the
end; the growth after the warm-up must stay under 8 MiB.

Run: ``.venv/bin/python reliability/soak.py`` (60 s, 4 load threads; ``--seconds``,
``--threads``, ``--workers``, ``--config FILE`` for another gunicorn config, ``--oversized-close``
to send oversized bodies with ``Connection: close``, ``--json FILE``). Exit status 0 when every
check held.
"""
from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (python reliability/x.py): the repository's packages import from here
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability.common import GUNICORN, ROOT, Server, legal_words

HEALTH_LIMIT_MS = 100.0
#: Worker RSS may grow after the warm-up by at most this much. A worker's RSS rises to the high-water
#: mark of the large answers it has built (a batch of 1,000 verdicts is ~300 KB; the
#: allocator keeps the memory), then stays: in a 180 s run with the shipped config each worker stayed
#: between 42.4 and 51.3 MiB VmRSS from the 10th second on, and ended within 1 MiB of where it was at
#: the 60th. A leak grows on and on (2 KB a request: 8.7 to 13.0 MiB in 10 s).
MEMORY_GROWTH_LIMIT_KIB = 8192
MAX_BODY = 64 * 1024
JSON_TYPE = {"Content-Type": "application/json"}
ILLEGAL = ("london", "jazz", "cthulhu", "ab", "abcdefgh", "xqzt", "nasa", "don't", "etc.", "qqqq", "aaaaaaaaaaaaaaaa")
MALFORMED = ("t4ps", "%FF%FE", "a%20b", "x" * 65, "%00", "tap$", "-", "%E2%98%83", "ta_ps")


@dataclass(frozen=True)
class Request:
    kind: str
    method: str
    path: str
    expect: tuple[int, ...]
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], bool] | None = None   # on the JSON of a 200
    from_gunicorn: bool = False                    # gunicorn itself answers (and closes): no JSON, no nosniff


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("etaoinshrdlucmfwypvbgkjqxz"[:20 if rng.random() < 0.9 else 26]) for _ in range(n))


def _batch(rng: random.Random, words: list[str], n: int) -> list[str]:
    return [rng.choice(words) if rng.random() < 0.7 else rng.choice(ILLEGAL).replace("'", "") for _ in range(n)]


def make_request(rng: random.Random, words: list[str], oversized_close: bool) -> Request:
    """One request of the mix (weights in percent)."""
    roll = rng.random() * 100
    if roll < 24:
        w = rng.choice(words)
        return Request("legal", "GET", f"/v1/words/{w.lower()}", (200,), check=lambda d: d["legal"] is True)
    if roll < 34:
        w = rng.choice(ILLEGAL)
        return Request("illegal", "GET", f"/v1/words/{w}", (200,), check=lambda d: d["legal"] is False)
    if roll < 42:
        return Request("malformed-word", "GET", f"/v1/words/{rng.choice(MALFORMED)}", (400,))
    if roll < 53:
        n = rng.choice((3, 5, 6, 7, 7, 7))  # a rack is a hand: at most 7 letters
        query = rng.choice(("", "", "?limit=10", "?level=35", "?level=95&limit=50"))
        return Request("rack", "GET", f"/v1/racks/{_letters(rng, n)}{query}", (200,), check=lambda d: "words" in d)
    if roll < 58:
        path = rng.choice((f"/v1/racks/{_letters(rng, 8)}", "/v1/racks/abc1", "/v1/racks/taps?limit=0",
                           "/v1/racks/taps?limit=10001", "/v1/racks/taps?level=61", "/v1/words/taps?level=x"))
        return Request("bad-query", "GET", path, (400,))
    if roll < 68:
        n = rng.choice((1, 10, 100, 500, 1000))
        body = json.dumps({"words": _batch(rng, words, n), "level": 60}).encode()

        def check(answer: dict[str, Any], n: int = n) -> bool:
            return len(answer["results"]) == n

        return Request("batch", "POST", "/v1/words", (200,), body, JSON_TYPE, check=check)
    if roll < 75:
        body = rng.choice((b"{not json", b"[]", b'{"words": "taps"}', b'{"words": ["taps"], "extra": 1}',
                           json.dumps({"words": ["taps"] * 1001}).encode(), b'{"words": [1, 2]}',
                           b'{"words": ["taps"], "level": 61}', b"\xff\xfe", b'{"words": ["' + b"a" * 100 + b'"]}'))
        return Request("bad-batch", "POST", "/v1/words", (400,), body, JSON_TYPE)
    if roll < 79:
        size = rng.choice((MAX_BODY + 1, 100_000, 500_000))
        headers = {**JSON_TYPE, **({"Connection": "close"} if oversized_close else {})}
        return Request("oversized", "POST", "/v1/words", (413,), b'{"words": []}' + b" " * (size - 13), headers)
    if roll < 88:
        path = rng.choice(("/v1/deck", "/v1/dictionary", "/openapi.json", "/healthz"))
        return Request("meta", "GET", path, (200,))
    if roll < 92:
        return Request("not-found", "GET", rng.choice(("/v1/nothing", "/v2/words/taps", "/", "/v1/words/")), (404,))
    if roll < 95:
        return Request("wrong-method", rng.choice(("DELETE", "PUT", "PATCH")), "/v1/words/taps", (405,))
    if roll < 98:
        return Request("long-line", "GET", "/v1/words/taps?pad=" + "a" * 2100, (414,), from_gunicorn=True)
    return Request("big-header", "GET", "/v1/words/taps", (431,), headers={"X-Pad": "a" * 5000}, from_gunicorn=True)


@dataclass
class Report:
    seconds: float = 0.0
    workers: int = 0
    config: str = "service/gunicorn_conf.py"
    overrides: dict[str, str] = field(default_factory=dict)   # WEB_CONCURRENCY / GUNICORN_THREADS set for the run
    load_threads: int = 0
    requests: int = 0
    requests_per_s: float = 0.0
    by_status: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)
    server_errors_5xx: int = 0
    dropped: int = 0
    dropped_after_413: int = 0
    server_closes: int = 0             # the server said Connection: close (gunicorn's 414/431) and closed
    unexpected: int = 0
    missing_nosniff: int = 0
    gunicorn_error_pages: int = 0      # 400/414/431 answered by gunicorn itself (problem+json since the D5 fix)
    latency_p50_ms: float = 0.0
    latency_p99_ms: float = 0.0
    health_probes: int = 0
    health_max_ms: float = 0.0
    health_p99_ms: float = 0.0
    health_over_limit: int = 0
    health_failures: int = 0
    health_slow: list[list[float]] = field(default_factory=list)  # [seconds into the run, ms] of probes over the limit
    memory_kib: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    memory_growth_kib: dict[str, int] = field(default_factory=dict)
    memory_series_vmrss_kib: list[list[float]] = field(default_factory=list)  # [seconds, worker 1, worker 2...]
    workers_restarted: bool = False
    access_log_lines: int = 0
    access_log_5xx: int = 0
    log_errors: list[str] = field(default_factory=list)
    exit_status: int | None = None
    examples: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


class Stats:
    """What the load threads saw (shared, under a lock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.latencies: list[float] = []
        self.dropped = self.dropped_after_413 = self.closes = self.unexpected = self.nosniff = self.gunicorn_pages = 0
        self.examples: list[str] = []

    def note(self, text: str) -> None:
        with self.lock:
            if len(self.examples) < 20:
                self.examples.append(text)


def load_thread(port: int, seed: int, words: list[str], deadline: float, stats: Stats, oversized_close: bool) -> None:
    """Send requests on one kept-alive connection until ``deadline``; reconnect only after a close."""
    rng = random.Random(seed)
    conn: http.client.HTTPConnection | None = None
    last_was_413 = False
    while time.monotonic() < deadline:
        req = make_request(rng, words, oversized_close)
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        started = time.perf_counter()
        try:
            conn.request(req.method, req.path, body=req.body, headers=req.headers)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            with stats.lock:
                stats.dropped += 1
                stats.dropped_after_413 += last_was_413
            stats.note(f"dropped: {req.kind} {req.method} {req.path[:60]} after {'a 413' if last_was_413 else 'a 2xx/4xx'}: {exc!r}")
            conn.close()
            conn = None
            last_was_413 = False
            continue
        elapsed = time.perf_counter() - started
        ok = response.status in req.expect
        if ok and response.status == 200 and req.check is not None:
            try:
                ok = req.check(json.loads(data))
            except (ValueError, KeyError, TypeError):
                ok = False
        if ok and not req.from_gunicorn and response.status != 200:
            ok = response.getheader("Content-Type") == "application/problem+json"
        with stats.lock:
            stats.status[str(response.status)] += 1
            stats.kinds[req.kind] += 1
            stats.latencies.append(elapsed)
            stats.unexpected += not ok
            if req.from_gunicorn:
                stats.gunicorn_pages += 1
            elif response.getheader("X-Content-Type-Options") != "nosniff":
                stats.nosniff += 1
        if not ok:
            stats.note(f"unexpected: {req.kind} {req.method} {req.path[:60]} -> {response.status} {data[:120]!r}")
        last_was_413 = response.status == 413
        if response.will_close:
            with stats.lock:
                stats.closes += 1
            conn.close()
            conn = None
    if conn is not None:
        conn.close()


def health_probe(port: int, deadline: float, every: float, samples: list[float], failures: list[str],
                 times: list[float] | None = None) -> None:
    """GET /healthz on a new connection every ``every`` seconds; keep the latency in ms."""
    while time.monotonic() < deadline:
        started = time.perf_counter()
        if times is not None:
            times.append(time.monotonic())
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            body = response.read()
            conn.close()
            if response.status != 200 or json.loads(body) != {"status": "ok"}:
                failures.append(f"/healthz answered {response.status} {body[:80]!r}")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            failures.append(f"/healthz: {exc!r}")
        samples.append((time.perf_counter() - started) * 1000)
        time.sleep(max(0.0, every - (time.perf_counter() - started)))


def probe_process(port: int, seconds: float, every: float = 0.25) -> subprocess.Popen[str]:
    """The /healthz probe in its own interpreter, so the load threads' GIL never delays it."""
    code = ("import json, sys, time; sys.path.insert(0, sys.argv[1]); from reliability.soak import health_probe; "
            "s, f, t = [], [], []; start = time.monotonic(); "
            "health_probe(int(sys.argv[2]), start + float(sys.argv[3]), float(sys.argv[4]), s, f, t); "
            "print(json.dumps({'ms': s, 'failures': f, 'at': [round(x - start, 2) for x in t]}))")
    return subprocess.Popen([sys.executable, "-c", code, str(ROOT), str(port), str(seconds), str(every)],
                            stdout=subprocess.PIPE, text=True)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


ACCESS = re.compile(r'" (\d{3}) ')


def run_soak(seconds: float = 60, threads: int = 4, workers: int | None = None, seed: int = 1, server: Server | None = None,
             config: str | None = None, oversized_close: bool = False, check_memory: bool = True) -> Report:
    """Start gunicorn (or use ``server``), load it for ``seconds``, check everything, stop it.

    The warm-up lasts a third of the run, at least 10 s; ``check_memory=False`` for runs too short
    to tell a leak from the warm-up (the figures are still reported).
    """
    report = Report(load_threads=threads)
    words = legal_words(2000, seed)
    own = server is None
    if server is None:
        args = list(GUNICORN)
        if config:
            args[args.index("service/gunicorn_conf.py")] = config
        server = Server(workers=workers, args=args)
        server.start()
    try:
        report.workers = len(server.worker_pids())
        report.config = config or report.config
        report.overrides = {k: v for k, v in server.env.items() if k in ("WEB_CONCURRENCY", "GUNICORN_THREADS")}
        pids_at_start = server.worker_pids()
        memory = {"start": server.memory()}
        log_offset = len(server.log())
        stats = Stats()
        health: list[float] = []
        health_failures: list[str] = []
        started = time.monotonic()
        deadline = started + seconds
        warm_at = started + min(seconds, max(10.0, seconds / 3))
        pool = [threading.Thread(target=load_thread, args=(server.port, seed * 100 + i, words, deadline, stats,
                                                           oversized_close)) for i in range(threads)]
        probe = probe_process(server.port, seconds)
        for t in pool:
            t.start()
        series: list[tuple[float, dict[int, dict[str, int]]]] = []
        next_sample = started
        while time.monotonic() < deadline:
            if time.monotonic() >= next_sample:
                series.append((round(time.monotonic() - started, 1), server.memory()))
                next_sample += 5
            if "warm" not in memory and time.monotonic() >= warm_at:
                memory["warm"] = server.memory()
            time.sleep(0.05)
        memory.setdefault("warm", server.memory())
        for t in pool:
            t.join()
        probed = json.loads(probe.communicate(timeout=60)[0])
        health.extend(probed["ms"])
        health_failures.extend(probed["failures"])
        report.health_slow = [[at, round(ms, 1)] for at, ms in zip(probed["at"], probed["ms"]) if ms > HEALTH_LIMIT_MS]
        report.memory_series_vmrss_kib = [[t, *(m[pid]["VmRSS"] for pid in sorted(m))] for t, m in series]
        report.seconds = round(time.monotonic() - started, 1)
        memory["end"] = server.memory()
        report.workers_restarted = server.worker_pids() != pids_at_start
        log = server.log()[log_offset:]
    finally:
        if own:
            report.exit_status = server.stop()
            log = server.log()[log_offset:] if "log_offset" in locals() else server.log()
            server.remove_log()
    report.requests = sum(stats.status.values())
    report.requests_per_s = round(report.requests / max(report.seconds, 0.001), 1)
    report.by_status = dict(sorted(stats.status.items()))
    report.by_kind = dict(sorted(stats.kinds.items()))
    report.server_errors_5xx = sum(n for s, n in stats.status.items() if s.startswith("5"))
    report.dropped, report.dropped_after_413 = stats.dropped, stats.dropped_after_413
    report.server_closes, report.unexpected = stats.closes, stats.unexpected
    report.missing_nosniff, report.gunicorn_error_pages = stats.nosniff, stats.gunicorn_pages
    report.latency_p50_ms = round(statistics.median(stats.latencies) * 1000, 2) if stats.latencies else 0.0
    report.latency_p99_ms = round(percentile(stats.latencies, 0.99) * 1000, 2)
    report.health_probes = len(health)
    report.health_max_ms = round(max(health, default=0.0), 2)
    report.health_p99_ms = round(percentile(health, 0.99), 2)
    report.health_over_limit = sum(1 for h in health if h > HEALTH_LIMIT_MS)
    report.health_failures = len(health_failures)
    report.memory_kib = {stage: {str(pid): m for pid, m in by_pid.items()} for stage, by_pid in memory.items()}
    report.memory_growth_kib = {str(pid): memory["end"].get(pid, {}).get("VmRSS", 0) - m["VmRSS"]
                                for pid, m in memory["warm"].items()}
    access = [line for line in log.splitlines() if '"' in line and ACCESS.search(line)]
    report.access_log_lines = len(access)
    report.access_log_5xx = len([line for line in access if ACCESS.search(line).group(1).startswith("5")])  # type: ignore[union-attr]  # every line kept matched ACCESS above
    report.log_errors = [line for line in log.splitlines()
                         if any(m in line for m in ("Traceback", "[ERROR]", "[CRITICAL]", "WORKER TIMEOUT", "Booting worker"))][:10]
    report.examples = stats.examples + health_failures[:5]
    failures = report.failures
    if report.requests == 0:
        failures.append("no request was answered")
    for name, value in (("5xx answers", report.server_errors_5xx), ("5xx in the access log", report.access_log_5xx),
                        ("dropped connections", report.dropped), ("unexpected answers", report.unexpected),
                        ("answers without nosniff", report.missing_nosniff),
                        (f"/healthz over {HEALTH_LIMIT_MS:g} ms", report.health_over_limit),
                        ("/healthz failures", report.health_failures), ("server log errors", len(report.log_errors))):
        if value:
            failures.append(f"{value} {name}")
    if report.workers_restarted:
        failures.append("a worker was restarted during the soak")
    grown = {pid: g for pid, g in report.memory_growth_kib.items() if g > MEMORY_GROWTH_LIMIT_KIB}
    if grown and check_memory:
        failures.append(f"worker memory grew after the warm-up (KiB): {grown}")
    if own and report.exit_status != 0:
        failures.append(f"gunicorn stopped with status {report.exit_status} on SIGTERM")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=4, help="load threads, one kept-alive connection each")
    parser.add_argument("--workers", type=int, help="gunicorn workers (WEB_CONCURRENCY; default: the config's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--config", help="another gunicorn config file (default service/gunicorn_conf.py)")
    parser.add_argument("--oversized-close", action="store_true",
                        help="send oversized bodies with Connection: close (gunicorn closes after their 413)")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    report = run_soak(args.seconds, args.threads, args.workers, args.seed, config=args.config,
                      oversized_close=args.oversized_close)
    figures = asdict(report)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if report.failures:
        print("soak: FAILED: " + "; ".join(report.failures), file=sys.stderr)
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
