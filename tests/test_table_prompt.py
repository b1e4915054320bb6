"""``uw-referee table`` at a real terminal (a pseudo-terminal): its prompt edits a line and recalls earlier
answers as a shell does (readline), so an arrow key moves the cursor instead of typing ``^[[D``."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import run

UP, LEFT = "\x1b[A", "\x1b[D"


class Terminal:
    """A process on a pseudo-terminal: wait for what it says, type keys."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def expect(self, pattern: str, timeout: float = 20.0) -> str:
        """Everything said up to the end of ``pattern`` (a regular expression), which is then consumed."""
        end = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.seen)
            if found:
                said, self.seen = self.seen[:found.end()], self.seen[found.end():]
                return said
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; the table said:\n{self.seen[-2000:]}")
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
        os.write(self.master, text.encode())

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait(timeout=10)
        os.close(self.master)
        return code


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal and readline")
def test_arrow_keys_edit_the_line_and_up_recalls_the_last_answer(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    run(db, "new", "Ann", "Bob", "--first", "Ann", check=True)
    env = {**os.environ, "UW_LANG": "en", "NO_COLOR": "1", "TERM": "xterm", "INPUTRC": "/dev/null",
           "COLUMNS": "200", "HOME": str(tmp_path)}
    table = Terminal([sys.executable, "-m", "referee.cli", "--db", str(db), "table"], env)
    try:
        table.expect(r"Ann, your word \(or 'discard LETTERS'\): ?")
        table.keys("tke\r")  # not a word: refused, and asked again
        said = table.expect(r"Ann, your word \(or 'discard LETTERS'\): ?")
        assert "TKE" in said and "Refused" in said
        table.keys(UP + LEFT + LEFT + "a\r")  # the last answer again, then 'a' typed after its T: TAKE
        said = table.expect(r"Ann, roll the d20: ?")
        assert "Ann plays TAKE for" in said and "^[" not in said and "\\x1b" not in said
        table.keys("12\r")
        table.expect(r"Bob, your word \(or 'discard LETTERS'\): ?")
        table.keys("/quit\r")
        said = table.expect(r"Continue with: uw-referee --db \S+ --game 1 table")
        assert table.proc.wait(timeout=20) == 0
    finally:
        table.close()
    assert "Ann plays TAKE" in run(db, "log").output
