"""The table's history (referee/history): the figures checked against games whose figures are known by hand (the
rulebook's worked examples, counted here from RULES.txt and typed as numbers) and against random library games
counted independently from their exported events (tests/history_games.py), then ``uw-referee stats``, the chart
and ``uw-referee export --html``."""
from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from cli_support import run
from history_games import count_figures, count_replays, play_random_game, random_games

from dictionaries.deck import STANDARD
from dictionaries.dictionary import Dictionary
from dictionaries.i18n import set_language
from referee import Options, Referee, Store
from referee.engine import Discarded, Game, PlayerLeft, PsychotherapyRolled, RollOff, SanityRolled, Setup, WordPlayed
from referee.exporting import export_document
from referee.history.chart import svg, table
from referee.history.reading import all_figures, figures_of
from referee.history.stats import game_figures, pass_chance, table_figures


def play(game: Game, player: str, word: str, roll: int) -> None:
    game.apply(WordPlayed(player, word, STANDARD.score(word), True))
    game.apply(SanityRolled(player, roll))


def example_1() -> Game:
    """The rulebook's Example 1 (Scoring): LOOK passed with a 7, CHAMP failed with a 12, TOP with a 3."""
    game = Game(Setup(players=("Cindi", "Paul", "Sue"), card_accounting=False))
    game.apply(RollOff(((("Cindi", 18), ("Paul", 11), ("Sue", 4)),)))
    play(game, "Cindi", "LOOK", 7)
    play(game, "Paul", "CHAMP", 12)
    play(game, "Sue", "TOP", 3)
    return game


def example_2() -> Game:
    """The rulebook's Example 2 from its position (as tests/test_engine.py reaches it), played to Paul's win."""
    game = Game(Setup(players=("Cindi", "Paul", "Sue"), card_accounting=False))
    game.apply(RollOff(first="Cindi"))
    paul = iter([("WIZARD", 1), ("BRANCH", 2), ("ENTIRE", 19), ("GARDEN", 18), None, ("HILL", 10)])
    sue = iter([("EARLIER", 19), ("WEARIER", 3), ("FEATHER", 20), ("FIRE", 15), None])
    cindi = iter(["CAT", "FOX", "CROW", "WOLF", "LION"])

    def act(name: str, step: tuple[str, int] | None) -> None:
        if step is None:
            game.apply(Discarded(name))
        else:
            play(game, name, *step)

    for _ in range(5):
        play(game, "Cindi", next(cindi), 1)
        act("Paul", next(paul))
        act("Sue", next(sue))
    act("Paul", next(paul))
    game.apply(Discarded("Sue"))
    play(game, "Paul", "TEN", 9)
    play(game, "Sue", "COLUMNS", 4)   # 95 + 6 reaches 100: the target rule, a 4 fails, it scores 0
    play(game, "Paul", "RUM", 17)     # 97 + 7 = 104: Paul wins
    return game


def test_the_odds_of_a_sanity_check_follow_the_d20_rule() -> None:
    """A 20 always passes, else the roll must reach the word's value: counted here roll by roll."""
    for value in range(0, 40):
        assert pass_chance(value) == sum(1 for r in range(1, 21) if r == 20 or r >= value) / 20
    assert (pass_chance(4), pass_chance(15), pass_chance(28), pass_chance(0)) == (0.85, 0.3, 0.05, 1.0)


def test_example_1_known_by_hand() -> None:
    """LOOK 4 (7 passes), CHAMP 15 (12 fails: a pawn), TOP 5 (3 fails: a pawn); the game goes on."""
    f = game_figures(1, example_1().events)
    assert (f.turns, f.over, f.winner, f.ending) == (3, False, None, None)
    assert f.best is not None and (f.best.word, f.best.player, f.best.scored) == ("CHAMP", "Paul", 15)
    cindi, paul, sue = f.seats
    assert (cindi.words, cindi.points, cindi.passed, cindi.checks, cindi.pawns_lost) == (1, 4, 1, 1, 0)
    assert (paul.words, paul.points, paul.passed, paul.checks, paul.pawns_lost) == (1, 15, 0, 1, 1)
    assert (sue.words, sue.points, sue.passed, sue.checks, sue.pawns_lost) == (1, 5, 0, 1, 1)
    assert [p.expected for p in f.seats] == pytest.approx([0.85, 0.30, 0.80])
    assert [(p.won, p.in_play, p.lost) for p in f.seats] == [(0, 1, 0)] * 3  # in play: not lost
    assert [p.scores for p in f.points] == [(0, 0, 0), (4, 0, 0), (4, 15, 0), (4, 15, 5)]
    assert [p.pawns for p in f.points][-1] == (5, 4, 4)


