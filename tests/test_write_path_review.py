"""A second read of the one write path (issue 33), as a table, a bot and an attacker would use it: what a seat may do
through the library as well as through its phone, the version every read gives, and a correction asked while
another write is in flight."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from postgres_support import Backend
from test_board_players import act, client_for, join, version

from referee.actions import Referee, RequestError
from referee.engine import Discarded, NotYours, RollOff, Setup
from referee.moves import Bind, Discard, PassBinding, Play, Undo
from referee.store import Store
from referee.store_seats import SeatBook, SeatRequest


def referee_on(db: Path) -> Referee:
    from dictionaries.dictionary import open_for_command

    return Referee(Store(db), open_for_command)


def test_a_seat_undoes_its_own_last_action_only_not_the_ones_before_it(db: Path) -> None:
    """A seat's own undo takes back its own last action; asked for more (the library's ``Undo(3)``), it would take
    back the other players' actions too, which only the host may: refused, nothing changed."""
    run(db, "new", "Cy", "Ann", "Bob", "--first", "Cy", check=True)
    referee = referee_on(db)
    played = referee.act(1, Play("rum", 15), seat="Cy", seen=referee.load(1)[1].version)
    discarded = referee.act(1, Discard(), seat="Ann", seen=played.version)
    bob = referee.act(1, Discard(), seat="Bob", seen=discarded.version)
    before = db.read_bytes()
    with pytest.raises(NotYours):
        referee.act(1, Undo(3), seat="Bob", seen=bob.version)
    assert db.read_bytes() == before
    undone = referee.act(1, Undo(), seat="Bob", seen=bob.version)  # its own, one action: still its right
    assert undone.version == discarded.version


def test_a_seat_names_a_word_in_its_own_name_only(db: Path) -> None:
    """Spell Binding: a seat names a word for its own player; naming it for another (the library's ``by``) would
    put words in another player's mouth and give the seat the right to undo them: refused, nothing changed."""
    run(db, "new", "Cy", "Ann", "Bob", "--first", "Cy", "--spell-binding", check=True)
    referee = referee_on(db)
    discarded = referee.act(1, Discard("RUMSTEA"), seat="Cy", seen=referee.load(1)[1].version)
    before = db.read_bytes()
    with pytest.raises(RequestError):
        referee.act(1, Bind("steam", by="Ann"), seat="Bob", seen=discarded.version)
    assert db.read_bytes() == before
    named = referee.act(1, Bind("steam", by="bob"), seat="Bob", seen=discarded.version)  # its own name, any case
    assert any("Bob names STEAM" in note for note in named.notes), named.notes


def test_a_seat_passes_in_its_own_name_only(db: Path) -> None:
    """Spell Binding: a pass, like a naming, is the seat's own player's; a pass in another player's name would end
    that player's chance to name a word: refused, nothing changed."""
    run(db, "new", "Cy", "Ann", "Bob", "--first", "Cy", "--spell-binding", check=True)
    referee = referee_on(db)
    discarded = referee.act(1, Discard("RUMSTEA"), seat="Cy", seen=referee.load(1)[1].version)
    before = db.read_bytes()
    with pytest.raises(RequestError, match="passes for themselves only"):
        referee.act(1, PassBinding(by="Ann"), seat="Bob", seen=discarded.version)
    assert db.read_bytes() == before
    passed = referee.act(1, PassBinding(by="bob"), seat="Bob", seen=discarded.version)  # its own name, any case
    assert passed.game.state.window is not None and [p.casefold() for p in passed.game.state.window.passed] == ["bob"]


def test_an_integer_seen_in_the_library_is_a_request_error_saying_what_to_send(db: Path) -> None:
    """The library's ``seen`` is the version read (a string, or a ``Seen``); an event count is refused in words,
    as the phones' API answers 400, never an AttributeError from inside the store."""
    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    referee = referee_on(db)
    before = db.read_bytes()
    for seen in (2, 2.0, b"2-0123456789abcdef"):
        with pytest.raises(RequestError, match="not a game's version"):
            referee.act(1, Discard(), seen=seen)  # type: ignore[arg-type]  # what a careless caller sends
    assert db.read_bytes() == before


def test_the_boards_game_api_gives_the_version_a_write_takes(db: Path) -> None:
    """``GET /api/games/N`` gives the fields of ``status --json``, the version among them: a bot that reads the game
    there sends it back as ``seen`` (an event count is refused with 400)."""
    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    read = client.get("/api/games/1").get_json()
    assert read["version"] == version(client, cy)
    played = act(client, cy, action="play", word="rum", roll=12, seen=read["version"])
    assert played.status_code == 200, played.get_json()
    assert client.get("/api/games/1").get_json()["version"] == played.get_json()["version"]


