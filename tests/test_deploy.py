"""deploy/nginx.conf: valid for nginx, in step with the service's own limits, and run for real.

The tests below the first start the shipped configuration (rewritten only for ports and for a
temporary prefix directory) in front of two real replicas of the service under gunicorn, and ask
it over HTTP what the configuration promises: cached word answers, never-cached POSTs and
/healthz, a stopped replica skipped, slow clients buffered, and no queue on /healthz.
``make test`` installs nginx first (tests/setup_nginx.sh); without it they skip, with one line.
"""
from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from service import gunicorn_conf
from service.core import BODY_SECONDS, MAX_BODY_BYTES

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
NO_NGINX = ("nginx is not installed, so deploy/nginx.conf was NOT run: run `bash tests/setup_nginx.sh` "
            "(Debian's nginx-light; `make test` does)")


def test_limits_match_the_service() -> None:
    text = CONF.read_text()
    assert f"client_max_body_size {MAX_BODY_BYTES // 1024}k;" in text
    assert f"client_header_timeout {gunicorn_conf.keepalive}s;" in text
    assert f"client_body_timeout {BODY_SECONDS:g}s;" in text
    assert re.search(r"proxy_cache_path .*keys_zone=uw_words", text) and "proxy_cache uw_words;" in text


def test_nginx_accepts_the_configuration(tmp_path: Path) -> None:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(CONF)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# -- the configuration run for real -----------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_up(url: str, process: subprocess.Popen[bytes], what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            detail = log.read_text()[-2000:] if log is not None and log.exists() else ""
            raise RuntimeError(f"{what} did not answer {url} (status {process.poll()}): {detail}")
        time.sleep(0.2)


@dataclass
class Replica:
    """One replica of the service: gunicorn with the service's config, its access log in a file."""

    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "WEB_CONCURRENCY": "1", "UW_ACCESS_LOG": "on"}
        for name in ("UW_LEVEL", "UW_DICTIONARY", "UW_DECK"):  # the defaults, whatever the shell holds
            env.pop(name, None)
        gunicorn = Path(sys.executable).with_name("gunicorn")
        handle = self.log.open("ab")
        self.process = subprocess.Popen([str(gunicorn), "--config", str(ROOT / "service/gunicorn_conf.py"),
                                         "--bind", f"127.0.0.1:{self.port}", "service.app:create_app()"],
                                        cwd=ROOT, env=env, stdout=handle, stderr=handle)
        handle.close()
        wait_until_up(f"{self.base}/healthz", self.process, "a replica", self.log)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def access_lines(self, marker: str = "", at_least: int = 0) -> list[str]:
        """The access log's lines holding ``marker`` (gunicorn_conf.access_log_format: ... "request
        line" status bytes Nms), once there are ``at_least`` of them or 5 s passed (a line is
        written just after its answer is sent)."""
        deadline = time.monotonic() + 5
        while True:
            lines = [line for line in self.log.read_text(errors="replace").splitlines()
                     if marker in line and re.search(r'" \d{3} .* \d+ms$', line)]
            if len(lines) >= at_least or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)


@dataclass
class Deployment:
    """nginx with deploy/nginx.conf in front of two replicas, in a temporary prefix directory."""

    prefix: Path
    replicas: list[Replica]
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert NGINX is not None
        conf = CONF.read_text()
        # Only the ports change (and the error log goes where the test can read it).
        for default, replica in zip(("127.0.0.1:8001", "127.0.0.1:8002"), self.replicas):
            assert f"server {default};" in conf
            conf = conf.replace(f"server {default};", f"server 127.0.0.1:{replica.port};")
        assert "listen 8080;" in conf
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        (self.prefix / "tmp").mkdir(exist_ok=True)
        (self.prefix / "nginx.conf").write_text(conf)
        for replica in self.replicas:
            replica.start()
        # As root nginx's workers would run as nobody, who cannot enter this private temporary directory.
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        self.process = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                                         "-g", directives], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(f"{self.base}/healthz", self.process, "nginx", self.prefix / "error.log")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        for replica in self.replicas:
            replica.stop()

    def cache_files(self) -> list[Path]:
        return [p for p in (self.prefix / "cache").rglob("*") if p.is_file()]


