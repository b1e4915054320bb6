"""The nginx zones of deploy/hosted-nginx.conf under load (issue 35, point 7): real nginx, as shipped but for its
ports, in front of one hosted board (``UW_BOARD_PROXIES=127.0.0.1``) and two word service replicas. One address
(127.0.0.1) floods each zone with ``wrk -c90`` while another address (127.0.0.3) reads through the same nginx, in
rounds between baselines (``bench_hosted_attacks``'s method): how many of the flood's requests reached the board
or the service, how many nginx cut (429), and another address's read under the flood against its baseline.

    python benchmarks/hosted_nginx.py --python /tmp/venv/bin/python --db sqlite
    python benchmarks/hosted_nginx.py --python /tmp/venv/bin/python --db postgresql://postgres@127.0.0.1/test

The floods: ``api``, a seat's verdicts (the players' API zone, then the board's own read limits); ``start``, POST
/api/tables (the table-start zone); ``join``, the join page with the table's code (the join zone); ``racks``, rack
searches of seven random letters, each a cache miss (the rack search's zone and connection cap), against another
address's rack searches, also misses. Run it with the Python of a normal ``pip install .`` (nginx and wrk from
``tests/setup_nginx.sh``).
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_hosted_attacks as attacks  # (beside this file)

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
#: The flood's Lua per zone (``bench_hosted_attacks.COUNT_LUA`` counts the statuses).
RACK_LUA = """
local letters = "AAEEIIOOUSTRNLDPMCGBHKYWFV"
function request()
  local rack = {}
  for i = 1, 7 do local k = math.random(1, #letters); rack[i] = letters:sub(k, k) end
  return wrk.format(nil, "/v1/racks/" .. table.concat(rack))
end
"""
START_LUA = """
wrk.method = "POST"
wrk.body = '{"players": ["Ann", "Bob"], "dice": "virtual"}'
wrk.headers["Content-Type"] = "application/json"
"""
LETTERS = "AAEEIIOOUSTRNLDPMCGBHKYWFV"


class Site:
    """nginx with deploy/hosted-nginx.conf (its ports changed) in front of the board and two service replicas."""

    def __init__(self, python: str, prefix: Path, board_port: int) -> None:
        self.prefix, self.port, self.replicas = prefix, attacks.free_port(), []
        ports = [attacks.free_port(), attacks.free_port()]
        env = {**os.environ, "WEB_CONCURRENCY": "1", "UW_ACCESS_LOG": "off"}
        for port in ports:
            self.replicas.append(subprocess.Popen([str(Path(python).with_name("uw-service")), "--port", str(port)],
                                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                  start_new_session=True, cwd=tempfile.gettempdir()))
        conf = (ROOT / "deploy" / "hosted-nginx.conf").read_text()
        for default, port in (("8101", board_port), ("8102", attacks.free_port()), ("8001", ports[0]),
                              ("8002", ports[1])):
            assert f"server 127.0.0.1:{default}" in conf
            conf = conf.replace(f"server 127.0.0.1:{default}", f"server 127.0.0.1:{port}")
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        (prefix / "tmp").mkdir(exist_ok=True)
        (prefix / "nginx.conf").write_text(conf)
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        self.nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", directives],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for port in (*ports, self.port):
            self._wait(f"http://127.0.0.1:{port}/healthz")

    def _wait(self, url: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url, timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit(f"{url} did not answer")

    def stop(self) -> None:
        self.nginx.terminate()
        self.nginx.wait(30)
        for replica in self.replicas:
            os.killpg(replica.pid, signal.SIGTERM)
            replica.wait(30)


def rack() -> str:
    return "/v1/racks/" + "".join(random.choice(LETTERS) for _i in range(7))


def measure(site: Site, kind: str, rounds: int, seconds: int, made: dict[str, Any], token: str,
            mine: dict[str, Any], mine_token: str) -> str:
    """The flood ``kind`` in ``rounds`` between baselines: a line of figures."""
    base_url = f"http://127.0.0.1:{site.port}"
    if kind == "racks":
        path: Any = rack
        victim_token: str | None = None
        every = 0.5  # under the rack search's 5 a second
        target, lua, weapon = f"{base_url}/v1/racks/AEIRST", RACK_LUA, None
    else:
        path, victim_token, every = f"/api/games/{mine['game']}/verdict?word=cat", mine_token, 0.25
        target, lua, weapon = {
            "api": (f"{base_url}/api/games/{made['game']}/verdict?word=cat", "", token),
            "start": (f"{base_url}/api/tables", START_LUA, None),
            "join": (f"{base_url}/games/{made['game']}/join?code={made['code']}", "", None),
        }[kind]
    attacks.victim_reads(site.port, path, victim_token, 3, every)  # warm-up
    bases, floods, outs = [], [], []
    seen: dict[str, int] = {}
    for round_ in range(rounds + 1):
        bases.append(attacks.victim_reads(site.port, path, victim_token, seconds, every))
        if round_ == rounds:
            break
        logged = (site.prefix / "access.log").stat().st_size
        found: dict[str, str] = {}
        flooding = threading.Thread(target=lambda out=found: out.update(out=attacks.wrk(
            target, lua, 90, seconds + 1, weapon)))
        flooding.start()
        time.sleep(0.3)  # wrk connected: its first burst of allowed reads is measured too
        floods.append(attacks.victim_reads(site.port, path, victim_token, seconds, every))
        flooding.join()
        outs.append(found["out"])
        time.sleep(5)
        with (site.prefix / "access.log").open("rb") as log:
            log.seek(logged)
            for line in log.read().decode(errors="replace").splitlines():
                if line.startswith("127.0.0.1 "):  # the flood's (the victim is 127.0.0.3)
                    status = line.split('" ', 1)[1].split()[0]
                    who = "nginx" if "upstream=- " in line else "upstream"
                    seen[f"{who} {status}"] = seen.get(f"{who} {status}", 0) + 1
    rates = [float(m.group(1)) for out in outs if (m := re.search(r"Requests/sec:\s+([\d.]+)", out))]
    each = [statistics.median(floods[i]) / statistics.median(bases[i] + bases[i + 1]) for i in range(rounds)]
    (b50, b90), (u50, u90) = attacks.quantiles([t for b in bases for t in b]), \
        attacks.quantiles([t for f in floods for t in f])
    answered = ", ".join(f"{k} {v}" for k, v in sorted(seen.items()))
    return (f"nginx {kind}: another address's {'rack search' if kind == 'racks' else 'verdict'}, median of the "
            f"rounds x{statistics.median(each):.2f} (each x{', x'.join(f'{r:.2f}' for r in each)}); all reads' "
            f"median {b50:.1f} -> {u50:.1f} ms (x{u50 / b50:.2f}), p90 {b90:.1f} -> {u90:.1f} ms (x{u90 / b90:.2f}); "
            f"wrk {statistics.mean(rates):.0f} req/s for {rounds} x {seconds + 1} s; the flood's answers (nginx's "
            f"access log: nginx's own or the upstream's, by status): {answered}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the Python of a normal install of the project")
    parser.add_argument("--db", default="sqlite", help="sqlite, or a PostgreSQL address")
    parser.add_argument("--floods", nargs="+", choices=("api", "start", "join", "racks"),
                        default=["api", "start", "join", "racks"])
    parser.add_argument("--seconds", type=int, default=11,
                        help="each baseline's and each flood's: over 10 s, a whole window of the board's allowances")
    parser.add_argument("--rounds", type=int, default=3, help="floods, each between two baselines")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    os.environ["UW_BOARD_PROXIES"] = "127.0.0.1"
    with tempfile.TemporaryDirectory() as folder:
        board = attacks.Board(args.python, attacks.database(args.db, f"{folder}/db"), "127.0.0.1")
        site = None
        try:
            site = Site(args.python, Path(folder), board.port)
            made, token = attacks.table(site.port, "127.0.0.1")
            mine, mine_token = attacks.table(site.port, "127.0.0.3")
            for kind in args.floods:
                print(measure(site, kind, args.rounds, args.seconds, made, token, mine, mine_token), flush=True)
        finally:
            if site is not None:
                site.stop()
            board.stop()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
