"""``uw-referee table`` at a real terminal (a pseudo-terminal): its prompt edits a line and recalls earlier
answers as a shell does (readline), so an arrow key moves the cursor instead of typing ``^[[D``."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from cli_support import run
from pty_support import Terminal

UP, LEFT = "\x1b[A", "\x1b[D"


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
        said = table.expect(r"Ann, your word \(or 'discard LETTERS'\): ?").text
        assert "TKE" in said and "Refused" in said
        table.keys(UP + LEFT + LEFT + "a\r")  # the last answer again, then 'a' typed after its T: TAKE
        said = table.expect(r"Ann, roll the d20: ?").text
        assert "Ann plays TAKE for" in said and "^[" not in said and "\\x1b" not in said
        table.keys("12\r")
        table.expect(r"Bob, your word \(or 'discard LETTERS'\): ?")
        table.keys("/quit\r")
        said = table.expect(r"Continue with: uw-referee --db \S+ --game 1 table").text
        assert table.proc.wait(timeout=20) == 0
    finally:
        table.close()
    assert "Ann plays TAKE" in run(db, "log").output
