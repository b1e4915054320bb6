"""The repository's own habits, checked: ``make help`` lists every target, and BENCHMARKS.md keeps the
current results while their history lives in benchmarks/HISTORY.md."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def makefile_targets() -> list[str]:
    """The targets a user types (``name:`` at the start of a line, not a file or a variable)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return re.findall(r"^([a-z][a-z-]*):(?!=)", text, flags=re.MULTILINE)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_target_with_its_comment() -> None:
    done = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "help"], capture_output=True,
                          text=True, timeout=60, check=True)
    listed = {line.split()[0]: line.split(None, 1)[1] for line in done.stdout.splitlines() if line.strip()}
    targets = makefile_targets()
    assert {"help", "run", "test", "quick"} <= set(targets)
    assert sorted(listed) == sorted(targets), done.stdout
    assert all(len(text) > 10 for text in listed.values()), done.stdout


def test_make_alone_prints_the_help() -> None:
    assert re.search(r"^\.DEFAULT_GOAL := help$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)


def test_benchmarks_md_keeps_the_current_results_and_links_the_history() -> None:
    current = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    history = (ROOT / "benchmarks" / "HISTORY.md").read_text(encoding="utf-8")
    assert "## Current results" in current and "## History" not in current
    assert "](benchmarks/HISTORY.md)" in current
    anchors = {slug(line.lstrip("#")) for line in history.splitlines() if re.match(r"#+ ", line)}
    linked = re.findall(r"\]\(benchmarks/HISTORY\.md#([^)]+)\)", current)
    assert linked and set(linked) <= anchors, set(linked) - anchors


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_pages_cite_no_issue_numbers_and_close_every_code_fence() -> None:
    """docs/ is read by people who do not know the tracker; an unclosed fence turns the rest of a page into code."""
    problems = []
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        opened = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{page.relative_to(ROOT)}:{number}"
            if re.search(r"\bissues? \d+", line, re.IGNORECASE):
                problems.append(f"{where}: cites an issue")
            if line.lstrip().startswith("```"):
                if opened and line.strip() != "```":
                    problems.append(f"{where}: text after a closing fence")
                opened = not opened
        if opened:
            problems.append(f"{page.relative_to(ROOT)}: a code fence is never closed")
    assert problems == []
