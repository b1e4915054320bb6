"""What the PostgreSQL tests and the load harness (benchmarks/hosted_faults.py) share without pytest: where the
PostgreSQL binaries are, and a network namespace for one board replica whose link to the database can be cut."""
from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
import uuid


def binaries() -> str | None:
    """The folder of initdb and pg_ctl (on PATH, or Debian's /usr/lib/postgresql/N/bin), if installed."""
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(folders[-1]) if folders else None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Namespace:
    """A network namespace for one board replica, with two links to the host: one its clients reach it by, one to
    the database (the one the test cuts, as a pulled cable: packets dropped, nothing sent back)."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:6]
        self.name, self.client, self.db = f"uw25{tag}", f"uwc{tag}", f"uwd{tag}"
        n = random.randrange(1, 250)
        self.client_host, self.client_ns = f"10.252.{n}.1", f"10.252.{n}.2"
        self.db_host, self.db_ns = f"10.253.{n}.1", f"10.253.{n}.2"
        _ip("netns", "add", self.name)
        try:
            for link, host, inside in ((self.client, self.client_host, self.client_ns), (self.db, self.db_host,
                                                                                         self.db_ns)):
                _ip("link", "add", link, "type", "veth", "peer", "name", link + "n")
                _ip("link", "set", link + "n", "netns", self.name)
                _ip("addr", "add", f"{host}/24", "dev", link)
                _ip("link", "set", link, "up")
                _ip("-n", self.name, "addr", "add", f"{inside}/24", "dev", link + "n")
                _ip("-n", self.name, "link", "set", link + "n", "up")
            _ip("-n", self.name, "link", "set", "lo", "up")
        except BaseException:
            self.remove()
            raise

    def cut(self, cut: bool) -> None:
        _ip("link", "set", self.db, "down" if cut else "up")

    def remove(self) -> None:
        for link in (self.client, self.db):
            subprocess.run(["ip", "link", "del", link], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)


__all__ = ["Namespace", "binaries"]
