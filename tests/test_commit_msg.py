"""tools/commit_msg.py (the commit-msg hook) and .pre-commit-config.yaml's hooks, as make quick runs its tools."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tools.commit_msg import main, problems

ROOT = Path(__file__).resolve().parent.parent


def test_a_subject_of_72_characters_with_a_body_passes() -> None:
    assert problems("x" * 72 + "\n\nWhy: because.\n") == []
    assert problems("Short subject\n") == []


def test_a_long_subject_is_refused_with_its_length() -> None:
    assert problems("x" * 73 + "\n\nbody\n") == [
        "the subject has 73 characters; keep it to 72 and say the rest in the body"]


def test_git_comments_and_the_verbose_diff_are_not_the_message() -> None:
    message = "# Please enter the commit message\n\nFix the thing\n\nWhy.\n# a comment\n" \
              "# ------------------------ >8 ------------------------\n" + "diff --git " + "y" * 200 + "\n"
    assert problems(message) == []
    assert problems("# only comments\n\n") == ["the message is empty"]


def test_the_body_starts_after_a_blank_line() -> None:
    assert problems("Subject\nbody at once\n") == ["leave a blank line between the subject and the body"]


def test_the_hook_exits_1_and_says_why(tmp_path: Path) -> None:
    message = tmp_path / "COMMIT_EDITMSG"
    message.write_text("y" * 100 + "\n")
    done = subprocess.run([sys.executable, "-m", "tools.commit_msg", str(message)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        1, "commit message: the subject has 100 characters; keep it to 72 and say the rest in the body\n")
    message.write_text("Fine\n\nbody\n")
    assert main([str(message)]) == 0


def test_pre_commit_runs_what_make_quick_runs() -> None:
    """The pre-commit hooks call make quick's ruff and mypy commands, and the commit-msg check."""
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    quick = makefile.split("\nquick:", 1)[1].split("\n\n", 1)[0]
    for tool in ("ruff check .", "mypy"):
        assert f"$(BIN)/{tool})" in quick and f"entry: .venv/bin/{tool}\n" in config
    assert re.search(r"entry: \.venv/bin/python -m tools\.commit_msg\n\s+language: system\n\s+stages: \[commit-msg\]",
                     config)
    assert "default_install_hook_types: [pre-commit, commit-msg]" in config