def test_example_2_known_by_hand() -> None:
    """Example 2 played out. Values by the card table: WIZARD, BRANCH, ENTIRE 20, GARDEN 19, HILL 10, TEN 8, RUM 7;
    CAT, FOX, CROW, WOLF, LION 7; EARLIER 26, WEARIER 28, FEATHER 26, FIRE 15, COLUMNS 6."""
    f = game_figures(7, example_2().events)
    assert (f.turns, f.over, f.winner, f.ending) == (20, True, "Paul", "target")  # 5 + 8 + 7 turns
    assert f.best is not None and (f.best.word, f.best.player, f.best.scored, f.best.game) == ("WEARIER", "Sue", 28, 7)
    cindi, paul, sue = f.seats
    # Cindi: five 7-point words, each failed with a 1: five pawns, out at her fifth turn (turn 13).
    assert (cindi.words, cindi.points, cindi.passed, cindi.pawns_lost, cindi.eliminated) == (5, 35, 0, 5, 1)
    assert cindi.expected == pytest.approx(5 * 14 / 20)
    assert [(f.points[i].turn, f.players[s]) for i, s in f.eliminations] == [(13, "Cindi")]
    # Paul: four failed (WIZARD, BRANCH, ENTIRE, GARDEN), three passed (HILL, TEN, RUM): 104.
    assert (paul.words, paul.points, paul.checks, paul.passed, paul.pawns_lost, paul.won) == (7, 104, 7, 3, 4, 1)
    assert paul.expected == pytest.approx(3 * 1 / 20 + 2 / 20 + 11 / 20 + 13 / 20 + 14 / 20)
    assert paul.best is not None and paul.best.word == "WIZARD"        # the first of three 20s
    assert paul.longest is not None and paul.longest.word == "WIZARD"  # six letters, 20, first
    assert paul.average == pytest.approx(104 / 7)
    # Sue: EARLIER and WEARIER failed, FEATHER (a 20) and FIRE passed, COLUMNS failed under the target rule: 0.
    assert (sue.words, sue.points, sue.passed, sue.pawns_lost, sue.won, sue.lost) == (5, 95, 2, 3, 0, 1)
    assert sue.expected == pytest.approx(3 / 20 + 6 / 20 + 15 / 20)
    assert sue.best is not None and (sue.best.word, sue.best.scored) == ("WEARIER", 28)
    assert sue.longest is not None and sue.longest.word == "WEARIER"  # seven letters like EARLIER, more points
    assert f.points[-1].scores == (35, 104, 95) and f.points[-1].pawns == (0, 1, 2)
    assert len(f.points) == f.turns + 1


def test_psychotherapy_regains_and_a_departure_are_counted() -> None:
    """A pawn lost, then regained by Psychotherapy (a roll over the hand's value), then a player leaves."""
    game = Game(Setup(players=("Ann", "Bob", "Cy"), options=Options(psychotherapy=True), card_accounting=False))
    game.apply(RollOff(first="Ann"))
    play(game, "Ann", "LOOK", 1)                     # a pawn lost
    game.apply(Discarded("Bob", "OCLNUSM"))          # Bob has all 5: no Psychotherapy
    game.apply(Discarded("Cy", "OCLNUSM"))
    game.apply(Discarded("Ann", "OCLNUSM"))          # value 6
    game.apply(PsychotherapyRolled("Ann", 7))        # 7 > 6: the pawn back
    game.apply(PlayerLeft("Cy"))
    f = game_figures(2, game.events)
    ann, bob, cy = f.seats
    assert (ann.pawns_lost, ann.pawns_regained, ann.eliminated, ann.left) == (1, 1, 0, 0)
    assert (cy.left, cy.eliminated, cy.pawns_lost) == (1, 0, 0)
    assert f.turns == 4 and [f.players[s] for _i, s in f.departures] == ["Cy"]
    assert f.points[-1].out == (False, False, True)
    game.apply(PlayerLeft("Bob"))                     # Ann is the last with pawns: she wins
    f = game_figures(2, game.events)
    assert (f.winner, f.ending, f.turns) == ("Ann", "last_standing", 4)
    assert f.points[-1].out == (False, True, True) and len(f.points) == 5  # the leave between turns: no new turn


