"""A process on a pseudo-terminal, for the tests of ``uw-referee table`` at a real terminal: wait for what it
says, type keys."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time
from typing import NamedTuple


class Said(NamedTuple):
    """What the process said up to the end of a pattern: which pattern, its match, and the text."""

    which: int
    match: re.Match[str]
    text: str


class Terminal:
    """A process on a pseudo-terminal: wait for what it says, type keys."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def expect(self, *patterns: str | re.Pattern[str], timeout: float = 20.0) -> Said:
        """Wait until one of ``patterns`` (regular expressions, tried in order) is said; consume up to its end."""
        compiled = [re.compile(p) for p in patterns]
        end = time.monotonic() + timeout
        while True:
            for which, pattern in enumerate(compiled):
                found = pattern.search(self.seen)
                if found:
                    said, self.seen = self.seen[:found.end()], self.seen[found.end():]
                    return Said(which, found, said)
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {patterns}; the table said:\n{self.seen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the table ended; it said:\n{self.seen[-2000:]}")
                self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")

    def keys(self, text: str) -> None:
        """Type ``text`` as it is (escape sequences included)."""
        os.write(self.master, text.encode())

    def type(self, line: str) -> None:
        """Type ``line`` and Enter."""
        self.keys(line + "\n")

    def close(self) -> int:
        """Kill the process if it still runs; its exit code."""
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait(timeout=10)
        os.close(self.master)
        return code
