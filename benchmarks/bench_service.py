"""Benchmark of the word service against two peers doing the same look-up and score.

Over 500 lines because it is one self-contained script (its load generator, its peers' servers and its
report) that runs outside the test suite and must not import the tests' helpers.

Each application runs under gunicorn with the service's own config file (service/gunicorn_conf.py:
gevent workers, access log on stdout, which goes to /dev/null here) on a free loopback port:

* ``service``: the word service (``service.app:create_app()``);
* ``flask-peer``: a plain Flask app with a Python set (benchmarks/peers.py);
* ``bare-wsgi``: a bare WSGI function with the same set (benchmarks/peers.py).

Each gets the same bounded load: wrk (Debian's package) when installed, else a small Python load
generator. Reported: requests/s, p50 and p99 of single-word GETs, and words/s through batches of
1,000 distinct words (``POST /v1/words``) of two mixes: drawn like the GETs' words (mostly
spellings that are not playable, whose verdicts carry reasons) and playable words only; with the
ratios to the peers. Each app runs ``--rounds`` times, interleaved; medians are reported.
Not a timed test: run it by hand (``python benchmarks/bench_service.py``) and copy the figures
into BENCHMARKS.md.

``--variant LABEL:VAR=VALUE,...`` adds the service under other environment settings (for example
``2w:WEB_CONCURRENCY=2`` or ``nolog:UW_ACCESS_LOG=off``), interleaved with the rest in the same
rounds. ``--in-process`` instead measures the service's own part of an answer (its WSGI app called
directly, no server) and the cost of one access-log line, gunicorn's logger against the service's.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not __package__:  # run as a script (python benchmarks/x.py): the repository's packages import from here
    sys.path.insert(0, str(ROOT))

from benchmarks.peers import legal_words  # noqa: E402 - after the sys.path line above
from dictionaries.dictionary import open_dictionary  # noqa: E402 - after the sys.path line above

APPS: dict[str, str] = {
    "service": "service.app:create_app()",
    "flask-peer": "benchmarks.peers:create_flask_peer()",
    "bare-wsgi": "benchmarks.peers:bare_app",
}
#: ``--floors``: the service's parts alone (benchmarks/peers.py), between the service and the bare app.
FLOORS: dict[str, str] = {
    "service": APPS["service"],
    "verdict-floor": "benchmarks.peers:create_verdict_floor()",
    "lookup-floor": "benchmarks.peers:create_lookup_floor()",
    "bare-wsgi": APPS["bare-wsgi"],
}
BATCH_SIZE = 1000


@dataclass
class Result:
    """What one load run measured."""

    requests_per_s: float
    p50_ms: float
    p99_ms: float
    errors: int
    requests: int = 0
    server_cpu_s: float = 0.0  # CPU time the server's processes used during the run

    @property
    def cpu_us_per_request(self) -> float:
        """Server CPU per request: unlike req/s, barely moved by other load on a shared host."""
        return self.server_cpu_s / self.requests * 1e6 if self.requests else float("nan")


def sample_words(n: int = 200, seed: int = 3) -> list[str]:
    """A fixed mix of inputs: dictionary spellings of any sense and level, and some gibberish."""
    dictionary = open_dictionary()
    rng = random.Random(seed)
    keys = [k for k in dictionary._words.iterkeys() if 3 <= len(k) <= 9]
    words = rng.sample(keys, n - n // 10)
    words += ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 8))) for _ in range(n // 10)]
    rng.shuffle(words)
    return words


def unseen_words(n: int = 100_000, seed: int = 6) -> list[str]:
    """``n`` distinct inputs drawn like ``sample_words``' and none of them: cycled, no cache holds them (the
    service's hold 1,024 words per language at its own level and deck; they held 50,000 before issue 37), so
    every answer is judged."""
    dictionary = open_dictionary()
    rng = random.Random(seed)
    seen = set(sample_words()) | set(sample_words(BATCH_SIZE, seed=4)) | {w.lower() for w in playable_sample()}
    keys = [k for k in dictionary._words.iterkeys() if 3 <= len(k) <= 9 and k not in seen]
    words = rng.sample(keys, n - n // 10)
    gibberish: set[str] = set()
    while len(gibberish) < n // 10:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 8)))
        if word not in seen and word not in dictionary:
            gibberish.add(word)
    words += sorted(gibberish)
    rng.shuffle(words)
    return words


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_tree_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its children (Linux /proc; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1] is the parent pid
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


_PEERS_ONLY: list[str] = []


def import_root() -> str:
    """Where gunicorn imports the apps from: the repository, unless this interpreter has the package
    installed (a normal ``pip install .``), and then a folder holding only ``benchmarks`` (the peers),
    so that the service is the installed one."""
    found = subprocess.run([sys.executable, "-c", "import service; print(service.__file__)"], cwd="/",
                           capture_output=True, text=True)
    if found.returncode or Path(found.stdout.strip()).resolve().is_relative_to(ROOT):
        return str(ROOT)
    if not _PEERS_ONLY:
        folder = Path(tempfile.mkdtemp(prefix="uw-peers-"))
        (folder / "benchmarks").symlink_to(ROOT / "benchmarks")
        _PEERS_ONLY.append(str(folder))
    return _PEERS_ONLY[0]


@contextmanager
def server(target: str, extra_env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """gunicorn serving ``target`` on loopback, with the service's config (and ``extra_env``); yields
    the base URL."""
    port = free_port()
    gunicorn = shutil.which("gunicorn", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    command = [gunicorn or "gunicorn", "--config", str(ROOT / "service/gunicorn_conf.py"),
               "--bind", f"127.0.0.1:{port}", target]
    root = import_root()
    env = {**os.environ, "PYTHONPATH": root, "PORT": str(port), **(extra_env or {})}
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{target} did not start: {process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{target} did not answer /healthz within 60 s")
            time.sleep(0.2)
        # Every worker loads lazily on its first request: warm them all up.
        for _ in range(50):
            urllib.request.urlopen(f"{base}/v1/words/warm", timeout=10).read()
        yield base, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# -- load generators ------------------------------------------------------------------------------

def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(base: str, script: str, seconds: int, connections: int, threads: int) -> Result:
    """Run wrk with a Lua script and parse its --latency report."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    try:
        out = subprocess.run(
            ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", handle.name, base],
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(handle.name)
    percentiles = dict(re.findall(r"^\s+(\d+)%\s+(\S+)\s*$", out, re.M))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(bad.group(1)) if bad else 0) + (sum(map(int, socket_errors.groups())) if socket_errors else 0)
    return Result(rate, _ms(percentiles["50"]), _ms(percentiles["99"]), errors, total)