@pytest.mark.parametrize("seed", range(6))
def test_random_library_games_match_an_independent_count_of_their_exported_events(
        tmp_path: Path, dictionary: Dictionary, seed: int) -> None:
    """Random games played through the library; each game's exported events counted by RULES.txt alone
    (``count_figures``) give the same figures as the engine's replay, turn by turn."""
    store = random_games(tmp_path / "games.sqlite3", dictionary, seed, 4)
    games = all_figures(store)
    assert len(games) == 4
    for figures in games:
        document = export_document(store, figures.game)
        counted = count_figures(document)
        assert figures.turns == counted["turns"]
        series = [(tuple(s), tuple(w)) for s, w in counted["series"]]
        # a turn still waiting for its roll (a game left in play) has no point yet
        assert len(figures.points) == len(series) or (not figures.over and len(figures.points) == len(series) - 1)
        assert [(p.scores, p.pawns) for p in figures.points] == series[:len(figures.points)]
        for mine, theirs in zip(figures.seats, counted["seats"], strict=True):
            assert (mine.words, mine.points, mine.checks, mine.passed) == (
                theirs["words"], theirs["points"], theirs["rolled"], theirs["passed"])
            assert mine.expected == pytest.approx(theirs["expected"])
            assert (mine.pawns_lost, mine.pawns_regained, mine.eliminated, mine.left) == (
                theirs["lost"], theirs["regained"], theirs["eliminated"], theirs["left"])
            assert ((mine.best.word, mine.best.scored) if mine.best else None) == theirs["best"]
            assert ((mine.longest.word, mine.longest.scored) if mine.longest else None) == theirs["longest"]
        state = document["state"]
        assert figures.over == (state["phase"] == "over")
        assert figures.winner == state["winner"]
        assert figures.ending == (state["outcome"] or {}).get("termination")
        assert [p["score"] for p in state["players"]] == list(figures.points[-1].scores)
    assert any(not g.over for g in games[-1:]) or all(g.over for g in games)


def test_players_are_matched_whatever_the_case_and_a_game_in_play_is_not_lost(
        tmp_path: Path, dictionary: Dictionary) -> None:
    store = random_games(tmp_path / "games.sqlite3", dictionary, 11, 8)
    games = all_figures(store)
    players = table_figures(games)
    keys = [p.name.casefold() for p in players]
    assert len(keys) == len(set(keys))
    for p in players:
        mine = [g for g in games if p.name.casefold() in {n.casefold() for n in g.players}]
        assert p.games == len(mine)
        assert p.won == sum(1 for g in mine if g.winner is not None and g.winner.casefold() == p.name.casefold())
        assert p.in_play == sum(1 for g in mine if not g.over)
        assert p.lost == p.games - p.won - p.in_play
        latest = [n for n in mine[-1].players if n.casefold() == p.name.casefold()][0]
        assert p.name == latest  # shown as the latest game spells it
    assert sum(p.won for p in players) == sum(1 for g in games if g.over)
    spellings = {n for g in games for n in g.players}
    assert len(spellings) > len(players), "the pool should spell someone two ways"


# -- uw-referee stats -----------------------------------------------------------------------------

@pytest.fixture()
def example_db(tmp_path: Path) -> Path:
    """Example 2 (game 1, over) and Example 1 (game 2, in play) in a games file, written through the store."""
    path = tmp_path / "games.sqlite3"
    store = Store(path)
    for make in (example_2, example_1):
        events = make().events

        def build(game: Game, events: list = events) -> None:  # type: ignore[type-arg]
            for event in events[1:]:
                game.apply(event)

        store.create(events[0].setup, build)  # type: ignore[attr-defined]
    store.close()
    return path


def test_stats_in_words(example_db: Path) -> None:
    result = run(example_db, "stats")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "2 games: 1 over, 1 in play." in out
    assert "Paul: 2 games: 1 won, 0 lost, 1 in play" in out
    assert "Sue: 2 games: 0 won, 1 lost, 1 in play" in out
    assert "best word: WEARIER (28 points, game 1)" in out
    assert "sanity checks: 3 of 8 passed; their words' odds gave 2.45" in out  # Paul: 2.15 + 0.30
    assert "Game 1 (Cindi, Paul, Sue): Paul won at the target after 20 turns." in out
    assert "Game 2 (Cindi, Paul, Sue): in play after 3 turns." in out
    assert "Best word of all: WEARIER (28 points, game 1) by Sue" in out


