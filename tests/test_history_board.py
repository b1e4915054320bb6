"""The table's history on the board (referee/board/records.py): a finished game's chart with its winner and best word
on its page and on the TV (the live board), none while it is in play; the records on the Games page; a table's own
records at /games/N/records, behind the hosted board's gate, over both backends; each in English and Spanish."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from history_games import count_replays
from postgres_support import Backend

from referee.board.app import create_app

HOST = "host-secret-of-the-history-tests-0123456789abcdef"


def client_for(path: Path | str, **config: Any) -> Any:
    app = create_app({"BOARD_DB": str(path), "BOARD_GAME": None, "TESTING": True, **config})
    return app.test_client()


def play_example_2(db: Path | str) -> None:
    """The rulebook's Example 2 through the CLI: Paul wins with RUM at 104 (tests/test_history.py counts it)."""
    assert run(db, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", "--no-card-accounting").exit_code == 0  # type: ignore[arg-type]
    paul = iter([("wizard", 1), ("branch", 2), ("entire", 19), ("garden", 18), None, ("hill", 10)])
    sue = iter([("earlier", 19), ("wearier", 3), ("feather", 20), ("fire", 15), None])
    cindi = iter(["cat", "fox", "crow", "wolf", "lion"])

    def act(step: tuple[str, int] | None) -> None:
        args = ["discard"] if step is None else ["play", step[0], "--roll", str(step[1])]
        result = run(db, *args)  # type: ignore[arg-type]
        assert result.exit_code == 0, result.output

    for _ in range(5):
        act((next(cindi), 1))
        act(next(paul))
        act(next(sue))
    for step in (next(paul), None, ("ten", 9), ("columns", 4), ("rum", 17)):
        act(step)


@pytest.fixture
def finished(db: Path) -> Path:
    """Game 1: Example 2, over; game 2: a game in play whose player 'PAUL' is Example 2's Paul."""
    play_example_2(db)
    assert run(db, "new", "PAUL", "Ann", "--first", "PAUL").exit_code == 0
    assert run(db, "play", "champ", "--roll", "18").exit_code == 0
    return db


def test_a_finished_games_page_shows_its_chart_winner_and_best_word(finished: Path) -> None:
    client = client_for(finished)
    page = client.get("/games/1").get_data(as_text=True)
    assert "How the game went" in page and "<svg" in page and "<script" not in page.split("<svg")[1].split("</svg>")[0]
    assert "Paul won with 104 points, reaching the target, after 20 turns." in page
    assert re.search(r'Best word: <span lang="en" class="word">WEARIER</span>, 28 points, by Sue\.', page)
    assert '<title id="history-1-title">Game 1: scores and pawns, turn by turn</title>' in page
    assert "Cindi lost the last pawn at turn 13." in page  # in the chart's description
    assert "The numbers behind the chart" in page and 'href="/games/1/records"' in page
    assert 'href="/static/history.css"' in page and client.get("/static/history.css").status_code == 200
    in_play = client.get("/games/2").get_data(as_text=True)
    assert "<svg" not in in_play and "How the game went" not in in_play


def test_the_tv_shows_the_chart_when_the_game_ends(db: Path) -> None:
    """The live board (``/``, which the TV shows) follows the current game: no chart in play, the chart once over."""
    assert run(db, "new", "Ann", "Bob", "--first", "Ann", "--target", "5").exit_code == 0
    client = client_for(db)
    assert "<svg" not in client.get("/").get_data(as_text=True)
    assert run(db, "play", "taps", "--roll", "15").exit_code == 0  # 10 points: Ann reaches 5 and wins
    page = client.get("/").get_data(as_text=True)
    assert "Ann won with 10 points, reaching the target, after 1 turn." in page and "<svg" in page
    assert "Best word: <span lang=\"en\" class=\"word\">TAPS</span>, 10 points, by Ann." in page
    spanish = client.get("/?lang=es").get_data(as_text=True)
    assert "Ann ganó con 10 puntos al alcanzar el objetivo, tras 1 turno." in spanish
    assert "Cómo fue la partida" in spanish and "objetivo: 5 puntos" in spanish


def test_the_games_page_shows_the_records(finished: Path) -> None:
    client = client_for(finished)
    page = client.get("/games").get_data(as_text=True)
    assert "Records" in page and "2 games: 1 over, 1 in play." in page
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', page)
    # Paul and PAUL are one player: 2 games, 1 won, 0 lost, 1 in play; Ann's one game is in play, not lost.
    assert ("PAUL", "2", "1", "0", "1") in rows and ("Ann", "1", "0", "0", "1") in rows and ("Sue", "1", "0", "1", "0") in rows
    assert "Best word of all: WEARIER (28 points, game 1) by Sue" in page
    spanish = client.get("/games?lang=es").get_data(as_text=True)
    assert "Récords" in spanish and "Mejor palabra de todas: WEARIER (28 puntos, partida 1), de Sue" in spanish


def test_figures_are_kept_until_a_game_is_written_again(finished: Path) -> None:
    """A second request replays nothing; a game written since is counted again."""
    app = create_app({"BOARD_DB": str(finished), "BOARD_GAME": None, "TESTING": True})
    client = app.test_client()
    client.get("/games")

    def kept() -> dict[int, object]:
        return {game: figures for (game, _key), figures in app.extensions["history"].kept.items()}

    before = kept()
    assert set(before) == {1, 2}
    client.get("/games")
    assert all(kept()[g] is before[g] for g in before)  # the same objects: not replayed
    assert run(finished, "--game", "2", "play", "taps", "--roll", "20").exit_code == 0
    page = client.get("/games").get_data(as_text=True)
    assert kept()[2] is not before[2] and kept()[1] is before[1]
    assert "TAPS" in page and len(app.extensions["history"].kept) == 2  # game 2's old figures dropped


def test_a_games_page_larger_than_the_kept_figures_replays_each_game_once(db: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Games page walks every game in order: with more games than the figures kept per process, a least
    recently used cache would drop each game before the page came back to it, replaying every game each time."""
    from referee.board import records

    monkeypatch.setattr(records, "KEPT", 2)
    for _ in range(5):
        assert run(db, "new", "Ann", "Bob", "--first", "Ann").exit_code == 0
    replayed = count_replays(monkeypatch)
    client = client_for(db)
    assert client.get("/games").status_code == 200
    assert sorted(replayed) == [1, 2, 3, 4, 5]
    replayed.clear()
    assert client.get("/games").status_code == 200 and client.get("/games").status_code == 200
    assert replayed == []


# -- hosted ---------------------------------------------------------------------------------------

def hosted(backend: Backend, apps: list[Any]) -> Any:
    """A device of its own (its cookies) on the test's hosted board."""
    if not apps:
        apps.append(create_app({"BOARD_DB": backend.url, "BOARD_GAME": None, "TESTING": True, "BOARD_HOSTED": True,
                                "BOARD_HOST_SECRET": HOST, "BOARD_STREAM_SECONDS": 0.2}))
    return apps[-1].test_client()


def table(client: Any, *players: str) -> dict[str, Any]:
    answer = client.post("/api/tables", json={"players": list(players), "dice": "physical", "first": players[0],
                                              "target": 5})
    assert answer.status_code == 201, answer.get_json()
    made: dict[str, Any] = answer.get_json()
    return made


def test_a_hosted_table_sees_its_own_records_behind_its_gate(backend: Backend, apps: list[Any]) -> None:
    starter = hosted(backend, apps)
    one, two, three = table(starter, "Ann", "Bob"), table(starter, "ann", "Cy"), table(starter, "Zelda", "Yorick")
    for made in (one, two, three):
        assert run(backend.url, "--game", str(made["game"]), "play", "taps", "--roll", "15").exit_code == 0  # type: ignore[arg-type]
    stranger = hosted(backend, apps)
    refused = stranger.get(f"/games/{one['game']}/records")
    assert refused.status_code == 404 and "Ann" not in refused.get_data(as_text=True)
    assert stranger.get(f"/games/{one['game']}/records?code={two['code']}").status_code == 404  # another's code
    assert stranger.get("/games").status_code == 404  # no page lists the games
    table_device = hosted(backend, apps)
    page = table_device.get(f"/games/{one['game']}/records?code={one['code']}")
    assert page.status_code == 200, page.get_data(as_text=True)
    text = page.get_data(as_text=True)
    assert "1 game: 1 over, 0 in play." in text and "Zelda" not in text and "Cy" not in text
    # The same device holds game 2's code too (it opened that table's board): both games, Ann's as one player.
    assert table_device.get(f"/games/{two['game']}?code={two['code']}").status_code == 200
    text = table_device.get(f"/games/{one['game']}/records").get_data(as_text=True)
    assert "2 games: 2 over, 0 in play." in text and "Zelda" not in text
    assert re.search(r'<tr><th scope="row">ann</th><td>2</td><td>2</td><td>0</td><td>0</td>', text), text
    board = table_device.get(f"/games/{one['game']}").get_data(as_text=True)
    assert "How the game went" in board and f'href="/games/{one["game"]}/records"' in board


def test_stats_reads_either_backend_alike(backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same games on PostgreSQL and on SQLite give the same records, counted and then kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    play_example_2(backend.url)
    reference = tmp_path / "reference.sqlite3"
    play_example_2(reference)
    expected = run(reference, "stats", "--json").output
    first = run(backend.url, "stats", "--json")  # type: ignore[arg-type]
    assert first.exit_code == 0 and first.output == expected
    assert run(backend.url, "stats", "--json").output == expected  # type: ignore[arg-type]  # kept this time
    one = run(backend.url, "--game", "1", "stats", "--json").output  # type: ignore[arg-type]
    assert '"eliminated": 1' in one and '"winner": "Paul"' in one


def test_code_cookies_cost_a_read_only_for_games_there_are_and_a_few_at_most(backend: Backend, apps: list[Any],
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A records page checks the visitor's join-code cookies, each a salt read: hundreds of cookies for games
    that do not exist cost none, and at most ``CODES_READ`` are checked for games that do."""
    from referee.board import records
    from referee.store_seats import SeatBook

    starter = hosted(backend, apps)
    made = [table(starter, "Ann", "Bob") for _ in range(3)]
    reads: list[int] = []
    salt = SeatBook.salt

    def counted(book: SeatBook, game: int) -> str | None:
        reads.append(game)
        return salt(book, game)

    monkeypatch.setattr(SeatBook, "salt", counted)
    monkeypatch.setattr(records, "CODES_READ", 2)
    visitor = hosted(backend, apps)
    first = made[0]["game"]
    for number in range(first + 1000, first + 1300):
        visitor.set_cookie(f"uw_code_{number}", "ABCDEF")
    for other in made[1:]:
        visitor.set_cookie(f"uw_code_{other['game']}", "WRONG1")
    page = visitor.get(f"/games/{first}/records?code={made[0]['code']}")
    assert page.status_code == 200, page.get_data(as_text=True)
    assert "1 game: 0 over, 1 in play." in page.get_data(as_text=True)
    assert len([game for game in reads if game != first]) <= 2, reads
