"""The store: snapshots that stand in for a replay, the verification stamp, read-only opening, damage."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from postgres_support import Backend, unlink_chains

from dictionaries.dictionary import Dictionary
from referee.actions import Referee
from referee.engine import Discarded, Event, Game, RollOff, SanityRolled, Setup, WordPlayed
from referee.store import SCHEMA_VERSION, STAMP_SUFFIX, NoGame, Store, StoreError

#: What a file written before schema 6 lacks: the players' seats (tests/test_store_seats.py).
BEFORE_SEATS = "DROP TABLE seats; DROP TABLE seat_requests; DROP TABLE phone_actions; "


def new_game(store: Store, players: tuple[str, ...] = ("Ann", "Bob")) -> int:
    # card accounting off: the filler discards below are not real hands
    gid, _, _ = store.create(Setup(players=players, card_accounting=False), lambda g: g.apply(RollOff(first=players[0])))
    return gid


def play_round(store: Store, gid: int, word: str, roll: int) -> None:
    def action(g: Game) -> None:
        name = g.state.current.name  # type: ignore[union-attr]
        g.apply(WordPlayed(name, word, g.setup.deck.score(word), True))
        g.apply(SanityRolled(name, roll))

    store.act(gid, action)


def discard(store: Store, gid: int) -> None:
    store.act(gid, lambda g: g.apply(Discarded(g.state.current.name)))  # type: ignore[union-attr]


def no_dictionary() -> Dictionary:
    raise AssertionError("undo and redo judge no word")


def undo(store: Store, gid: int, actions: int) -> tuple[int, Game, list[Event]]:
    """Undo through the library (the store keeps no rule of what an action is)."""
    done = Referee(store, no_dictionary).undo(gid, actions)
    return done.game_id, done.game, list(done.removed)


def redo(store: Store, gid: int, actions: int) -> tuple[int, Game, list[Event]]:
    done = Referee(store, no_dictionary).redo(gid, actions)
    return done.game_id, done.game, list(done.restored)


def test_a_resumed_game_equals_the_replayed_game(backend: Backend) -> None:
    store = backend.store()
    gid = new_game(store)
    for i, word in enumerate(("taps", "look", "champ", "rum", "top")):
        play_round(store, gid, word, 3 + i)
        discard(store, gid)
    _, resumed = store.load(gid)
    _, replayed, _ = store.history(gid)
    assert resumed.base == replayed.count and not resumed.events
    assert resumed.state.to_snapshot() == json.loads(json.dumps(replayed.state.to_snapshot()))


def test_a_write_resumes_from_the_snapshot_and_keeps_counting(backend: Backend) -> None:
    store = backend.store()
    gid = new_game(store)
    discard(store, gid)
    _, game, _ = store.act(gid, lambda g: g.apply(Discarded(g.state.current.name)))  # type: ignore[union-attr]
    assert game.base == 3 and game.count == 4 and len(game.events) == 1
    _, replayed, history = store.history(gid)
    assert replayed.count == 4 and len(history) == 4


def test_a_stale_or_damaged_snapshot_is_not_trusted(backend: Backend) -> None:
    store = backend.store()
    gid = new_game(store)
    play_round(store, gid, "taps", 12)
    # a snapshot whose text no longer matches its digest
    state = json.loads(backend.sql("SELECT state FROM snapshots")[0][0])
    state["players"][0]["score"] = 99
    backend.sql("UPDATE snapshots SET state = ?", (json.dumps(state),))
    _, game = backend.store(read_only=True).load(gid)
    _, replayed, _ = backend.store(read_only=True).history(gid)
    assert [p.score for p in game.state.players] == [p.score for p in replayed.state.players] != [99, 0]


def test_a_damaged_event_record_stops_every_write(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    store = Store(db)
    first = new_game(store)
    second = new_game(store, ("Cy", "Di"))
    play_round(store, second, "taps", 12)
    with sqlite3.connect(db) as con:  # a few bytes of one event of the first game changed by another program
        data = con.execute("SELECT data FROM events WHERE game_id = ? AND seq = 1", (first,)).fetchone()[0]
        con.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = 1", (data.replace('"', "#", 2), first))
    before = db.read_bytes()
    for write in (lambda s: new_game(s), lambda s: discard(s, second), lambda s: undo(s, second, 1)):
        with pytest.raises(StoreError, match="No command will write to this file"):
            write(Store(db))
    assert db.read_bytes() == before


def test_a_damaged_event_record_stops_every_write_to_its_game(backend: Backend) -> None:
    """On both backends: a game whose events were changed behind the store's back is never written again, by
    any kind of write, and nothing changes (PostgreSQL's other games stay playable: one damaged table does not
    stop a club night; SQLite refuses the whole file, above)."""
    first = new_game(backend.store())
    backend.sql("UPDATE events SET data = replace(data, 'Ann', 'Ana') WHERE game_id = ? AND seq = 1", (first,))
    before = backend.contents()
    for write in (lambda s: discard(s, first), lambda s: undo(s, first, 1), lambda s: play_round(s, first, "taps", 12)):
        with pytest.raises(StoreError, match="damaged"):
            write(backend.store())
    assert backend.contents() == before
    assert "event 1 was changed" in backend.store().verify()[2][0]


def test_an_unchanged_file_is_not_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.sqlite3"
    gid = new_game(Store(db))
    assert Path(f"{db}{STAMP_SUFFIX}").exists()
    calls: list[int] = []
    original = Store._check_whole

    def counted(self: Store, conn: sqlite3.Connection) -> None:
        calls.append(1)
        original(self, conn)

    monkeypatch.setattr(Store, "_check_whole", counted)
    discard(Store(db), gid)
    assert calls == []  # the stamp matched: no whole-file read
    with sqlite3.connect(db) as con:  # another program writes the file
        con.execute("UPDATE games SET updated_at = updated_at")
    discard(Store(db), gid)
    assert calls == [1]


def test_a_write_between_the_whole_check_and_the_lock_is_not_damage(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-file check reads the game before the write lock is taken; another terminal's write can land in
    between. The act must judge the game as it is under the lock (a stale snapshot row read as "its events were
    changed" broke two terminals at one table)."""
    db = tmp_path / "g.sqlite3"
    gid = new_game(Store(db))
    discard(Store(db), gid)
    Path(f"{db}{STAMP_SUFFIX}").unlink()  # as after another process's write: the next writer checks the whole file
    original = Store._check_whole
    other = Store(db)

    def then_another_terminal_writes(self: Store, conn: sqlite3.Connection) -> None:
        original(self, conn)
        if self is not other:
            discard(other, gid)  # commits between this check and the act's BEGIN IMMEDIATE

    monkeypatch.setattr(Store, "_check_whole", then_another_terminal_writes)
    discard(Store(db), gid)
    assert Store(db).verify() == (1, 5, [])  # created, roll-off and three discards, chain and snapshot whole