def test_stats_json_and_one_game(example_db: Path) -> None:
    data = json.loads(run(example_db, "stats", "--json").output)
    assert [p["name"] for p in data["players"]] == ["Paul", "Cindi", "Sue"]
    paul = data["players"][0]
    assert (paul["games"], paul["won"], paul["in_play"], paul["words"], paul["points"]) == (2, 1, 1, 8, 119)
    assert paul["sanity_checks"] == {"rolled": 8, "passed": 3, "expected": 2.45}
    assert data["best_word"]["word"] == "WEARIER" and data["games"][1]["state"] == "in_play"
    assert "figures" not in data["games"][0]  # each game's players' figures: with --game
    one = json.loads(run(example_db, "stats", "--game", "2", "--json").output)
    assert [g["game"] for g in one["games"]] == [2] and one["players"][0]["games"] == 1
    assert one["games"][0]["figures"][1]["pawns_lost"] == 1


def test_stats_in_spanish_and_its_refusals(example_db: Path, tmp_path: Path) -> None:
    result = run(example_db, "--lang", "es", "stats")
    assert result.exit_code == 0
    assert "Paul: 2 partidas: ganadas 1, perdidas 0, en juego 1" in result.output, result.output
    assert "Mejor palabra de todas: WEARIER" in result.output
    missing = run(example_db, "stats", "--game", "9")
    assert missing.exit_code == 1 and "there is no game 9" in missing.output
    empty = run(tmp_path / "none.sqlite3", "stats")
    assert empty.exit_code == 0 and "No games yet" in empty.output
    assert run(example_db, "stats", "--game", "x").exit_code == 2


# -- the chart and the shareable page -------------------------------------------------------------

def test_the_chart_says_itself_and_its_numbers() -> None:
    f = game_figures(1, example_2().events)
    picture = svg(f, "c")
    assert picture.startswith("<svg") and 'role="img"' in picture and "<script" not in picture
    title = re.search(r'<title id="c-title">(.*?)</title>', picture)
    desc = re.search(r'<desc id="c-desc">(.*?)</desc>', picture)
    assert title and desc and 'aria-labelledby="c-title c-desc"' in picture
    assert "20 turns" in desc.group(1) and "Paul won" in desc.group(1) and "Cindi lost the last pawn at turn 13" in desc.group(1)
    assert "target: 100 points" in picture and picture.count("<polyline") == 6  # a score and a pawn line each
    assert picture.count('class="mark cross"') == 1
    numbers = table(f)
    assert numbers.count("<tr>") == 1 + 21  # the head, then the start and each of 20 turns
    assert "<td>104 (1 pawn)</td>" in numbers and "RUM" in numbers
    set_language("es")
    try:
        picture = svg(f, "c")
        assert ">Puntuación</text>" in picture and ">Turno</text>" in picture and "objetivo: 100 puntos" in picture
        assert "Cindi perdió su último peón en el turno 13." in picture
    finally:
        set_language("en")


def test_export_html_is_one_self_contained_page(example_db: Path) -> None:
    result = run(example_db, "--game", "1", "export", "--html")
    assert result.exit_code == 0, result.output
    page = result.output
    assert page.startswith("<!doctype html>") and '<html lang="en">' in page
    assert "<svg" in page and "<table" in page and "Paul plays RUM for 7 points." in page
    assert "Paul won with 104 points, reaching the target, after 20 turns." in page
    assert "<script" not in page.lower() and not re.search(r'\b(src|href)=', page)
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)  # nothing outside but the SVG namespace
    spanish = run(example_db, "--lang", "es", "--game", "1", "export", "--html").output
    assert '<html lang="es">' in spanish and "Paul juega RUM" in spanish


def test_a_games_file_read_twice_gives_the_same_figures(tmp_path: Path, dictionary: Dictionary) -> None:
    """Figures come from the events only: reading again (a new store) gives the same JSON."""
    path = tmp_path / "games.sqlite3"
    referee = Referee(Store(path), lambda: dictionary)
    gid = play_random_game(referee, dictionary, random.Random(3))
    first = figures_of(Store(path), gid)[0].to_json(chart=True)
    assert figures_of(Store(path), gid)[0].to_json(chart=True) == first


# -- the quick path and the kept figures ----------------------------------------------------------