def deployment(prefix: Path) -> Iterator[Deployment]:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    running = Deployment(prefix, [Replica(free_port(), prefix / f"replica{i}.log") for i in (1, 2)])
    try:
        running.start()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def deployed() -> Iterator[Deployment]:
    with tempfile.TemporaryDirectory(prefix="uw-nginx-") as prefix:
        yield from deployment(Path(prefix))


def ask(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.mark.slow
def test_a_word_is_a_miss_then_a_hit(deployed: Deployment) -> None:
    first = ask(f"{deployed.base}/v1/words/quixotic")
    second = ask(f"{deployed.base}/v1/words/quixotic")
    assert (first[0], first[1]["X-Cache-Status"]) == (200, "MISS")
    assert (second[0], second[1]["X-Cache-Status"]) == (200, "HIT")
    assert second[2] == first[2] and second[1]["ETag"] == first[1]["ETag"]
    time.sleep(0.5)  # a line the HIT might have caused would be written by now
    asked = [line for r in deployed.replicas for line in r.access_lines("/v1/words/quixotic")]
    assert len(asked) == 1, asked  # the HIT never reached a replica
    def filed() -> int:  # entries under their key's MD5 name (use_temp_path=off puts temporary files beside them)
        return sum(1 for path in deployed.cache_files() if len(path.name) == 32)

    stored = filed()
    first_rack = ask(f"{deployed.base}/v1/racks/retains?limit=5")[1]["X-Cache-Status"]
    # nginx files the answer when the replica's last byte is in, which can come just after the client has
    # it (a MISS then a MISS was seen once in CI): ask again once the entry is on disk.
    deadline = time.monotonic() + 5
    while filed() == stored and time.monotonic() < deadline:
        time.sleep(0.05)
    rack = [first_rack, ask(f"{deployed.base}/v1/racks/retains?limit=5")[1]["X-Cache-Status"]]
    assert rack == ["MISS", "HIT"]


@pytest.mark.slow
def test_posts_errors_and_healthz_are_never_cached(deployed: Deployment) -> None:
    batch = b'{"words": ["jazz", "qi"]}'
    before = len(deployed.cache_files())
    for _ in range(3):
        status, headers, body = ask(f"{deployed.base}/v1/words", "POST", batch)
        assert status == 200 and b'"results"' in body
        assert headers.get("X-Cache-Status", "") == ""  # not even looked up: POST is not a cached method
        status, headers, body = ask(f"{deployed.base}/healthz")
        assert (status, body) == (200, b'{"status":"ok"}') and headers.get("X-Cache-Status", "") == ""
        status, headers, _ = ask(f"{deployed.base}/v1/words/jazz?level=99")  # a 400, from a replica each time
        assert status == 400 and headers.get("X-Cache-Status") in ("MISS", "EXPIRED")
        status, headers, _ = ask(f"{deployed.base}/v1/words/ja%24zz")  # another shape of URL, no lock: still a 400
        assert status == 400 and headers.get("X-Cache-Status") == "MISS"
    time.sleep(0.5)  # every line written by now
    posts = [line for r in deployed.replicas for line in r.access_lines('"POST /v1/words ')]
    errors = [line for r in deployed.replicas for line in r.access_lines("level=99")]
    assert len(posts) == 3 and len(errors) == 3
    assert len(deployed.cache_files()) == before


@pytest.mark.slow
def test_a_stopped_replica_is_skipped(tmp_path: Path) -> None:
    for running in deployment(tmp_path):
        running.replicas[1].stop()
        # Words never asked before (so never cached), and /healthz: every one answered by the other replica.
        for word in ("apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel"):
            status, headers, _ = ask(f"{running.base}/v1/words/{word}")
            assert (status, headers["X-Cache-Status"]) == (200, "MISS")
            assert ask(f"{running.base}/healthz")[0] == 200
            assert ask(f"{running.base}/v1/words", "POST", b'{"words": ["%s"]}' % word.encode())[0] == 200
        assert len(running.replicas[0].access_lines("/v1/words", at_least=16)) == 16


def trickle(base: str, path: str, body: bytes, seconds: float) -> int:
    """POST ``body`` in pieces spread over ``seconds``; the answer's status."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
        pieces = 8
        for i in range(pieces):
            sock.sendall(body[i * len(body) // pieces:(i + 1) * len(body) // pieces])
            time.sleep(seconds / pieces)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def post_times_ms(replica: Replica, at_least: int = 0) -> list[int]:
    """The times the replica logged for its ``POST /v1/words`` requests, in log order."""
    return [int(line.rsplit(" ", 1)[1].removesuffix("ms")) for line in replica.access_lines('"POST /v1/words ', at_least)]


@pytest.mark.slow
def test_a_slow_client_costs_a_replica_nothing(deployed: Deployment) -> None:
    """A body dribbled over 2 s: straight to a replica, the replica spends the 2 s on it (its access
    log says so); through nginx, the replica gets the whole body at once and spends milliseconds."""
    body = b'{"words": ["slow", "client"]}'
    direct = deployed.replicas[0]
    time.sleep(0.5)  # the lines of earlier tests written by now
    before = len(post_times_ms(direct))
    assert trickle(direct.base, "/v1/words", body, 2.0) == 200
    [straight] = post_times_ms(direct, before + 1)[before:]
    counts = [len(post_times_ms(r)) for r in deployed.replicas]
    assert trickle(deployed.base, "/v1/words", body, 2.0) == 200
    time.sleep(0.5)  # every line written by now
    [through] = [ms for r, n in zip(deployed.replicas, counts) for ms in post_times_ms(r)[n:]]
    assert straight >= 1500, straight  # the check can see a slow body
    assert through < 500, through


def healthz_p99_ms(base: str, seconds: int = 3, connections: int = 64) -> float:
    """p99 latency of ``GET /healthz`` under a bounded closed-loop load: wrk -t2 -c64 where installed,
    else 64 Python keep-alive connections."""
    if shutil.which("wrk"):
        out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", f"{base}/healthz"],
                             check=True, capture_output=True, text=True, timeout=seconds + 60).stdout
        value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()  # type: ignore[union-attr]  # wrk always prints the 99% line (the test fails otherwise)
        assert "Non-2xx" not in out, out
        timeouts = re.search(r"timeout (\d+)", out)
        if timeouts and int(timeouts.group(1)):
            return float("inf")  # wrk's 2 s timeout: those requests are missing from its percentiles
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    host, port = base.removeprefix("http://").split(":")
    latencies: list[float] = []
    stop = time.monotonic() + seconds

    def run() -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        mine = []
        while time.monotonic() < stop:
            start = time.perf_counter()
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            mine.append(time.perf_counter() - start)
        conn.close()
        latencies.extend(mine)

    threads = [threading.Thread(target=run) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return latencies[int(len(latencies) * 0.99)] * 1000


@pytest.mark.slow
def test_healthz_through_nginx_waits_in_no_queue(deployed: Deployment) -> None:
    """With the cache lock on /healthz, concurrent probes queued behind each other (p99 3.2 s against
    20 ms straight to a replica, issue 26). Now its p99 stays within 3x of the same load straight to
    one replica, or under a second where a loaded machine slows both (the better of two tries each): a queue
    behind the lock costs seconds, a shared machine's noise costs tens of ms (128 against 39.5 ms was seen with
    other test suites running beside it)."""
    direct = min(healthz_p99_ms(deployed.replicas[0].base) for _ in range(2))
    proxied = min(healthz_p99_ms(deployed.base) for _ in range(2))
    assert proxied <= max(3 * direct, 1000.0), (proxied, direct)