def test_a_correction_asked_while_another_write_is_in_flight_is_not_kept(backend: Backend) -> None:
    """A seat asks the host to undo on the version it read while another write to the game is being made: the
    request must not outlive that write (the host would then take back the other write's action, not the one the
    seat asked about). The request waits for the write's lock, then finds the game moved and keeps nothing."""
    store = backend.store()
    gid, _, _ = store.create(Setup(players=("Ann", "Bob"), card_accounting=False),
                             lambda g: g.apply(RollOff(first="Ann")))
    seen = store.load(gid)[1]
    assert seen.version is not None
    reached, go = threading.Event(), threading.Event()
    base: Any = type(store)

    class Paused(base):  # type: ignore[misc]
        """The store, its write stopped after the write's own rows and before its commit."""

        def _seat_wrote(self, *args: Any) -> None:
            super()._seat_wrote(*args)
            reached.set()
            go.wait(30)

    errors: list[BaseException] = []
    asked: list[SeatRequest | None] = []

    def write() -> None:
        try:
            Paused(backend.url).act(gid, lambda g: g.apply(Discarded("Ann")))
        except BaseException as exc:
            errors.append(exc)

    def ask() -> None:
        try:
            asked.append(SeatBook(backend.store()).ask(gid, SeatRequest("r1", "Bob", "undo", seen.count, None,
                                                                           seen.version)))
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    assert reached.wait(30)
    asker = threading.Thread(target=ask)
    asker.start()
    asker.join(0.5)  # (under the lock timeout; no bound on time: the request may wait for the lock or go first)
    go.set()
    writer.join(60)
    asker.join(60)
    assert errors == [] and asked == [None]  # nothing kept: the game moved
    assert backend.sql("SELECT id FROM seat_requests") == []


def test_a_seat_whose_own_action_put_it_out_is_not_offered_an_undo_and_is_told_why(db: Path) -> None:
    """A seat cannot undo once its player is out, even when its own action put it out (issue 33): the write's answer
    must not offer the undo (``can_undo``), and the refusal says why (out of the game), not that another player
    acted since; in Spanish too. Nothing is changed."""
    from test_board_players import bearer, problem

    run(db, "new", "Cy", "Ann", "Bob", "--first", "Cy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    for word in ("rum", "cat", "dog", "pen"):  # four failed sanity checks: one pawn left
        assert act(client, cy, action="play", word=word, roll=1, seen=version(client, cy)).status_code == 200
        run(db, "discard", check=True)
        run(db, "discard", check=True)
    out = act(client, cy, action="play", word="sun", roll=1, seen=version(client, cy)).get_json()
    assert any("out of the game" in note for note in out["notes"]), out["notes"]
    assert not out["can_undo"]
    assert not client.get("/api/games/1/play", headers=bearer(cy)).get_json()["can_undo"]
    before = db.read_bytes()
    detail = problem(act(client, cy, action="undo", seen=out["version"]), 403, "not-yours")
    assert "Cy is out of the game" in detail and "next player" not in detail, detail
    spanish = client.post("/api/games/1/actions", json={"action": "undo", "seen": out["version"]},
                          headers={**bearer(cy), "Accept-Language": "es"})
    assert "fuera de la partida" in problem(spanish, 403, "not-yours")
    assert db.read_bytes() == before


def test_a_flag_that_is_not_true_or_false_is_a_400_not_a_yes(db: Path) -> None:
    """``skip`` (a phone's Psychotherapy roll) and ``confirm`` (the host's answer) are booleans: a string such as
    "no" or "false" was read as true and skipped the roll, or made the correction the host meant to refuse. They
    are refused (400) and nothing is changed: the roll still awaited, the request still waiting."""
    from test_board_players import HOST, bearer, problem

    run(db, "new", "Cy", "Ann", "--first", "Cy", "--psychotherapy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    ann = join(client, "Ann").get_json()["token"]
    assert act(client, cy, action="play", word="rum", roll=1, seen=version(client, cy)).status_code == 200
    run(db, "discard", "ABCDEFG", check=True)  # Ann's
    discarded = act(client, cy, action="discard", letters="RUMSTEA", seen=version(client, cy)).get_json()
    assert discarded["phase"] == "psychotherapy"
    before = db.read_bytes()
    flags: tuple[object, ...] = ("no", "false", 0, 1, [], {})
    for skip in flags:
        assert "skip" in problem(act(client, cy, action="roll", skip=skip, seen=discarded["version"]), 400,
                                 "bad-request")
    assert db.read_bytes() == before
    asked = client.post("/api/games/1/requests", json={"action": "undo", "seen": discarded["version"]},
                        headers=bearer(ann)).get_json()["request"]
    before = db.read_bytes()
    for confirm in flags:
        answer = client.post(f"/api/games/1/requests/{asked}", json={"confirm": confirm}, headers=bearer(HOST))
        assert "confirm" in problem(answer, 400, "bad-request")
    assert db.read_bytes() == before
    assert [r["id"] for r in client.get("/api/games/1/host", headers=bearer(HOST)).get_json()["requests"]] == [asked]
    assert client.post(f"/api/games/1/requests/{asked}", json={}, headers=bearer(HOST)).status_code == 204
    assert act(client, cy, action="roll", skip=True, seen=discarded["version"]).status_code == 200


def test_a_word_prepared_for_one_game_is_not_played_in_another(db: Path) -> None:
    """``act(2, Play(prepared))`` with a word ``prepare`` judged for game 1 wrote to game 1, not the game named:
    refused, nothing written to either."""
    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    run(db, "new", "Bob", "Dee", "--first", "Bob", check=True)
    referee = referee_on(db)
    prepared = referee.prepare(1, "rum")
    before = db.read_bytes()
    with pytest.raises(RequestError, match="game 1"):
        referee.act(2, Play(prepared, 15))
    with pytest.raises(RequestError, match="game 1"):
        referee.act(2, Bind(prepared))
    assert db.read_bytes() == before
    assert referee.act(1, Play(prepared, 15)).game_id == 1