def both_paths(db: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, lang: str = "en") -> str:
    """``args`` through referee.quick (no Click) and through the Click command: the same bytes and status."""
    import io
    import sys

    from click.testing import CliRunner

    from referee import quick
    from referee.cli import cli

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    set_language(lang)  # as referee.quick.main does for --lang
    try:
        code = quick.run(["--db", str(db), *args])
    finally:
        set_language("en")
        monkeypatch.undo()
    assert code == 0, f"{args} was handed over"
    clicked = CliRunner().invoke(cli, ["--lang", lang, "--db", str(db), *args])
    assert (clicked.exit_code, clicked.stdout) == (0, out.getvalue())
    return out.getvalue()


def test_the_quick_path_prints_what_the_click_command_prints(example_db: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    text = both_paths(example_db, ["stats"], monkeypatch)
    assert "Best word of all: WEARIER" in text
    document = json.loads(both_paths(example_db, ["stats", "--json"], monkeypatch))
    assert len(document["games"]) == 2 and document["players"][0]["name"] == "Paul"
    assert "Mejor palabra de todas" in both_paths(example_db, ["stats"], monkeypatch, "es")
    from referee import quick

    assert quick.run(["--db", str(example_db), "--game", "1", "stats"]) is None  # one game: Click's
    import subprocess
    import sys

    probe = ("import io, sys, contextlib\nfrom referee.quick import run\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    code = run(['--db', sys.argv[1], 'stats'])\n"
             "print(code, sorted(m for m in ('click', 'typing', 'dataclasses', 'html', 'referee.rules', 'referee.store_pg')"
             " if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe, str(example_db)], capture_output=True, text=True, check=True,
                            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}).stdout.split(" ", 1)
    assert loaded == ["0", "['referee.store_pg']\n"]  # the figures kept: neither Click nor the engine is loaded
    assert quick.run(["--db", str(tmp_path / "missing" / "x.sqlite3"), "stats", "--json"]) in (None, 0)


def test_kept_figures_are_the_counted_ones_and_follow_every_write(tmp_path: Path, dictionary: Dictionary,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The second ``stats`` reads the figures kept by the first (the same JSON); a game written since, a game
    deleted, a damaged or unwritable cache: each is counted again from the events, never shown stale."""
    from referee.history.kept import Kept
    from referee.history.reading import all_figures

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    path = tmp_path / "games.sqlite3"
    store = random_games(path, dictionary, 5, 5)
    counted = [g.to_json(seats=False) for g in all_figures(store)]
    first = run(path, "stats", "--json").output
    kept = Kept(path)
    assert len(kept.load()) == 5
    kept.close()
    assert json.loads(first)["games"] == counted
    calls = count_replays(monkeypatch)
    assert run(path, "stats", "--json").output == first and calls == []  # nothing replayed
    referee = Referee(Store(path), lambda: dictionary)
    gid = play_random_game(referee, dictionary, random.Random(9), most_turns=3)
    again = json.loads(run(path, "stats", "--json").output)
    assert calls == [gid] and again["games"][:5] == counted  # only the new game counted
    calls.clear()
    Store(path).purge(lambda _summaries: [1])  # game 1 is over: deleted
    after = json.loads(run(path, "stats", "--json").output)
    assert [g["game"] for g in after["games"]] == [2, 3, 4, 5, gid] and calls == []
    (cache / "uw-referee" / "history.sqlite3").write_bytes(b"not a database" * 100)
    assert json.loads(run(path, "stats", "--json").output) == after  # a damaged cache: counted again
    assert len(calls) == 5
    calls.clear()
    from dictionaries.dictionary import stamp_directory
    from referee.history.kept import cache_directory

    assert cache_directory() == stamp_directory() == str(cache / "uw-referee")  # beside the dictionary's stamps
    (cache / "uw-referee" / "history.sqlite3").unlink()
    (cache / "uw-referee" / "history.sqlite3").mkdir()  # a cache that cannot be opened (root writes anywhere)
    assert json.loads(run(path, "stats", "--json").output) == after and len(calls) == 5


def test_the_history_package_and_its_catalog_ship() -> None:
    """``pip install .`` carries the package and its compiled Spanish catalog (the benchmark runs it installed)."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "referee.history" in setuptools["packages"]
    assert "locale/*/LC_MESSAGES/*.mo" in setuptools["package-data"]["referee.history"]
    assert (root / "referee" / "history" / "locale" / "es" / "LC_MESSAGES" / "history.mo").is_file()
