"""The commit-msg check (pre-commit's commit-msg stage, .pre-commit-config.yaml): a subject of at most 72
characters, and a blank line before the body (which says why).

    python -m tools.commit_msg .git/COMMIT_EDITMSG      # exit 1, with one line saying what to change

git's comment lines (``#``) and the diff that ``git commit -v`` appends are not the message.
"""
from __future__ import annotations

import sys
from pathlib import Path

MOST = 72
SCISSORS = "# ------------------------ >8 ------------------------"


def problems(message: str) -> list[str]:
    """What is wrong with a commit message, one sentence each (none: it may be committed)."""
    lines = []
    for line in message.splitlines():
        if line.startswith(SCISSORS):
            break
        if not line.startswith("#"):
            lines.append(line.rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    if not lines:
        return ["the message is empty"]
    found = []
    subject = lines[0]
    if len(subject) > MOST:
        found.append(f"the subject has {len(subject)} characters; keep it to {MOST} and say the rest in the body")
    if len(lines) > 1 and lines[1]:
        found.append("leave a blank line between the subject and the body")
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tools.commit_msg MESSAGE_FILE", file=sys.stderr)
        return 2
    found = problems(Path(args[0]).read_text(encoding="utf-8"))
    for problem in found:
        print(f"commit message: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
