"""Helpers shared by the reliability scripts and tests: the real ``uw-referee`` in a subprocess,
read-only looks at its database, legal words, gunicorn on loopback and worker memory from /proc."""
from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The real CLI in a fresh interpreter (the entry point ``referee.cli:main``, as ``uw-referee`` runs it).
REFEREE: tuple[str, ...] = (sys.executable, "-c", "from referee.cli import main; main()")
#: The web command of the Procfile, bound to loopback (``{port}`` is filled in).
GUNICORN: tuple[str, ...] = (str(Path(sys.executable).with_name("gunicorn")), "--config", "service/gunicorn_conf.py",
                             "--bind", "127.0.0.1:{port}", "service.app:create_app()")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without the developer's UW_* settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UW_")}
    env.update(extra)
    return env


@dataclass
class Outcome:
    """How one command ended."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        return f"uw-referee {' '.join(self.args)} -> exit {self.code}: {(self.stderr or self.stdout).strip()[:300]!r}"


def run_referee(db: Path, *args: str, timeout: float = 60, env: dict[str, str] | None = None) -> Outcome:
    """Run ``uw-referee ARGS`` on ``db`` to the end (stdin closed: a prompt gets end of input)."""
    started = time.perf_counter()
    done = subprocess.run([*REFEREE, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env=env or clean_env(UW_REFEREE_DB=str(db)), cwd=db.parent, timeout=timeout)
    return Outcome(tuple(args), done.returncode, done.stdout, done.stderr, time.perf_counter() - started)


def start_referee(db: Path, *args: str) -> subprocess.Popen[str]:
    """Start ``uw-referee ARGS`` on ``db`` without waiting (the kill test's victim)."""
    return subprocess.Popen([*REFEREE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, env=clean_env(UW_REFEREE_DB=str(db)), cwd=db.parent)


# -- the database, read-only ----------------------------------------------------------------------

def connect_ro(db: Path, timeout: float = 10) -> sqlite3.Connection:
    """A read-only connection: looking never checkpoints, recovers or changes the file."""
    return sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)


def integrity(db: Path) -> str:
    """``PRAGMA integrity_check`` of the database ("ok" when sound), or the error opening it."""
    try:
        con = connect_ro(db)
        try:
            rows = con.execute("PRAGMA integrity_check").fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:
        return f"cannot check: {exc}"
    return "ok" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows[:5])


Event = tuple[str, dict[str, Any]]  # (recorded at, the event as stored)


@dataclass
class Snapshot:
    """Every game of the database: its events in order (seq 0..n-1 checked)."""

    games: dict[int, list[Event]] = field(default_factory=dict)

    def events(self, game: int) -> list[Event]:
        return self.games.get(game, [])


def snapshot(db: Path) -> Snapshot:
    """Read every game and event; a gap in the sequence numbers is an error."""
    con = connect_ro(db)
    try:
        games: dict[int, list[Any]] = {gid: [] for (gid,) in con.execute("SELECT id FROM games ORDER BY id")}
        for gid, seq, at, data in con.execute("SELECT game_id, seq, at, data FROM events ORDER BY game_id, seq"):
            events = games.setdefault(gid, [])
            if seq != len(events):
                raise AssertionError(f"game {gid}: event seq {seq} where {len(events)} was expected")
            events.append((at, json.loads(data)))
    finally:
        con.close()
    return Snapshot(games)


# -- words ----------------------------------------------------------------------------------------

def legal_words(count: int, seed: int = 0) -> list[str]:
    """``count`` different words that are legal at size 60 with the standard deck, shuffled by ``seed``."""
    from dictionaries.dictionary import open_dictionary
    from dictionaries.verdict import judge

    dictionary = open_dictionary()
    # Every playable spelling (a rack now holds only a hand, too few letters to gather thousands of words).
    words = sorted(key.upper() for key in dictionary._words.iterkeys()
                   if 3 <= len(key) <= 7 and judge(dictionary, key, 60).legal)
    random.Random(seed).shuffle(words)
    if len(words) < count:
        raise ValueError(f"only {len(words)} legal words available, {count} wanted")
    return words[:count]


# -- the word service under gunicorn --------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def kib(pid: int) -> dict[str, int]:
    """VmRSS, RssAnon and RssFile of a process in KiB, from /proc/PID/status."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0])
    return out


def child_pids(pid: int) -> list[int]:
    """The direct children of ``pid`` (gunicorn's workers), from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return sorted(found)


class Server:
    """gunicorn with the service, as the Procfile starts it, on a free loopback port; log in a file."""

    def __init__(self, workers: int | None = None, threads: int | None = None, env: dict[str, str] | None = None,
                 args: Sequence[str] = GUNICORN) -> None:
        """``workers`` and ``threads`` override the config's counts (WEB_CONCURRENCY, GUNICORN_THREADS)."""
        self.port = free_port()
        self.workers = workers or 1  # at least this many must be up before start() returns
        self.log_file = tempfile.NamedTemporaryFile(prefix="uw-gunicorn-", suffix=".log", delete=False)
        counts = {"WEB_CONCURRENCY": workers, "GUNICORN_THREADS": threads}
        self.env = {**clean_env(), **{k: str(v) for k, v in counts.items() if v}, **(env or {})}
        self.args = [a.format(port=self.port) for a in args]
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.remove_log()

    def start(self, wait: float = 30) -> None:
        self.process = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=self.log_file, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited at start (status {self.process.returncode}):\n{self.log()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as answer:
                    if answer.status == 200 and len(self.worker_pids()) >= self.workers:
                        self._settle(deadline)
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer /healthz within {wait} s:\n{self.log()[-3000:]}")

    def _settle(self, deadline: float) -> None:
        """Wait until every worker has booted: the same workers for half a second."""
        seen, steady = self.worker_pids(), 0
        while steady < 5 and time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.worker_pids()
            steady = steady + 1 if now == seen else 0
            seen = now

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        return child_pids(self.process.pid)

    def memory(self) -> dict[int, dict[str, int]]:
        """Each worker's memory in KiB."""
        return {pid: kib(pid) for pid in self.worker_pids()}

    def log(self) -> str:
        return Path(self.log_file.name).read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int | None:
        """SIGTERM (a graceful stop) and the exit status; the log file is removed."""
        status = None
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                status = self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                status = self.process.wait()
        elif self.process is not None:
            status = self.process.returncode
        return status

    def remove_log(self) -> None:
        self.log_file.close()
        Path(self.log_file.name).unlink(missing_ok=True)


def lines(text: str) -> Iterator[str]:
    """The non-empty lines of ``text``."""
    return (line for line in text.splitlines() if line.strip())
