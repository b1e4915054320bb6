"""The one write path (issue 33): every face's action goes through ``Referee.act`` in one transaction, guarded by
the game's version (its event count and chain digest), so that an undo, a redo or an amended roll is seen even
when the count comes back; a phone's own-undo right belongs to the version its action made."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from test_board_players import act, bearer, client_for, join, problem, version

from referee.actions import Referee, RequestError
from referee.engine import GameChanged, NotYours, Seen
from referee.moves import Discard, Leave, Play, Redo, Undo
from referee.store import Store


def log_of(db: Path) -> str:
    return run(db, "log", check=True).output


def cy_plays_rum(db: Path, roll: int) -> tuple[Any, str, str, dict[str, Any]]:
    """A game of Cy and Ann, both seated by phone, where Cy's phone has played RUM with ``roll``: the board's test
    client, Cy's and Ann's tokens, and the phone's answer to the play."""
    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    ann = join(client, "Ann").get_json()["token"]
    return client, cy, ann, act(client, cy, action="play", word="rum", roll=roll, seen=version(client, cy)).get_json()


def test_the_aba_undo_from_a_phone_is_refused_and_anns_discard_stands(db: Path) -> None:
    """The issue's sequence, tried as a table would: Cy's phone plays RUM, the terminal undoes it, Cy leaves, Ann
    discards: the event count is back where Cy's phone left it, and its undo used to take back Ann's discard (200,
    no host). It is refused (403 not-yours) and Ann's discard stands."""
    run(db, "new", "Cy", "Ann", "Bob", "--first", "Cy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    played = act(client, cy, action="play", word="rum", roll=15, seen=version(client, cy))
    assert played.status_code == 200, played.get_json()
    left_at = played.get_json()
    assert left_at["can_undo"]
    run(db, "undo", check=True)
    run(db, "leave", "Cy", check=True)
    run(db, "discard", check=True)  # Ann's
    assert client.get("/api/games/1/play", headers=bearer(cy)).get_json()["events"] == left_at["events"]
    assert not client.get("/api/games/1/play", headers=bearer(cy)).get_json()["can_undo"]
    before = log_of(db)
    detail = problem(act(client, cy, action="undo", seen=left_at["version"]), 403, "not-yours")
    assert "Cy" in detail
    # even with the version as it is now (read again), Cy is out of the game and the last action is Ann's
    problem(act(client, cy, action="undo", seen=version(client, cy)), 403, "not-yours")
    assert log_of(db) == before and "Ann discards" in before


def test_a_stale_version_after_an_amended_roll_is_refused(db: Path) -> None:
    """An amendment keeps the count: a phone's write decided before it is refused all the same, saying what
    happened; and its own undo is gone (any other write ends it)."""
    client, cy, ann, played = cy_plays_rum(db, 3)
    seen = played["version"]
    run(db, "amend", "--roll", "15", check=True)  # the terminal corrects Cy's roll: same count, another version
    now = client.get("/api/games/1/play", headers=bearer(ann)).get_json()
    assert now["events"] == played["events"] and now["version"] != seen
    detail = problem(act(client, ann, action="discard", seen=seen), 409, "game-moved")
    assert "amended" in detail and "Ann's turn" in detail, detail
    problem(act(client, cy, action="undo", seen=seen), 403, "not-yours")
    problem(act(client, cy, action="undo", seen=now["version"]), 403, "not-yours")
    assert act(client, ann, action="discard", seen=now["version"]).status_code == 200


def test_an_undo_meanwhile_is_said_by_the_refusal_in_english_and_spanish(db: Path) -> None:
    client, cy, ann, played = cy_plays_rum(db, 15)
    seen = played["version"]
    run(db, "undo", check=True)
    run(db, "discard", check=True)  # Cy discards at the keyboard instead
    detail = problem(act(client, ann, action="discard", seen=seen), 409, "game-moved")
    assert detail.startswith("The host undid Cy's RUM") and "Nothing was changed" in detail, detail
    assert "Ann's turn" in detail, detail
    spanish = client.post("/api/games/1/actions", json={"action": "discard", "seen": seen},
                          headers={**bearer(ann), "Accept-Language": "es"})
    said = problem(spanish, 409, "game-moved")
    assert "el anfitrión ha deshecho" in said and "RUM" in said and "No se cambió nada" in said, said


def test_a_seats_own_undo_meanwhile_is_said_with_its_players_name(db: Path) -> None:
    """The refusal names who made the correction: the seat's player when a phone undid its own action."""
    client, cy, ann, played = cy_plays_rum(db, 15)
    seen = played["version"]
    assert act(client, cy, action="undo", seen=seen).status_code == 200  # Cy's own, from Cy's phone
    detail = problem(act(client, ann, action="discard", seen=seen), 409, "game-moved")
    assert detail.startswith("Cy undid Cy's RUM"), detail
    assert '"by"' not in run(db, "export", check=True).output  # who made it is the turn guard's, not the export's


def test_an_integer_seen_is_a_400_saying_what_to_send(db: Path) -> None:
    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    client = client_for(db)
    cy = join(client, "Cy").get_json()["token"]
    count = client.get("/api/games/1/play", headers=bearer(cy)).get_json()["events"]
    for seen in (count, str(count), "2-xyz", None):
        detail = problem(act(client, cy, action="discard", seen=seen), 400, "no-seen")
        assert '"version"' in detail
    problem(client.post("/api/games/1/corrections", json={"action": "undo", "seen": count}, headers=bearer("x")),
            403, "not-host")
    assert "discards" not in log_of(db)


def test_the_library_takes_the_version_and_returns_the_new_one(db: Path) -> None:
    from dictionaries.dictionary import open_for_command

    run(db, "new", "Cy", "Ann", "--first", "Cy", check=True)
    referee = Referee(Store(db), open_for_command)
    _gid, game = referee.load(1)
    done = referee.act(1, Play("rum", 15), seen=Seen(version=game.version))
    assert done.version is not None and done.version != game.version
    assert done.version.startswith(f"{done.game.count}-")
    with pytest.raises(GameChanged):
        referee.act(1, Discard(), seen=game.version)  # the version as a string works too
    with pytest.raises(RequestError):
        referee.act(1, Discard(), seen="12")
    with pytest.raises(RequestError):
        referee.act(1, Redo(), seat="Ann")  # a seat asks the host for corrections
    with pytest.raises(NotYours):
        referee.act(1, Undo(), seat="Ann", seen=done.version)  # Cy's play is not Ann's to undo
    discarded = referee.act(1, Discard(), seat="Ann", seen=done.version)
    with pytest.raises(NotYours):
        referee.act(1, Undo(), seat="Cy", seen=discarded.version)
    undone = referee.act(1, Undo(), seat="Ann", seen=discarded.version)
    assert undone.version == done.version  # the same events as before Ann's discard: the same version
    with pytest.raises(NotYours):
        referee.act(1, Undo(), seat="Ann", seen=undone.version)  # her right went with her undo
    left = referee.act(1, Leave("Ann"), seen=undone.version)
    assert left.game.state.is_over()
