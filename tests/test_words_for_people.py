"""Every command's human output speaks to people (issue 9, point 5): no reason or phase codes, plurals
right, hints in the form of the mode in use. The codes stay in --json."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_transcripts import CASES, run_transcript

from dictionaries.verdict import REASON_CODES
from referee.cli import LAZY_COMMANDS, cli
from referee.engine import Phase, Termination

CODES = sorted({*REASON_CODES, "used", "discard_pile", "not_a_word", *(p.value for p in Phase if "_" in p.value),
                *(t.value for t in Termination if "_" in t.value), "word_played", "sanity_rolled", "bind_done"})
WORDLIKE = sorted(c for c in CODES if "_" not in c)  # "used", "unknown": English too, so only caught as "(used)"
LEAKED = re.compile(r"\b(" + "|".join(c for c in CODES if "_" in c) + r")\b|\((" + "|".join(WORDLIKE)
                    + r"|action|sanity|over)\)|\d events?\)")
PLURAL = re.compile(r"(?<![\w.-])1 (points|letters|players|cards|pawns|actions|events|words|rolls)\b"
                    r"|(?<![\w.-])(0|[2-9]|\d\d+) (point|letter|player|card|pawn|action|event)(?![\w-]| cards?\b)")
NEEDS = re.compile(r"\(an? \d+\)")


def human_outputs(tmp_path: Path) -> list[tuple[str, str]]:
    """(command, output) for every transcript command and every command's help, --json and export left out."""
    outputs = []
    for name in CASES:
        _, results = run_transcript(name, tmp_path / f"{name}.sqlite3")
        outputs += [(f"{name}: {line}", out) for line, _, out in results
                    if "--json" not in line and not line.startswith("export")]
    runner = CliRunner()
    for command in ["", *sorted(LAZY_COMMANDS), "check", "score", "words"]:
        if command == "board":
            continue
        args = [command, "--help"] if command else ["--help"]
        outputs.append((" ".join(args), runner.invoke(cli, args).output))
    db = str(tmp_path / "table.sqlite3")
    for args in (["rules"], ["games"], ["check", "london", "nasa", "it", "jazz", "xyzzy", "don't"],
                 ["words", "qxz"], ["score", "a"]):
        result = runner.invoke(cli, ["--db", db, *args])
        outputs.append((" ".join(args), result.output))
    return outputs


def test_no_codes_and_right_plurals_in_any_human_output(tmp_path: Path) -> None:
    outputs = human_outputs(tmp_path)
    assert len(outputs) > 100
    problems = []
    for command, out in outputs:
        for line in out.splitlines():
            for pattern in (LEAKED, PLURAL, NEEDS):
                found = pattern.search(line)
                if found:
                    problems.append(f"{command}: {found.group(0)!r} in {line!r}")
    assert problems == []


@pytest.mark.parametrize("text", ["1 points", "1 letters", "2 point", "(proper_noun)", "(unknown)", "(2 events)",
                                  "0 pawn", "Waiting for Ann's sanity roll for WIZARD (a 20)."])
def test_the_check_catches_what_it_must(text: str) -> None:
    assert any(p.search(text) for p in (LEAKED, PLURAL, NEEDS))


def test_table_mode_gives_table_hints(tmp_path: Path) -> None:
    _, results = run_transcript("table", tmp_path / "g.sqlite3")
    table = [out for line, _, out in results if line == "table"][0]
    assert "--allow" not in table and "bind --done" not in table and "uw-referee roll" not in table
    assert "add '!' after the word" in table and "add '!' after the letters" in table
