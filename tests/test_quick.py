"""The quick path prints exactly what the Click commands print, errors included, and hands everything else over."""
from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee import quick
from referee.cli import cli


def run_quick(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = quick.run(args)
    monkeypatch.undo()
    return code, out.getvalue(), err.getvalue()


def run_click(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, args, prog_name="uw-referee")
    return result.exit_code, result.stdout, result.stderr


def same(db: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, write: bool = False) -> tuple[int, str, str]:
    """Run ``args`` through both paths (a write is undone in between) and check they agree."""
    full = ["--db", str(db), *args]
    quick_result = run_quick(full, monkeypatch)
    assert quick_result[0] is not None, f"{args} was handed over"
    if write and quick_result[0] == 0:
        assert run_click(["--db", str(db), "undo"])[0] == 0
    click_result = run_click(full)
    assert quick_result == click_result
    return click_result


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "games.sqlite3"
    assert run_click(["--db", str(path), "new", "Ann", "Bob", "--first", "Ann"])[0] == 0
    return path


def test_check_agrees(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for words in (["taps"], ["taps", "apts", "london", "it", "xyzzyq", "don't", "jazz"], ["CHAMP"]):
        same(db, ["check", *words], monkeypatch)


def test_status_agrees(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    same(db, ["status"], monkeypatch)
    same(db, ["status", "--json"], monkeypatch)
    same(db, ["--game", "1", "status"], monkeypatch)
    from referee import terminal

    try:  # --no-color holds for the rest of a run: put colour back for the other tests
        same(db, ["--no-color", "status"], monkeypatch)
        same(db, ["--no-color", "--game", "1", "status", "--json"], monkeypatch)
    finally:
        terminal._COLOR_OFF[0] = False
    same(db, ["games"], monkeypatch)
    code, _, err = same(db, ["--game", "7", "status"], monkeypatch)
    assert code == 1 and err.startswith("Error: there is no game 7")


def test_play_agrees_through_a_game(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plays = [("taps", "12"), ("champ", "3"), ("look", "20"), ("taps", "5"), ("xyzzyq", "5"), ("london", "9"),
             ("rum", "1")]
    codes = []
    for word, roll in plays:
        code, _, _ = same(db, ["play", word, "--roll", roll], monkeypatch, write=True)  # the Click path's play stays
        codes.append(code)
    assert 0 in codes and 1 in codes  # some plays pass, some are refused (TAPS again, XYZZYQ)
    same(db, ["status"], monkeypatch)


@pytest.mark.parametrize("args", [
    [], ["check"], ["check", "--level", "70", "taps"], ["check", "taps", "--json"], ["status", "--help"],
    ["play", "taps"], ["play", "taps", "--roll", "21"], ["play", "taps", "--roll", "0"], ["play", "--allow", "x"],
    ["play", "taps", "--allow", "--roll", "3"], ["--game", "x", "status"], ["--game", "0", "status"], ["--db"],
    ["games", "--json"], ["new", "A", "B"], ["--version"], ["paly", "taps"], ["--db", "", "status"],
])
def test_other_forms_are_handed_over(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_quick(args, monkeypatch)[0] is None


def test_a_bad_word_is_said_as_click_says_it_and_judged_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad word is a usage error (exit 2) with the Click command's usage line, from the one mapping of errors
    (referee.failures); the quick path no longer hands it over for Click to judge the word again."""
    import dictionaries.verdict
    from referee.actions import Referee

    judged: list[str] = []
    judge, prepare = dictionaries.verdict.judge, Referee.prepare

    def counted_judge(dictionary: Any, word: str, *rest: Any) -> Any:
        judged.append(word)
        return judge(dictionary, word, *rest)

    def counted_prepare(self: Referee, game_id: int | None, word: str) -> Any:
        judged.append(word)
        return prepare(self, game_id, word)

    for args in (["check", "t4ps"], ["play", "t4ps", "--roll", "3"]):
        judged.clear()
        monkeypatch.setattr(dictionaries.verdict, "judge", counted_judge)
        monkeypatch.setattr(Referee, "prepare", counted_prepare)
        code, out, err = run_quick(["--db", str(db), *args], monkeypatch)  # undoes the patches when done
        assert judged == ["t4ps"], args
        assert (code, out, err) == run_click(["--db", str(db), *args])
        assert code == 2 and err.startswith(f"Usage: uw-referee {args[0]} ") and "Invalid value for WORD" in err


def test_every_failure_is_said_by_both_paths_alike(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal (exit 1, with how to overrule it), a store error (exit 1) and a request that does not fit the
    game (exit 2), each the same bytes by both paths."""
    assert same(db, ["play", "cthulhu", "--roll", "3"], monkeypatch, write=True)[0] == 1
    assert same(db, ["--game", "9", "play", "taps", "--roll", "3"], monkeypatch)[0] == 1
    assert run_click(["--db", str(db), "new", "Cy", "Di", "--dice", "virtual"])[0] == 0
    code, _, err = same(db, ["play", "taps", "--roll", "3"], monkeypatch)  # virtual dice: no roll is typed
    assert code == 2 and err.startswith("Usage: uw-referee play ")


@pytest.mark.slow
@pytest.mark.parametrize("args", [["check", "taps"], ["status"], ["play", "taps", "--roll", "12"]])
def test_the_quick_path_loads_none_of_the_heavy_modules(db: Path, args: list[str]) -> None:
    """What makes start-up slow stays out: Click, Flask, dataclasses (and inspect), typing, pathlib
    (benchmarks/bench_referee.py measures the time; this keeps the reason from coming back)."""
    import subprocess

    heavy = ("click", "flask", "dataclasses", "inspect", "typing", "pathlib", "platformdirs")
    # Modules the interpreter already holds before the command (an editable install's import
    # finder loads pathlib at start-up) are not the command's doing.
    code = (f"import sys; before = set(sys.modules); from referee import quick; "
            f"code = quick.run({['--db', str(db), *args]!r}); "
            f"print(code, [m for m in {heavy!r} if m in sys.modules and m not in before])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "0 []"