def test_games_are_listed_from_their_summaries(backend: Backend) -> None:
    store = backend.store()
    assert store.games() == []
    gid = new_game(store)
    play_round(store, gid, "champ", 20)
    [summary] = store.games()
    assert (summary.players, summary.phase, summary.turn, summary.scores) == (("Ann", "Bob"), "action", "Bob", (15, 0))


def test_read_only_never_creates_or_writes(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with pytest.raises(NoGame):
        Store(db, read_only=True).load()
    assert not db.exists()
    gid = new_game(Store(db))
    before = db.read_bytes()
    store = Store(db, read_only=True)
    assert store.load(gid)[1].state.current.name == "Ann"  # type: ignore[union-attr]
    with pytest.raises(StoreError):
        store.act(gid, lambda _g: None)
    assert db.read_bytes() == before


def test_a_version_1_file_is_read_then_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    gid = new_game(Store(db))
    discard(Store(db), gid)
    with sqlite3.connect(db) as con:  # what uw-referee 0.1 wrote: no snapshots, no summaries
        con.executescript(BEFORE_SEATS + "DROP TABLE snapshots; ALTER TABLE games DROP COLUMN summary; DROP TABLE corrections; "
                          "DROP TABLE redo; ALTER TABLE events DROP COLUMN chain; PRAGMA user_version = 1;")
    assert Store(db, read_only=True).load(gid)[1].state.current.name == "Bob"  # type: ignore[union-attr]
    assert Store(db, read_only=True).games()[0].turn == "Bob"
    discard(Store(db), gid)
    assert Store(db).games()[0].turn == "Ann"
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_version_2_file_gets_corrections_and_redo(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    gid = new_game(Store(db))
    discard(Store(db), gid)
    with sqlite3.connect(db) as con:  # what issue 8's referee wrote: no corrections, no redo stack
        con.executescript(BEFORE_SEATS + "DROP TABLE corrections; DROP TABLE redo; ALTER TABLE events DROP COLUMN chain; "
                          "ALTER TABLE snapshots DROP COLUMN recent; PRAGMA user_version = 2;")
    assert Store(db, read_only=True).corrections(gid) == (gid, [])
    store = Store(db)
    undo(store, gid, 1)
    assert [c["type"] for _, c in Store(db).corrections(gid)[1]] == ["undo"]
    assert Store(db).load(gid)[1].state.current.name == "Ann"  # type: ignore[union-attr]
    assert redo(Store(db), gid, 1)[1].state.current.name == "Bob"  # type: ignore[union-attr]


@pytest.mark.parametrize("xdg", [None, "", "   ", "/tmp/xdg data"])
def test_the_default_database_is_where_platformdirs_puts_it(xdg: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import platformdirs

    from referee.store import default_db_path

    monkeypatch.delenv("UW_REFEREE_DB", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert default_db_path() == os.path.join(platformdirs.user_data_dir("uw-referee", appauthor=False), "games.sqlite3")


def test_tail_gives_the_new_events_and_a_digest_that_marks_an_undo(backend: Backend) -> None:
    """``tail`` (issue 21: the board carries its copy of a game forward by the new events only)."""
    store = backend.store()
    gid = new_game(store)
    discard(store, gid)
    discard(store, gid)
    found, updated, rows = store.tail(None, 0)
    assert found == gid and updated and [seq for seq, *_ in rows] == list(range(len(rows)))
    assert isinstance(rows[0][2], type(store.history(gid)[2][0][1])) and all(r[3] for r in rows)
    last = rows[-1]
    _gid, _updated, again = store.tail(gid, last[0])
    assert len(again) == 1 and again[0][0] == last[0] and again[0][3] == last[3]  # nothing new: the same digest
    undo(store, gid, 1)
    discard(store, gid)
    _gid, later, after = store.tail(gid, last[0])
    assert after[0][0] == last[0] and after[0][3] != last[3] and later != updated  # same seq, another history
    with pytest.raises(NoGame):
        backend.store(read_only=True).tail(99, 0)

def count_applies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``Game.apply`` from here on adds one to the returned counter (a replay of n events is n - 1)."""
    calls = [0]
    apply = Game.apply

    def counted(self: Game, event: object) -> list[str]:
        calls[0] += 1
        return apply(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(Game, "apply", counted)
    return calls


def long_game(store: Store, rounds: int) -> int:
    gid = new_game(store)
    words = ("taps", "look", "champ", "rum", "top", "cat", "dog", "sun", "pen", "map")
    for i in range(rounds):
        play_round(store, gid, words[i], 3 + i % 5)
        discard(store, gid)
    return gid


def test_undo_replays_once_and_redo_resumes_from_the_snapshot(backend: Backend, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """Issue 26: undo replayed the game twice (the events before, then the ones kept); now once, and
    redo none: it carries the kept state on with the events put back."""
    store = backend.store()
    gid = long_game(store, 8)
    _, before, _ = store.history(gid)
    count = before.count  # 2 + 8 rounds of 3 events
    calls = count_applies(monkeypatch)
    _, game, removed = undo(store, gid, 2)
    assert calls[0] == count - len(removed) - 1  # the kept events, once (the creation is not applied)
    calls[0] = 0
    _, game, back = redo(store, gid, 2)
    assert back == removed and calls[0] == len(back)  # only the events put back
    monkeypatch.undo()
    _, replayed, _ = store.history(gid)
    assert game.state.to_snapshot() == json.loads(json.dumps(replayed.state.to_snapshot()))
    assert json.loads(json.dumps(replayed.state.to_snapshot())) == json.loads(json.dumps(before.state.to_snapshot()))
    _, resumed = store.load(gid)
    assert resumed.state.to_snapshot() == json.loads(json.dumps(replayed.state.to_snapshot()))


def test_stored_reads_the_events_and_the_kept_game_without_a_replay(backend: Backend,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    store = backend.store()
    gid = long_game(store, 5)
    _, replayed, history = store.history(gid)
    calls = count_applies(monkeypatch)
    _, game, stored = store.stored(gid)
    assert calls[0] == 0
    assert stored == history and game.count == replayed.count == len(stored)
    assert game.state.to_dict() == json.loads(json.dumps(replayed.state.to_dict()))


def test_stored_replays_a_game_without_a_snapshot(backend: Backend) -> None:
    store = backend.store()
    gid = long_game(store, 2)
    _, replayed, history = store.history(gid)
    store.close()
    backend.sql("DELETE FROM snapshots")
    _, game, stored = backend.store(read_only=True).stored(gid)
    assert stored == history and game.state.to_dict() == replayed.state.to_dict()


def test_records_are_the_events_as_stored(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """What export prints: each event's JSON as stored, which is its Event.to_dict(); no replay."""
    store = backend.store()
    gid = long_game(store, 3)
    _, replayed, history = store.history(gid)
    calls = count_applies(monkeypatch)
    _, game, records = store.records(gid)
    assert calls[0] == 0
    assert records == [(at, json.loads(json.dumps(event.to_dict()))) for at, event in history]
    assert game.state.to_dict() == json.loads(json.dumps(replayed.state.to_dict()))


# -- schema 5: the words of the last actions kept beside the snapshot (issue 21) -------------------

def said(recent: Sequence[Sequence[object]]) -> list[list[str]]:
    return [[str(note) for note in action] for action in recent]


def told(store: Store, gid: int) -> list[list[str]]:
    """The last actions in words as a full replay says them (what the kept words must equal)."""
    from referee.board.source import recent_notes
    from referee.store import KEPT_ACTIONS

    return said(recent_notes([event for _, event in store.history(gid)[2]], KEPT_ACTIONS))


def test_the_words_of_the_last_actions_are_kept_and_read_without_a_replay(backend: Backend,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    store = backend.store()
    gid = long_game(store, 8)
    want = told(store, gid)
    assert len(want) == 8 and "plays SUN" in want[-2][0]
    calls = count_applies(monkeypatch)
    found = backend.store(read_only=True).resumed(gid)
    assert found is not None and calls[0] == 0
    fid, _updated, game, recent, seq, digest = found
    assert fid == gid and said(recent) == want and game.count == seq + 1
    assert digest == store.tail(gid, seq)[2][0][3]  # the digest of the last event, for the reader's next tail
    monkeypatch.undo()
    for change in (lambda: undo(store, gid, 3), lambda: redo(store, gid, 2), lambda: play_round(store, gid, "fig", 20)):
        change()
        found = store.resumed(gid)
        assert found is not None and said(found[3]) == told(store, gid)
    assert store.verify() == (1, store.load(gid)[1].count, [])


def test_a_schema_4_file_gets_the_words_of_its_last_actions(tmp_path: Path) -> None:
    from referee.store import game_digest

    db = tmp_path / "g.sqlite3"
    store = Store(db)
    gid = long_game(store, 6)
    want = told(store, gid)
    store.close()
    with sqlite3.connect(db) as con:  # what issue 22's referee wrote: schema 4, its digest, no words kept
        unlink_chains(lambda sql, params: con.execute(sql, params).fetchall())
        seq, state, view, summary = con.execute("SELECT s.seq, s.state, s.view, g.summary FROM snapshots s JOIN games g "
                                                "ON g.id = s.game_id").fetchone()
        head = con.execute("SELECT chain FROM events WHERE seq = ?", (seq - 1,)).fetchone()[0]
        con.execute("UPDATE snapshots SET digest = ?", (game_digest(seq, head, state, view, summary),))
        con.executescript(BEFORE_SEATS + "ALTER TABLE snapshots DROP COLUMN recent; PRAGMA user_version = 4;")
    con.close()
    Path(f"{db}{STAMP_SUFFIX}").unlink()
    reader = Store(db, read_only=True)
    assert reader.resumed(gid) is None and reader.verify()[2] == []  # read as it is: the board replays it
    assert reader.load(gid)[1].count == store.history(gid)[1].count
    reader.close()
    Store(db).load(gid)  # a writer opens it: migrated
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    con.close()
    found = Store(db, read_only=True).resumed(gid)
    assert found is not None and said(found[3]) == want
    assert Store(db).verify()[2] == []
    discard(Store(db), gid)  # and carried forward by the next write
    found = Store(db, read_only=True).resumed(gid)
    assert found is not None and said(found[3]) == told(Store(db), gid)


def test_verify_finds_the_kept_words_changed_and_no_reader_serves_them(backend: Backend) -> None:
    from referee.board.source import Source
    from referee.store import game_digest

    store = backend.store()
    gid = long_game(store, 4)
    store.close()
    backend.sql("UPDATE snapshots SET recent = replace(recent, 'RUM', 'RAM')")
    problems = backend.store().verify()[2]
    assert problems and "saved last actions was changed after it was written" in problems[0]
    assert backend.store(read_only=True).resumed(gid) is None  # not served: the board replays the events
    shown = Source(backend.url).game(gid, 8)
    assert any("RUM" in line for line in shown.recent) and not any("RAM" in line for line in shown.recent)
    with pytest.raises(StoreError, match="damaged"):
        discard(backend.store(), gid)
    # and changed with a digest made again: its events still say otherwise
    [(seq, state, view, summary, recent)] = backend.sql(
        "SELECT s.seq, s.state, s.view, g.summary, s.recent FROM snapshots s JOIN games g ON g.id = s.game_id")
    [(head,)] = backend.sql("SELECT chain FROM events WHERE seq = ?", (seq - 1,))
    backend.sql("UPDATE snapshots SET digest = ?", (game_digest(seq, bytes(head), state, view, summary, recent),))
    assert "does not match its events" in backend.store().verify()[2][0]


def test_a_game_number_past_sqlites_integers_is_no_game(tmp_path: Path) -> None:
    """A page's address can hold any number: past 2**63 - 1 it names no game (it overflowed into a 500 once)."""
    db = tmp_path / "g.sqlite3"
    Store(db).create(Setup(("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))
    for number in (2**63, 10**20, 0, -1):
        with pytest.raises(NoGame):
            Store(db).load(number)
