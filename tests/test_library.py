"""The library's front door (issue 20): what ``referee`` exports, a set-up checked when built, the roll
given once, verdicts only from the referee, and docs/library.md's bot playing a whole game."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import referee
from dictionaries.dictionary import Dictionary
from dictionaries.verdict import Verdict

DOC = Path(__file__).resolve().parent.parent / "docs" / "library.md"


def test_the_package_exports_its_surface_with_docstrings() -> None:
    for name in ("Referee", "Store", "Setup", "Options", "RollOff", "Result", "Waiting", "Outcome", "RulesError",
                 "SetupError", "GameChanged", "StoreError", "RequestError", "AmendRefused", "Seen"):
        assert name in referee.__all__
        assert (getattr(referee, name).__doc__ or "").strip(), name


def test_importing_the_package_loads_nothing_it_does_not_use() -> None:
    code = "import sys, referee; print(sorted(m for m in sys.modules if m.startswith('referee.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("bad", [dict(level=61), dict(target=True), dict(target=0), dict(players=["A", "B"]),
                                 dict(seed="7"), dict(card_accounting="yes"), dict(dice="loaded")])
def test_a_setup_no_game_can_be_played_with_is_refused_when_built(bad: dict[str, Any]) -> None:
    args = {"players": ("A", "B"), **bad}
    with pytest.raises(referee.SetupError):
        referee.Setup(**args)


def test_the_library_defaults_are_the_commands(tmp_path: Path) -> None:
    assert referee.Setup(players=("A", "B")).card_accounting is True
    from click.testing import CliRunner

    from referee.cli import cli

    CliRunner().invoke(cli, ["--db", str(tmp_path / "g.db"), "new", "A", "B", "--first", "A"])
    _, setup = referee.Store(tmp_path / "g.db").setup(None)
    default = referee.Setup(players=("A", "B"))
    assert (setup.card_accounting, setup.target, setup.level, setup.dice, setup.options) == \
        (default.card_accounting, default.target, default.level, default.dice, default.options)


def test_the_roll_is_given_once_and_a_verdict_made_elsewhere_is_refused(tmp_path: Path,
                                                                           dictionary: Dictionary) -> None:
    ref = referee.Referee(referee.Store(tmp_path / "g.db"), lambda: dictionary)
    gid = ref.start(referee.Setup(players=("A", "B")), referee.RollOff(first="A")).game_id
    with pytest.raises(TypeError):
        ref.prepare(gid, "cat", roll=3)  # type: ignore[call-arg]  # the call the test expects to be refused
    prepared = ref.prepare(gid, "zzxq")
    assert isinstance(prepared.verdict, Verdict) and not prepared.verdict.legal
    forged = referee.Prepared(gid, prepared.setup, prepared.verdict)  # the same facts, not from this referee
    with pytest.raises(referee.RequestError, match="judged by this referee"):
        ref.play(forged, roll=3)
    other = referee.Referee(ref.store, lambda: dictionary)
    with pytest.raises(referee.RequestError, match="judged by this referee"):
        other.play(prepared, roll=3)
    assert ref.play(ref.prepare(gid, "cat"), roll=12).state.player("A").score == 7


def test_undo_and_redo_say_what_they_hold(tmp_path: Path, dictionary: Dictionary) -> None:
    ref = referee.Referee(referee.Store(tmp_path / "g.db"), lambda: dictionary)
    gid = ref.start(referee.Setup(players=("A", "B")), referee.RollOff(first="A")).game_id
    ref.play(ref.prepare(gid, "cat"), roll=12)
    undone = ref.undo(gid)
    assert [e.kind for e in undone.removed] == ["word_played", "sanity_rolled"] and not undone.restored
    redone = ref.redo(gid)
    assert [e.kind for e in redone.restored] == ["word_played", "sanity_rolled"] and not redone.removed


def test_the_guide_s_bot_plays_a_whole_game() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 2
    out = subprocess.run([sys.executable, "-c", blocks[1]], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"(Ada|Bot) wins with \d+ points after \d+ turns\n", out.stdout)
    exec(compile(blocks[0], "library.md", "exec"), {})  # the imports it shows exist
