"""The word commands of uw-referee through Click's runner: check, score, words, --version, help."""
from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from referee.cli import cli


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def run(runner: CliRunner, *args: str) -> click.testing.Result:
    return runner.invoke(cli, list(args), catch_exceptions=False)


def test_check_legal_word(runner: CliRunner) -> None:
    result = run(runner, "check", "taps")
    assert result.exit_code == 0
    assert "TAPS: legal, 10 points (T2 A5 P3 S0)" in result.output


def test_check_illegal_word_exits_1_with_reasons(runner: CliRunner) -> None:
    result = run(runner, "check", "taps", "apts", "london")
    assert result.exit_code == 1
    assert "APTS is an abbreviation" in result.output
    assert "LONDON is a proper noun" in result.output


def test_check_json_has_exactly_the_verdict_fields(runner: CliRunner) -> None:
    result = run(runner, "check", "--json", "flam", "taps")
    data = json.loads(result.output)
    assert [set(v) for v in data] == [{"word", "legal", "reasons", "score", "letters", "level", "success_chance"}] * 2
    assert data[0]["reasons"][0]["code"] == "uncommon" and data[1]["legal"] is True
    assert result.exit_code == 1


def test_check_level(runner: CliRunner) -> None:
    assert run(runner, "check", "--level", "70", "flam").exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "ta2ps"], "'2'"),
        (["check", "--level", "61", "taps"], "61"),
        (["check"], "Missing argument"),
        (["words", "abc1"], "'1'"),
        (["words", "a" * 8], "at most 7"),
        (["words", "abc", "--limit", "0"], "0"),
        (["score", "a b"], "' '"),
        (["check", "--deck", "nope.json", "taps"], "neither"),
    ],
)
def test_usage_errors_exit_2(runner: CliRunner, args: list[str], message: str) -> None:
    result = run(runner, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_score_any_letters(runner: CliRunner) -> None:
    result = run(runner, "score", "champ", "xqzzt")
    assert result.exit_code == 0
    assert "CHAMP: 15 points (C0 H4 A5 M3 P3)" in result.output
    assert "XQZZT: 12 points" in result.output
    data = json.loads(run(runner, "score", "--json", "rum").output)
    assert data == [{"word": "RUM", "score": 7, "letters": [{"letter": "R", "points": 4}, {"letter": "U", "points": 0},
                                                          {"letter": "M", "points": 3}]}]


def test_words_best_first(runner: CliRunner) -> None:
    result = run(runner, "words", "oofmakl", "--limit", "3")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("22 words from OOFMAKL at size 60")  # OOF (issue 11); MAKO, MOA, OKA (issue 19)
    assert "FLAK" in lines[1]


def test_words_json(runner: CliRunner) -> None:
    data = json.loads(run(runner, "words", "--json", "taps", "--limit", "2").output)
    assert data == {"letters": "TAPS", "words": [{"word": "PAST", "score": 10, "success_chance": 0.55},
                                                 {"word": "PATS", "score": 10, "success_chance": 0.55}]}


def test_words_takes_a_hand_at_most(runner: CliRunner) -> None:
    """The service's bound: a rack is a hand (7 letters); more is a usage error, said in the table's language."""
    assert run(runner, "words", "aeilnrs").exit_code == 0
    result = run(runner, "words", "aeilnrst")
    assert result.exit_code == 2
    assert "'aeilnrst' has 8 letters; a rack is a hand, at most 7 letters" in result.output
    result = run(runner, "--lang", "es", "words", "aeilnrst")
    assert result.exit_code == 2 and "'aeilnrst' tiene 8 letras; una mano tiene como máximo 7 letras" in result.output


def test_words_limit_shows_the_best_of_all(runner: CliRunner) -> None:
    whole = json.loads(run(runner, "words", "--json", "aeilnrs", "--level", "95").output)["words"]
    assert json.loads(run(runner, "words", "--json", "aeilnrs", "--level", "95", "--limit", "4").output)["words"] == whole[:4]
    assert run(runner, "words", "aeilnrs", "--limit", "4").output.splitlines()[0].endswith("(showing 4):")


def test_words_none_found(runner: CliRunner) -> None:
    result = run(runner, "words", "qqq")
    assert result.exit_code == 0 and "No legal word" in result.output


def test_version(runner: CliRunner) -> None:
    result = run(runner, "--version")
    assert result.exit_code == 0 and "uw-referee" in result.output


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command, including the lazily loaded game commands."""
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(all_commands(command, (*prefix, name)))
    return found


def test_all_game_commands_are_listed() -> None:
    names = {path[0] for path in all_commands(cli)}
    assert {"check", "score", "words", "new", "play", "roll", "discard", "bind", "status", "log", "undo", "games",
            "export", "table"} <= names


@pytest.mark.parametrize("path", all_commands(cli))
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_every_command_has_help_with_an_example(runner: CliRunner, path: tuple[str, ...], flag: str) -> None:
    result = run(runner, *path, flag)
    assert result.exit_code == 0
    assert "Example" in result.output, f"{' '.join(path)} has no example in its help"


# -- define and check --define ----------------------------------------------------------------------

def test_define_gives_wordnet_senses_and_says_when_there_are_none() -> None:
    result = run(CliRunner(), "define", "qat", "taps", "xyzzyq")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "QAT:" and lines[1].startswith("  noun: the leaves of the shrub Catha edulis")
    assert "  verb: strike lightly" in lines  # TAPS reaches the senses of TAP
    assert lines[-2:] == ["XYZZYQ:", "  WordNet has no definition of XYZZYQ."]


def test_define_json() -> None:
    result = run(CliRunner(), "define", "--json", "taps", "xyzzyq")
    data = json.loads(result.output)
    assert [row["word"] for row in data] == ["TAPS", "XYZZYQ"]
    assert {"part_of_speech": "verb", "text": "strike lightly"} in data[0]["definitions"]
    assert data[1]["definitions"] == []


def test_define_refuses_what_is_not_a_word() -> None:
    result = run(CliRunner(), "define", "t4ps")
    assert result.exit_code == 2 and "t4ps" in result.output


def test_check_define_adds_the_senses_after_each_verdict() -> None:
    result = run(CliRunner(), "check", "--define", "london", "taps")
    lines = result.output.splitlines()
    assert result.exit_code == 1  # LONDON is not legal; the meanings are there all the same
    assert lines[0] == "LONDON: not legal" and any(line.startswith("  noun: the capital") for line in lines)
    taps = lines.index(next(line for line in lines if line.startswith("TAPS: legal")))
    assert lines[taps + 1].startswith("  noun: (military)")  # its own sense before TAP's (issue 19)
    data = json.loads(run(CliRunner(), "check", "--define", "--json", "taps").output)
    assert data[0]["legal"] is True and data[0]["definitions"][0]["part_of_speech"] in ("noun", "verb")
    assert "definitions" not in json.loads(run(CliRunner(), "check", "--json", "taps").output)[0]