def python_load(base: str, requests: list[tuple[str, str, bytes | None]], seconds: int, connections: int) -> Result:
    """A small closed-loop load generator: ``connections`` keep-alive connections, one thread each."""
    host, port = base.removeprefix("http://").split(":")
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def run(offset: int) -> None:
        nonlocal errors
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        mine: list[float] = []
        bad = 0
        i = offset
        while time.monotonic() < stop:
            method, path, body = requests[i % len(requests)]
            i += 1
            start = time.perf_counter()
            headers = {"Content-Type": "application/json"} if body else {}
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - start)
            bad += response.status >= 400
        conn.close()
        with lock:
            latencies.extend(mine)
            errors += bad

    started = time.monotonic()
    spread = max(len(requests) // connections, 7)  # each connection its own share: an unseen word is sent once
    workers = [threading.Thread(target=run, args=(i * spread,)) for i in range(connections)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731 - a one-line helper read where it is used
    return Result(len(latencies) / elapsed, pick(0.50), pick(0.99), errors, len(latencies))


#: wrk's threads each run the script: each starts at its own share of the table (an unseen word is sent once).
_WRK_SPREAD = """
local threads = 0
function setup(thread)
  thread:set("share", threads)
  threads = threads + 1
end
function init(args)
  i = (share * 50021) % #TABLE
end
"""


def single_word_load(base: str, words: list[str], args: argparse.Namespace) -> Result:
    if args.loader == "wrk":
        table = ", ".join(json.dumps(w) for w in words)
        script = f"""
local words = {{{table}}}
i = 0
{_WRK_SPREAD.replace("TABLE", "words")}
request = function()
  i = i % #words + 1
  return wrk.format("GET", "/v1/words/" .. words[i])
end
"""
        return wrk(base, script, args.seconds, args.connections, args.threads)
    return python_load(base, [("GET", f"/v1/words/{w}", None) for w in words], args.seconds, args.connections)


def batch_load(base: str, words: list[str], args: argparse.Namespace) -> Result:
    body = json.dumps({"words": [words[i % len(words)] for i in range(BATCH_SIZE)]})
    if args.loader == "wrk":
        script = f"""
wrk.method = "POST"
wrk.path = "/v1/words"
wrk.body = {json.dumps(body)}
wrk.headers["Content-Type"] = "application/json"
"""
        return wrk(base, script, args.seconds, args.batch_connections, args.threads)
    return python_load(base, [("POST", "/v1/words", body.encode())], args.seconds, args.batch_connections)


def unseen_batch_load(base: str, words: list[str], args: argparse.Namespace) -> Result:
    """Batches of 1,000 words, each batch other words (``words`` cut in batches, cycled)."""
    bodies = [json.dumps({"words": words[i:i + BATCH_SIZE]}) for i in range(0, len(words) - BATCH_SIZE + 1, BATCH_SIZE)]
    if args.loader == "wrk":
        table = ", ".join(json.dumps(b) for b in bodies)
        script = f"""
local bodies = {{{table}}}
i = 0
{_WRK_SPREAD.replace("TABLE", "bodies")}
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "/v1/words", {{["Content-Type"] = "application/json"}}, bodies[i])
end
"""
        return wrk(base, script, args.seconds, args.batch_connections, args.threads)
    return python_load(base, [("POST", "/v1/words", b.encode()) for b in bodies], args.seconds, args.batch_connections)


def revalidate_load(base: str, words: list[str], args: argparse.Namespace) -> Result:
    """GETs that carry the ETag the server gave: every answer is a 304 (the service only)."""
    tags = []
    for word in words:
        with urllib.request.urlopen(f"{base}/v1/words/{word}", timeout=10) as response:
            tags.append(response.headers["ETag"])
    if args.loader == "wrk":
        table = ", ".join(f"{{{json.dumps(w)}, {json.dumps(t)}}}" for w, t in zip(words, tags))
        script = f"""
local pairs = {{{table}}}
local i = 0
request = function()
  i = i % #pairs + 1
  return wrk.format("GET", "/v1/words/" .. pairs[i][1], {{["If-None-Match"] = pairs[i][2]}})
end
"""
        return wrk(base, script, args.seconds, args.connections, args.threads)
    raise SystemExit("revalidation needs wrk (apt-get install wrk)")


def health_load(base: str, args: argparse.Namespace) -> Result:
    """``GET /healthz`` over 64 connections (issue 13: p99 under 50 ms at wrk -c64)."""
    if args.loader == "wrk":
        return wrk(base, 'request = function() return wrk.format("GET", "/healthz") end', args.seconds, 64,
                   args.threads)
    return python_load(base, [("GET", "/healthz", None)], args.seconds, 64)


def median(results: list[Result]) -> Result:
    """Per-field median of several runs (errors are summed)."""
    mid = lambda values: sorted(values)[len(values) // 2]  # noqa: E731 - a one-line helper read where it is used
    cpu = mid([r.cpu_us_per_request for r in results])
    return Result(mid([r.requests_per_s for r in results]), mid([r.p50_ms for r in results]),
                  mid([r.p99_ms for r in results]), sum(r.errors for r in results), 1_000_000, cpu)


# -- past one machine: replicas behind nginx (deploy/nginx.conf) ---------------------------------

def start_nginx(nginx: str, conf: str, prefix: Path, ports: list[int]) -> tuple[subprocess.Popen[bytes], str]:
    """nginx running ``conf`` (deploy/nginx.conf's text) in ``prefix``, on a free port, over the
    replicas at ``ports``, with a static file location beside it; returns the process and base URL."""
    listen = free_port()
    conf = conf.replace("server 127.0.0.1:8001;", f"server 127.0.0.1:{ports[0]};")
    conf = conf.replace("server 127.0.0.1:8002;", f"server 127.0.0.1:{ports[1]};")
    conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{listen};\n        location = /static.json {{ alias {prefix}/static.json; }}")
    conf = conf.replace("access_log access.log;", "access_log off;")  # the same for every load
    prefix.mkdir(exist_ok=True)
    (prefix / "tmp").mkdir()
    (prefix / "nginx.conf").write_text(conf)
    # As root nginx's workers would run as nobody, who cannot enter this private temporary directory.
    directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
    proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", f"{prefix}/nginx.conf", "-g", directives],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return proc, f"http://127.0.0.1:{listen}"


def wrk_at_once(bases: list[str], script: str, seconds: int, connections: int) -> Result:
    """The same wrk load split over ``bases`` at the same time (``connections`` in all, one thread
    each): requests/s summed, the worst p50 and p99, errors summed."""
    results: list[Result] = []
    threads = [threading.Thread(target=lambda b=base: results.append(wrk(b, script, seconds, connections // len(bases), 1)))
               for base in bases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Result(sum(r.requests_per_s for r in results), max(r.p50_ms for r in results),
                  max(r.p99_ms for r in results), sum(r.errors for r in results), sum(r.requests for r in results))


def nginx_bench(args: argparse.Namespace) -> int:
    """Two replicas behind nginx with deploy/nginx.conf, in the same interleaved rounds:

    * ``/healthz`` through nginx against the same load straight to the two replicas (issue 26:
      >= 0.8x their requests/s, p99 under 100 ms), and through nginx running ``--baseline-conf``
      (an older deploy/nginx.conf) when given;
    * repeated words served from nginx's cache against nginx serving a static file of the same size
      (issue 13: >= 0.5x; issue 26: >= 0.7x)."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None or args.loader != "wrk":
        raise SystemExit("--nginx needs nginx and wrk (apt-get install nginx-light wrk)")
    words = [w for w in sample_words() if w.isalpha()]
    ports = [free_port(), free_port()]
    replicas = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "UW_ACCESS_LOG": "off", "WEB_CONCURRENCY": "1"}
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    confs = {"nginx": (ROOT / "deploy/nginx.conf").read_text()}
    if args.baseline_conf:
        confs["nginx, baseline conf"] = Path(args.baseline_conf).read_text()
    with tempfile.TemporaryDirectory() as prefix:
        for port in ports:
            replicas.append(subprocess.Popen([gunicorn, "--config", str(ROOT / "service/gunicorn_conf.py"), "--bind",
                                              f"127.0.0.1:{port}", APPS["service"]], cwd=ROOT, env=env,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        proxies = {name: start_nginx(nginx, conf, Path(prefix) / f"n{i}", ports) for i, (name, conf) in enumerate(confs.items())}
        base = proxies["nginx"][1]
        direct = [f"http://127.0.0.1:{port}" for port in ports]
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    for url in direct + [b for _, b in proxies.values()]:
                        urllib.request.urlopen(f"{url}/healthz", timeout=1).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or any(p.poll() is not None for p, _ in proxies.values()):
                        logs = [Path(prefix) / f"n{i}" / "error.log" for i in range(len(proxies))]
                        raise RuntimeError("replicas or nginx did not start: "
                                           + " ".join(log.read_text() for log in logs if log.exists())) from None
                    time.sleep(0.2)
            statuses = []
            for word in words * 2:  # fill the cache: a MISS, then HITs
                with urllib.request.urlopen(f"{base}/v1/words/{word}", timeout=10) as response:
                    body = response.read()
                    statuses.append(response.headers["X-Cache-Status"])
            (Path(prefix) / "n0" / "static.json").write_bytes(body)  # a file of an answer's size
            print(f"nginx {subprocess.run([nginx, '-v'], capture_output=True, text=True).stderr.strip()}, 2 replicas x 1 "
                  f"gevent worker, {len(words)} words; second pass through the cache: "
                  f"{statuses[len(words):].count('HIT')} of {len(words)} HIT; static file {len(body)} bytes; "
                  f"wrk -t{args.threads} -c{args.connections}, {args.seconds} s (straight to the replicas: one "
                  f"wrk -t1 -c{args.connections // 2} on each at once); load average {os.getloadavg()[0]:.2f}",
                  flush=True)
            table = ", ".join(json.dumps(w) for w in words)
            cached_script = f"""
local words = {{{table}}}
local i = 0
request = function()
  i = i % #words + 1
  return wrk.format("GET", "/v1/words/" .. words[i])
end
"""
            static_script = 'request = function() return wrk.format("GET", "/static.json") end'
            health_script = 'request = function() return wrk.format("GET", "/healthz") end'
            runs: dict[str, list[Result]] = {}
            nginx_share: dict[str, list[float]] = {}  # nginx's own CPU per /healthz, us
            replica_cpu = []
            for round_ in range(1, args.rounds + 1):
                line = []
                servers = [r.pid for r in replicas]
                for name, (proc, url) in proxies.items():
                    before, nginx_before = sum(process_tree_cpu(pid) for pid in servers), process_tree_cpu(proc.pid)
                    result = wrk(url, health_script, args.seconds, args.connections, args.threads)
                    nginx_cpu = process_tree_cpu(proc.pid) - nginx_before
                    result.server_cpu_s = sum(process_tree_cpu(pid) for pid in servers) - before + nginx_cpu
                    nginx_share.setdefault(name, []).append(nginx_cpu / result.requests * 1e6 if result.requests else 0.0)
                    runs.setdefault(f"/healthz via {name}", []).append(result)
                before = sum(process_tree_cpu(pid) for pid in servers)
                result = wrk_at_once(direct, health_script, args.seconds, args.connections)
                result.server_cpu_s = sum(process_tree_cpu(pid) for pid in servers) - before
                runs.setdefault("/healthz, 2 replicas direct", []).append(result)
                before = sum(process_tree_cpu(r.pid) for r in replicas)
                runs.setdefault("words via nginx's cache", []).append(
                    wrk(base, cached_script, args.seconds, args.connections, args.threads))
                replica_cpu.append(sum(process_tree_cpu(r.pid) for r in replicas) - before)
                runs.setdefault("nginx static file", []).append(
                    wrk(base, static_script, args.seconds, args.connections, args.threads))
                for name, results in runs.items():
                    cpu = (f" server CPU {results[-1].cpu_us_per_request:5.0f} us/request"
                           if results[-1].server_cpu_s else "")
                    line.append(f"  {name:<36} {results[-1].requests_per_s:7.0f} req/s p99 {results[-1].p99_ms:8.2f} ms "
                                f"err {results[-1].errors}{cpu}")
                print(f"round {round_} (replicas' CPU during the cached words: {replica_cpu[-1]:.2f} s):\n"
                      + "\n".join(line), flush=True)
            mid = {name: median(results) for name, results in runs.items()}
            print("medians:")
            for name, result in mid.items():
                cpu = f" server CPU {result.cpu_us_per_request:5.0f} us/request" if "healthz" in name else ""
                print(f"  {name:<36} {result.requests_per_s:7.0f} req/s p99 {result.p99_ms:8.2f} ms{cpu}")
            health = mid["/healthz via nginx"]
            both = mid["/healthz, 2 replicas direct"]
            ratio = health.requests_per_s / both.requests_per_s
            print(f"target /healthz via nginx >= 0.8x two replicas direct: {ratio:.2f}x "
                  f"{'met' if ratio >= 0.8 else 'MISSED'}; p99 {health.p99_ms:.1f} ms < 100 ms: "
                  f"{'met' if health.p99_ms < 100 else 'MISSED'}")
            # On 2 CPUs shared with the load generator, the proxy's own CPU is taken from the replicas:
            # server CPU per request says what each answer costs whatever else runs on the machine.
            share = sorted(nginx_share["nginx"])[len(nginx_share["nginx"]) // 2]
            print(f"server CPU per /healthz: through nginx {health.cpu_us_per_request:.0f} us (nginx's own {share:.0f} us), "
                  f"straight to the replicas {both.cpu_us_per_request:.0f} us: "
                  f"{health.cpu_us_per_request / both.cpu_us_per_request:.2f}x")
            ratio = mid["words via nginx's cache"].requests_per_s / mid["nginx static file"].requests_per_s
            print(f"target repeated words >= 0.7x nginx's static-file rate: {ratio:.2f}x {'met' if ratio >= 0.7 else 'MISSED'}")
            # Timeouts of the baseline config are its queue; errors elsewhere are failures.
            return 1 if any(r.errors for name, rs in runs.items() if "baseline" not in name for r in rs) else 0
        finally:
            for proc, _ in proxies.values():
                proc.terminate()
                proc.wait(timeout=30)
            for replica in replicas:
                replica.send_signal(signal.SIGTERM)
            for replica in replicas:
                replica.wait(timeout=30)


# -- memory under any traffic (issue 37) ----------------------------------------------------------

MEMORY_WORDS = 1_000_000


def worker_rss_kib(master: int) -> list[int]:
    """VmRSS (KiB) of each worker process of the gunicorn master ``master``."""
    sizes = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != master:
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        found = re.search(r"VmRSS:\s+(\d+)", status)
        if found:
            sizes.append(int(found.group(1)))
    return sizes


def million_words(n: int = MEMORY_WORDS, seed: int = 7) -> list[str]:
    """``n`` distinct inputs: every spelling of the dictionary, then distinct gibberish up to ``n``."""
    dictionary = open_dictionary()
    words = list(dictionary._words.iterkeys())
    rng = random.Random(seed)
    have = set(words)
    while len(words) < n:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12)))
        if word not in have:
            have.add(word)
            words.append(word)
    return words[:n]


def memory_bench(targets: dict[str, tuple[str, dict[str, str]]], connections: int = 4) -> dict[str, tuple[int, int]]:
    """Each app with one worker: its RSS once warm, then after ``MEMORY_WORDS`` distinct words, each judged in
    English and in Spanish, in batches of 1,000, and 20,000 distinct single GETs (10,000 per language,
    ten times the service's cache of single words): name -> (KiB before, KiB after)."""
    words = million_words()
    batches = [json.dumps({"words": words[i:i + BATCH_SIZE]}).encode() for i in range(0, len(words), BATCH_SIZE)]
    singles = words[::len(words) // 10_000][:10_000]
    sent = [(language, "POST", "/v1/words", body) for body in batches for language in ("en", "es")]
    sent += [(language, "GET", f"/v1/words/{w}", None) for w in singles for language in ("en", "es")]
    found: dict[str, tuple[int, int]] = {}
    for name, (target, extra_env) in targets.items():
        with server(target, {**extra_env, "WEB_CONCURRENCY": "1"}) as (base, pid):
            host, port = base.removeprefix("http://").split(":")
            for language in ("en", "es"):  # warm: the first answers in each language made what every answer uses
                urllib.request.urlopen(urllib.request.Request(f"{base}/v1/words/jazz", headers={
                    "Accept-Language": language}), timeout=10).read()
            before = max(worker_rss_kib(pid))
            failures: list[int] = []

            def send(share: int, host: str = host, port: str = port, failures: list[int] = failures) -> None:
                conn = http.client.HTTPConnection(host, int(port), timeout=60)
                for language, method, path, body in sent[share::connections]:
                    headers = {"Accept-Language": language, **({"Content-Type": "application/json"} if body else {})}
                    conn.request(method, path, body=body, headers=headers)
                    response = conn.getresponse()
                    response.read()
                    if response.status != 200:
                        failures.append(response.status)
                conn.close()

            threads = [threading.Thread(target=send, args=(share,)) for share in range(connections)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            after = max(worker_rss_kib(pid))
            found[name] = (before, after)
            print(f"memory {name:>10}: one worker {before / 1024:6.1f} MiB warm, {after / 1024:6.1f} MiB after "
                  f"{len(words):,} distinct words in English and Spanish ({len(sent):,} requests, "
                  f"{len(failures)} not 200): {(after - before) / 1024:+.1f} MiB", flush=True)
    return found


# -- main -----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of each load run (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="connections for single-word GETs (default 16)")
    parser.add_argument("--batch-connections", type=int, default=4, help="connections for batches (default 4)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--loader", choices=["wrk", "python"], default="wrk" if shutil.which("wrk") else "python")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported (default 3)")
    parser.add_argument("--apps", nargs="+", choices=list(APPS), default=list(APPS))
    parser.add_argument("--nginx", action="store_true",
                        help="instead: two replicas behind nginx (deploy/nginx.conf): /healthz against the replicas "
                             "direct, cached words against a static file")
    parser.add_argument("--baseline-conf", metavar="PATH",
                        help="with --nginx: also /healthz through nginx running this configuration (e.g. an older one)")
    parser.add_argument("--variant", action="append", default=[], metavar="LABEL:VAR=VALUE,...",
                        help="also the service with these environment variables, as app service[LABEL]")
    parser.add_argument("--no-memory", action="store_true",
                        help=f"skip the memory phase ({MEMORY_WORDS:,} distinct words per app, one worker)")
    parser.add_argument("--in-process", action="store_true",
                        help="instead: the service's own part of an answer, and an access-log line, without a server")
    parser.add_argument("--floors", action="store_true",
                        help="instead: single GETs, cached and unseen words, of the service, its verdict alone, its "
                             "look-up alone and the bare app (benchmarks/peers.py)")
    args = parser.parse_args(argv)
    if args.nginx:
        return nginx_bench(args)
    if args.floors:
        return floors_bench(args)
    if args.in_process:
        return in_process()
    targets = {name: (APPS[name], {}) for name in args.apps}
    for spec in args.variant:
        label, _, assignments = spec.partition(":")
        targets[f"service[{label}]"] = (APPS["service"], dict(a.split("=", 1) for a in assignments.split(",") if a))

    apps = dict(targets)  # ``targets`` is the list of targets met or missed at the end
    words = sample_words()
    # Letters only: the peers know nothing of apostrophes, and the same inputs go to all three.
    words = [w for w in words if w.isalpha()]
    mixed = sample_words(BATCH_SIZE, seed=4)
    playable = playable_sample()
    unseen = unseen_words()
    print(f"loader: {args.loader}; {args.seconds} s per run; single GETs over {args.connections} connections, "
          f"batches of {BATCH_SIZE} over {args.batch_connections}; {len(words)} distinct words "
          f"({sum(w.upper() in legal_words() for w in words)} playable; mixed batches "
          f"{sum(w.upper() in legal_words() for w in mixed)} of {len(mixed)} playable); {os.cpu_count()} CPUs; "
          f"gunicorn config service/gunicorn_conf.py; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    kinds = ("single", "single-unseen", "batch-mixed", "batch-unseen", "batch-playable", "revalidate", "healthz-c64")
    runs: dict[str, dict[str, list[Result]]] = {name: {kind: [] for kind in kinds} for name in targets}
    for round_ in range(1, args.rounds + 1):
        for name, (target, extra_env) in targets.items():  # interleaved: a burst of other load hits every app
            with server(target, extra_env) as (base, pid):
                single_word_load(base, words, argparse.Namespace(**{**vars(args), "seconds": 2}))  # warm-up
                measured = {}
                loads = [("single", lambda: single_word_load(base, words, args)),
                         ("single-unseen", lambda: single_word_load(base, unseen, args)),
                         ("batch-mixed", lambda: batch_load(base, mixed, args)),
                         ("batch-unseen", lambda: unseen_batch_load(base, unseen, args)),
                         ("batch-playable", lambda: batch_load(base, playable, args)),
                         ("healthz-c64", lambda: health_load(base, args))]
                if name.startswith("service"):
                    loads.append(("revalidate", lambda: revalidate_load(base, words, args)))
                for kind, load in loads:
                    before = process_tree_cpu(pid)
                    measured[kind] = load()
                    measured[kind].server_cpu_s = process_tree_cpu(pid) - before
            for kind, result in measured.items():
                runs[name][kind].append(result)
            print(f"round {round_} {name:>10}: " + _line(measured), flush=True)
            if "revalidate" in measured:
                print(f"round {round_} {name:>10}: 304 {measured['revalidate'].cpu_us_per_request:.0f} us CPU/req "
                      f"({measured['revalidate'].cpu_us_per_request / measured['single'].cpu_us_per_request:.2f}x the "
                      f"200's); /healthz -c64 p50 {measured['healthz-c64'].p50_ms:.1f} ms p99 "
                      f"{measured['healthz-c64'].p99_ms:.1f} ms ({measured['healthz-c64'].requests_per_s:.0f} req/s)",
                      flush=True)
    results = {name: {kind: median(values) for kind, values in by_kind.items() if values}
               for name, by_kind in runs.items()}
    print(f"\nmedian of {args.rounds} round(s), load average after: {os.getloadavg()[0]:.2f}")
    for name, measured in results.items():
        print(f"{name:>10}: " + _line(measured))

    if "service" in results:
        service = results["service"]
        for peer in ("flask-peer", "bare-wsgi"):
            if peer in results:
                other = results[peer]
                print(f"service / {peer}: single GET {service['single'].requests_per_s / other['single'].requests_per_s:.2f}x"
                      f" req/s; batches {service['batch-mixed'].requests_per_s / other['batch-mixed'].requests_per_s:.2f}x"
                      f" (mixed), {service['batch-playable'].requests_per_s / other['batch-playable'].requests_per_s:.2f}x"
                      " (playable) words/s")
        per_word = {kind: service[kind].cpu_us_per_request / BATCH_SIZE for kind in ("batch-mixed", "batch-unseen")}
        print(f"service CPU per word in batches of {BATCH_SIZE:,}: the same batch again {per_word['batch-mixed']:.2f} us, "
              f"unseen words {per_word['batch-unseen']:.2f} us (" + ", ".join(
                  f"{peer} {results[peer]['batch-unseen'].cpu_us_per_request / BATCH_SIZE:.2f} us"
                  for peer in ("flask-peer", "bare-wsgi") if peer in results) + ")")
        print("server CPU per single GET, cached / unseen word: " + "; ".join(
            f"{name} {r['single'].cpu_us_per_request:.1f} / {r['single-unseen'].cpu_us_per_request:.1f} us"
            for name, r in results.items()))
        targets = [
            ("unseen words in batches <= 5 us CPU per word (>= 200,000 words/s per worker)",
             per_word["batch-unseen"] <= 5.0),
            ("single GET p99 <= 10 ms", service["single"].p99_ms <= 10),
            ("batches >= 200,000 words/s (mixed)", service["batch-mixed"].requests_per_s * BATCH_SIZE >= 200_000),
            ("batches >= 200,000 words/s (playable)", service["batch-playable"].requests_per_s * BATCH_SIZE >= 200_000),
        ]
        if "flask-peer" in results:
            targets.append(("single GET >= 1.0x flask-peer",
                            service["single"].requests_per_s >= results["flask-peer"]["single"].requests_per_s))
        if "bare-wsgi" in results:
            ratio = service["single-unseen"].cpu_us_per_request / results["bare-wsgi"]["single-unseen"].cpu_us_per_request
            print(f"single unseen-word GET: service {ratio:.3f}x bare-wsgi's server CPU")
            targets.append(("single unseen-word GET <= 1.05x bare-wsgi's CPU", ratio <= 1.05))
            targets.append(("single GET >= 0.6x bare-wsgi",
                            service["single"].requests_per_s >= 0.6 * results["bare-wsgi"]["single"].requests_per_s))
        revalidate, health = service["revalidate"], service["healthz-c64"]
        print(f"service 304 (If-None-Match): {revalidate.cpu_us_per_request:.0f} us CPU/req, "
              f"{revalidate.cpu_us_per_request / service['single'].cpu_us_per_request:.2f}x a 200's "
              f"{service['single'].cpu_us_per_request:.0f} us")
        targets.append(("304 <= 0.7x the CPU of a 200",
                        revalidate.cpu_us_per_request <= 0.7 * service["single"].cpu_us_per_request))
        print("GET /healthz at 64 connections: " + ", ".join(
            f"{name} p50 {r['healthz-c64'].p50_ms:.1f} ms p99 {r['healthz-c64'].p99_ms:.1f} ms "
            f"({r['healthz-c64'].requests_per_s:.0f} req/s)" for name, r in results.items()))
        targets.append(("/healthz p99 < 50 ms at 64 connections", health.p99_ms < 50))
        for label, met in targets:
            print(f"target {label}: {'met' if met else 'MISSED'}")
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        print(f"server CPU per request, robust to other load: service single GET "
              f"{service['single'].cpu_us_per_request:.0f} us", end="")
        for peer in ("flask-peer", "bare-wsgi"):
            if peer in results:
                print(f", {peer} {results[peer]['single'].cpu_us_per_request:.0f} us", end="")
        print(f"; on {cpus} otherwise idle CPUs (load generator aside) the service could serve at most "
              f"{cpus / service['single'].cpu_us_per_request * 1e6:.0f} req/s and "
              f"{cpus / service['batch-mixed'].cpu_us_per_request * 1e6 * BATCH_SIZE:.0f} (mixed) / "
              f"{cpus / service['batch-playable'].cpu_us_per_request * 1e6 * BATCH_SIZE:.0f} (playable) words/s")
    if not args.no_memory:
        grown = memory_bench(apps)
        if "service" in grown:
            before, after = grown["service"]
            print(f"target a worker's RSS within +16 MiB of a fresh one after {MEMORY_WORDS:,} distinct words in both "
                  f"languages: {(after - before) / 1024:+.1f} MiB {'met' if after - before <= 16 * 1024 else 'MISSED'}")
    failed = any(r.errors for measured in results.values() for kind, r in measured.items() if kind != "revalidate")
    if failed:
        print("some requests failed (see errors above)")
    return 1 if failed else 0


def floors_bench(args: argparse.Namespace) -> int:
    """Where a single unseen word's CPU goes: the service, its verdict alone (``verdict-floor``: the same
    writer and headers, nothing else), the look-up alone (``lookup-floor``) and the bare app, in interleaved
    rounds, each under the service's gunicorn config; server CPU per request, cached and unseen words."""
    words = [w for w in sample_words() if w.isalpha()]
    unseen = unseen_words()
    print(f"loader: {args.loader}; {args.seconds} s per run; single GETs over {args.connections} connections; "
          f"{os.cpu_count()} CPUs; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    runs: dict[str, dict[str, list[Result]]] = {name: {"cached": [], "unseen": []} for name in FLOORS}
    for round_ in range(1, args.rounds + 1):
        for name, target in FLOORS.items():
            with server(target) as (base, pid):
                single_word_load(base, words, argparse.Namespace(**{**vars(args), "seconds": 2}))  # warm-up
                for kind, sent in (("cached", words), ("unseen", unseen)):
                    before = process_tree_cpu(pid)
                    result = single_word_load(base, sent, args)
                    result.server_cpu_s = process_tree_cpu(pid) - before
                    runs[name][kind].append(result)
            print(f"round {round_} {name:>13}: " + ", ".join(
                f"{kind} {runs[name][kind][-1].cpu_us_per_request:6.1f} us CPU/req" for kind in ("cached", "unseen")),
                flush=True)
    cpu = {name: {kind: median(values).cpu_us_per_request for kind, values in by_kind.items()}
           for name, by_kind in runs.items()}
    print(f"\nmedian of {args.rounds} round(s), load average after: {os.getloadavg()[0]:.2f}")
    for name, by_kind in cpu.items():
        print(f"{name:>13}: " + ", ".join(
            f"{kind} {by_kind[kind]:6.1f} us ({by_kind[kind] / cpu['bare-wsgi'][kind]:.3f}x bare-wsgi)"
            for kind in ("cached", "unseen")))
    unseen_cost = {name: by_kind["unseen"] - by_kind["cached"] for name, by_kind in cpu.items()}
    print("an unseen word's CPU over a cached one's: " + ", ".join(f"{name} {cost:+.1f} us"
                                                                  for name, cost in unseen_cost.items()))
    failed = any(r.errors for by_kind in runs.values() for values in by_kind.values() for r in values)
    if failed:
        print("some requests failed")
    return 1 if failed else 0


def _line(measured: dict[str, Result]) -> str:
    single, mixed, playable = measured["single"], measured["batch-mixed"], measured["batch-playable"]
    fresh, unseen = measured["single-unseen"], measured["batch-unseen"]
    return (f"GET {single.requests_per_s:6.0f} req/s p50 {single.p50_ms:5.2f} ms p99 {single.p99_ms:6.2f} ms"
            f" ({single.cpu_us_per_request:4.0f} us CPU/req), unseen {fresh.requests_per_s:6.0f} req/s"
            f" ({fresh.cpu_us_per_request:4.0f} us CPU/req) err {single.errors + fresh.errors}"
            f" | batches {mixed.requests_per_s * BATCH_SIZE:7.0f} words/s mixed"
            f" ({mixed.cpu_us_per_request / BATCH_SIZE:5.1f} us CPU/word),"
            f" {unseen.requests_per_s * BATCH_SIZE:7.0f} unseen ({unseen.cpu_us_per_request / BATCH_SIZE:5.1f} us CPU/word),"
            f" {playable.requests_per_s * BATCH_SIZE:7.0f} playable ({playable.cpu_us_per_request / BATCH_SIZE:5.1f} us CPU/word)"
            f" err {mixed.errors + playable.errors + unseen.errors}")


def in_process(repeats: int = 7, n: int = 20000) -> int:
    """The service's own CPU per answer (``app.wsgi_app`` called directly: no server, no socket), and
    the CPU of one access-log line through gunicorn's logger and through the service's; best of
    ``repeats`` runs of ``n`` calls each (process time)."""
    import datetime
    import io
    import logging

    import gunicorn.glogging
    from gunicorn.config import Config

    from service import gunicorn_conf
    from service.app import create_app

    def environ(path: str, **extra: str) -> dict[str, object]:
        return {"REQUEST_METHOD": "GET", "PATH_INFO": path, "RAW_URI": path, "QUERY_STRING": "", "SERVER_NAME": "b",
                "SERVER_PORT": "80", "wsgi.url_scheme": "http", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
                "wsgi.input": io.BytesIO(), "wsgi.errors": io.StringIO(), **extra}

    def start(_status: str, _headers: list[tuple[str, str]], _exc_info: object = None) -> None:
        return None

    def best(call: object, count: int = n) -> float:
        fastest = float("inf")
        for _ in range(repeats):
            began = time.process_time()
            for _ in range(count):
                call()  # type: ignore[operator]  # each call is a callable of the table above
            fastest = min(fastest, (time.process_time() - began) / count)
        return fastest * 1e6

    app = create_app({"UW_LEVEL": 60, "UW_DECK": "standard"})
    wsgi = app.wsgi_app
    client = app.test_client()
    answers = {
        "cached 200": environ("/v1/words/jazz"),
        "304": environ("/v1/words/jazz", HTTP_IF_NONE_MATCH=client.get("/v1/words/jazz").headers["ETag"]),
        "cached 200 in Spanish": environ("/v1/words/jazz", HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9"),
        "304 in Spanish": environ("/v1/words/jazz", HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9", HTTP_IF_NONE_MATCH=client.get(
            "/v1/words/jazz", headers={"Accept-Language": "es-ES,es;q=0.9"}).headers["ETag"]),
        "/healthz": environ("/healthz"),
    }
    figures = {name: best(lambda e=env: b"".join(wsgi(dict(e), start))) for name, env in answers.items()}
    words = [w for w in sample_words(3000, seed=9) if w.isalpha()]
    first = float("inf")
    for _ in range(3):  # a word's first answer: a fresh app each time, so every verdict is judged
        fresh = create_app({"UW_LEVEL": 60, "UW_DECK": "standard"}).wsgi_app
        began = time.process_time()
        for word in words:
            b"".join(fresh(environ(f"/v1/words/{word}"), start))
        first = min(first, (time.process_time() - began) / len(words) * 1e6)
    figures["uncached 200 (a word's first answer)"] = first
    print("the service's own CPU per answer (no server): " + "; ".join(f"{k} {v:.1f} us" for k, v in figures.items()))

    resp = type("Resp", (), {"status": "200 OK", "sent": 312, "headers": [("Content-Type", "application/json")] * 9})()
    req = type("Req", (), {"headers": [("HOST", "127.0.0.1"), ("USER-AGENT", "wrk")]})()
    env = environ("/v1/words/jazz", HTTP_HOST="127.0.0.1", HTTP_USER_AGENT="wrk", SCRIPT_NAME="", REMOTE_PORT="5555",
                  SERVER_SOFTWARE="gunicorn", **{f"wsgi.x{i}": "" for i in range(10)})
    took = datetime.timedelta(microseconds=1234)
    lines = {}
    for label, cls in (("gunicorn's logger", gunicorn.glogging.Logger), ("the service's", gunicorn_conf.logger_class)):
        cfg = Config()
        cfg.set("accesslog", os.devnull)
        cfg.set("access_log_format", gunicorn_conf.access_log_format)
        log = cls(cfg)
        lines[label] = best(lambda log=log: log.access(resp, req, env, took))
        logging.getLogger("gunicorn.access").handlers.clear()
    print("one access-log line (to /dev/null): " + "; ".join(f"{k} {v:.1f} us" for k, v in lines.items()))
    return 0


def playable_sample(n: int = 1000, seed: int = 5) -> list[str]:
    """Playable words only (what players mostly send): a fixed random sample of the level-60 list."""
    return random.Random(seed).sample(sorted(legal_words()), n)


if __name__ == "__main__":
    raise SystemExit(main())
