"""What ``bench_hosted.py`` runs its boards on and breaks under load (issue 25): a throw-away PostgreSQL cluster
started from the installed binaries (never the machine's shared server), board replicas as the command serves
them (each in its own session, optionally inside a network namespace), and the network namespace whose link to
the database the harness cuts, as ``tests/test_faults_pg.py`` does (packets dropped, nothing sent back).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tests' pytest-free support
from cluster_support import Namespace, binaries

#: The ports this harness uses (the lead gave 8700-8799): the cluster's, then the replicas'.
CLUSTER_PORT = 8799
BOARD_PORTS = (8701, 8702)


class Cluster:
    """A throw-away PostgreSQL cluster in a temporary folder, listening on ``hosts`` (comma-separated) at
    ``port``; ``stop`` and ``start`` again are a server restart. Settings: deploy/postgresql-uw.conf's that
    matter here (connections for two replicas' pools and the harness, a killed replica's lock released, group
    commit)."""

    def __init__(self, port: int = CLUSTER_PORT, hosts: str = "127.0.0.1") -> None:
        bindir = binaries()
        if bindir is None:
            raise SystemExit("no PostgreSQL binaries (initdb, pg_ctl): install postgresql or give --postgres")
        self.bindir, self.port, self.hosts = bindir, port, hosts
        self.folder = tempfile.mkdtemp(prefix="uw-bench25-pg-")
        self.data = os.path.join(self.folder, "data")
        self.run_as: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to nobody
            os.chmod(self.folder, 0o777)
            self.run_as = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        subprocess.run([*self.run_as, f"{bindir}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E",
                        "UTF8"], check=True, capture_output=True, timeout=120)
        with open(os.path.join(self.data, "pg_hba.conf"), "a", encoding="utf-8") as hba:
            hba.write("host all all 10.253.0.0/16 trust\n")  # the namespace's link (it listens there only)
        with open(os.path.join(self.data, "postgresql.conf"), "a", encoding="utf-8") as conf:
            conf.write("max_connections = 200\nidle_in_transaction_session_timeout = 10s\n"
                       "commit_delay = 200\ncommit_siblings = 4\n"
                       "tcp_keepalives_idle = 5\ntcp_keepalives_interval = 2\ntcp_keepalives_count = 2\n")
        self.start()
        import psycopg

        with psycopg.connect(self.address("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE test")

    def address(self, database: str = "test", host: str = "127.0.0.1") -> str:
        return f"postgresql://postgres@{host}:{self.port}/{database}"

    def start(self) -> None:
        subprocess.run([*self.run_as, f"{self.bindir}/pg_ctl", "-D", self.data, "-w", "-l",
                        os.path.join(self.folder, "log"), "-o",
                        f"-k {self.folder} -c listen_addresses='{self.hosts}' -p {self.port}", "start"],
                       check=True, capture_output=True, timeout=120)

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self.run_as, f"{self.bindir}/pg_ctl", "-D", self.data, "-m", mode, "stop"],
                       capture_output=True, timeout=60)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def can_cut() -> str | None:
    """Why a network cut cannot be made here (None: it can)."""
    if os.geteuid() != 0:
        return "a network namespace needs root"
    if shutil.which("ip") is None:
        return "no iproute2 (ip)"
    return None


#: How ``Server`` starts a board whose per-seat and per-address write limits are lifted (``lift=True``): a load
#: test measures the board, not the limits meant for people (20 actions a seat per 10 s caps a table of 4 phones
#: at 8 actions/s). The constants are set before the worker is forked, so it inherits them (any version).
LIFTED = ("import sys; import referee.board.seats as s; s.SEAT_ACTIONS = s.ADDRESS_WRITES = 10**9; "
          "sys.argv[0] = 'uw-referee'; from referee.cli import main; main()")


class Server:
    """``uw-referee board --players`` (or ``flags``) in its own session (optionally inside ``netns``), listening on
    ``host``:``port``, its errors in ``log``."""

    def __init__(self, db: str, port: int, log: Path, viewers: int, env: dict[str, str], host: str = "127.0.0.1",
                 netns: str | None = None, flags: tuple[str, ...] = ("--players",), lift: bool = False) -> None:
        self.host, self.port, self.log = host, port, log
        prefix = ["ip", "netns", "exec", netns] if netns else []
        command = ["-c", LIFTED] if lift else ["-m", "referee.cli"]
        with open(log, "ab") as err:
            self.proc = subprocess.Popen([*prefix, sys.executable, *command, "board", "--db", db,
                                          *flags, "--host", host, "--port", str(port), "--no-qr",
                                          "--max-per-address", "0", "--max-viewers", str(viewers)],
                                         stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                                         env={**os.environ, **env}, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://{host}:{port}/static/board.css", timeout=2).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit(f"the board on {host}:{port} did not start: {log.read_text()[-2000:]}") from None
                time.sleep(0.2)

    def pids(self) -> list[int]:
        """The master and its workers."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            kids = [int(p) for p in children.read_text().split()]
        except OSError:
            kids = []
        return [self.proc.pid, *kids]

    def kill(self) -> None:
        """kill -9 of the replica's whole process group (master and worker)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time (user + system, from the scheduler) the processes' threads have used."""
    total = 0
    for pid in pids:
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            continue
    return total / 1e9


__all__ = ["BOARD_PORTS", "CLUSTER_PORT", "Cluster", "Namespace", "Server", "binaries", "can_cut", "cpu_seconds"]
