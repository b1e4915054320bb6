"""The players' seats in the store (referee/store_seats.py, schema 6), over both backends: a seat taken once
whoever asks at the same time, found by its token's digest (no token kept), released; the corrections asked for,
each answered once; the last phone action; the rows going with their game; and older databases migrated."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from postgres_support import Backend, unlink_chains

from referee.engine import Discarded, RollOff, Setup
from referee.store import SCHEMA_VERSION, STAMP_SUFFIX, Store
from referee.store_seats import SeatBook, SeatRequest, digest

SEAT_TABLES = ("seats", "seat_requests", "phone_actions")


def new_game(store: Store, players: tuple[str, ...] = ("Ann", "Bob")) -> int:
    gid, _, _ = store.create(Setup(players=players, card_accounting=False), lambda g: g.apply(RollOff(first=players[0])))
    return gid


def book(backend: Backend) -> SeatBook:
    return SeatBook(backend.store())


def test_a_seat_is_taken_once_found_by_its_token_and_released(backend: Backend) -> None:
    gid = new_game(backend.store())
    other = new_game(backend.store())
    assert book(backend).take(gid, "Ann", "token-a", "csrf-a")
    assert not book(backend).take(gid, "ANN", "token-b", "csrf-b")  # the same seat, whatever its case: refused
    assert book(backend).take(other, "Ann", "token-c", "csrf-c")  # another game's seat of the same name
    found = book(backend).seat("token-a")
    assert found is not None and (found.game, found.name) == (gid, "Ann")
    assert found.csrf_matches("csrf-a") and not found.csrf_matches("csrf-b") and not found.csrf_matches("")
    assert book(backend).seat("token-b") is None and book(backend).seat("") is None
    assert book(backend).taken(gid) == {"ann"} and book(backend).taken(other) == {"ann"}
    assert book(backend).release(gid, "aNN") and not book(backend).release(gid, "Ann")  # released once
    assert book(backend).seat("token-a") is None and book(backend).taken(gid) == set()
    assert book(backend).take(gid, "Ann", "token-b", "csrf-b")  # free again: the next phone takes it
    found = book(backend).seat("token-b")
    assert found is not None and found.game == gid


def test_the_store_keeps_no_token_only_its_digest(backend: Backend) -> None:
    gid = new_game(backend.store())
    token, csrf = "a-seat-token-0123456789abcdefghijklmnopqrstu", "a-csrf-token-0123456789abcdefghijklmnopqrstu"
    assert book(backend).take(gid, "Bob", token, csrf)
    rows = backend.sql("SELECT game_id, seat, name, token_sha256, csrf_sha256 FROM seats")
    assert [tuple(r) for r in rows] == [(gid, "bob", "Bob", digest(token), digest(csrf))]
    if backend.kind == "sqlite":
        assert token.encode() not in Path(backend.url).read_bytes() and csrf.encode() not in Path(backend.url).read_bytes()


def test_phones_racing_for_one_seat_get_it_once(backend: Backend) -> None:
    """Eight phones take the same seat at once, each through its own store and connection: one gets it, seven are
    refused, and the seat opens for the winner's token only (the database's key decides, no lock in a process)."""
    gid = new_game(backend.store())
    won: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def phone(i: int) -> None:
        try:
            start.wait(10)
            if book(backend).take(gid, "Ann", f"token-{i}", f"csrf-{i}"):
                won.append(f"token-{i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == [] and len(won) == 1
    assert [i for i in range(8) if book(backend).seat(f"token-{i}") is not None] == [int(won[0].split("-")[1])]


def test_a_request_waits_until_answered_once_or_the_game_moves(backend: Backend) -> None:
    store = backend.store()
    gid = new_game(store)
    seen = store.load(gid)[1].count
    book(backend).ask(gid, SeatRequest("r1", "Ann", "undo", seen))
    book(backend).ask(gid, SeatRequest("r2", "Bob", "amend", seen, 7))
    book(backend).ask(gid, SeatRequest("r0", "Bob", "redo", seen - 1))  # asked on an older game: dropped when listed
    assert book(backend).requests(gid) == [SeatRequest("r1", "Ann", "undo", seen),
                                                 SeatRequest("r2", "Bob", "amend", seen, 7)]
    assert backend.sql("SELECT id FROM seat_requests ORDER BY id") == [("r1",), ("r2",)]
    answers: list[SeatRequest | None] = []
    hosts = [threading.Thread(target=lambda: answers.append(book(backend).answer(gid, "r2"))) for _ in range(4)]
    for host in hosts:
        host.start()
    for host in hosts:
        host.join(60)
    assert sorted(answers, key=lambda a: a is None) == [SeatRequest("r2", "Bob", "amend", seen, 7), None, None, None]
    book(backend).ask(gid, SeatRequest("r2", "Bob", "amend", seen, 7))  # an answer that failed puts it back
    assert [a.id for a in book(backend).requests(gid)] == ["r1", "r2"]
    assert book(backend).answer(gid + 1, "r1") is None  # another game's requests are not this one's
    store.act(gid, lambda g: g.apply(Discarded("Ann")))
    assert book(backend).requests(gid) == []  # the game moved: none can be made as asked


def test_requests_are_judged_by_the_game_as_it_is_when_listed(backend: Backend) -> None:
    """The host's page reads the game, then lists the requests. A write and a fresh request landing in between
    must not lose the fresh one (it was dropped as "asked on another state" by the count the page had read), and
    each request comes with the version it is answered on."""
    store = backend.store()
    gid = new_game(store)
    page_saw = store.load(gid)[1]  # the host's page has read the game ...
    _gid, moved, _ = store.act(gid, lambda g: g.apply(Discarded("Ann")))  # ... then Ann's phone discards ...
    book(backend).ask(gid, SeatRequest("r1", "Ann", "undo", moved.count, version=moved.version))  # ... and asks
    listed = book(backend).requests(gid)
    assert [(a.id, a.seen, a.version) for a in listed] == [("r1", page_saw.count + 1, moved.version)]
    assert backend.sql("SELECT id FROM seat_requests") == [("r1",)]
    assert book(backend).requests(gid + 1) == []  # no such game: nothing, no error


def last_action(backend: Backend, game_id: int) -> tuple[int, str] | None:
    """The event count the game's last phone action left and its seat, as stored (the write path keeps it; only
    this test reads it whole)."""
    rows = backend.sql("SELECT events, seat FROM phone_actions WHERE game_id = ?", (game_id,))
    return (int(rows[0][0]), str(rows[0][1])) if rows else None


def test_the_last_phone_action_is_the_writes_own_and_any_other_write_ends_it(backend: Backend) -> None:
    """A seat's action records, in its own transaction, that the seat may undo it; another seat's replaces it; any
    other write (the terminal's) ends it and drops the corrections asked on the game as it was."""
    store = backend.store()
    gid = new_game(store)
    other = new_game(store)
    assert last_action(backend, gid) is None
    store.act(gid, lambda g: g.apply(Discarded("Ann")), seat="Ann")
    assert last_action(backend, gid) == (3, "Ann")
    store.act(gid, lambda g: g.apply(Discarded("Bob")), seat="Bob")
    store.act(other, lambda g: g.apply(Discarded("Ann")), seat="Ann")
    assert last_action(backend, gid) == (4, "Bob") and last_action(backend, other) == (3, "Ann")
    book(backend).ask(gid, SeatRequest("r1", "Ann", "undo", 4))
    book(backend).ask(other, SeatRequest("r1", "Bob", "undo", 3))
    store.act(gid, lambda g: g.apply(Discarded("Ann")))  # the terminal's
    assert last_action(backend, gid) is None and last_action(backend, other) == (3, "Ann")
    assert backend.sql("SELECT game_id FROM seat_requests") == [(other,)]


def test_a_games_seats_go_with_it(backend: Backend) -> None:
    """Nothing deletes a game yet; when something does (issue 25's finished games kept for a set time), its seats,
    requests and last phone action go with it (ON DELETE CASCADE), and the other game's stay."""
    gid = new_game(backend.store())
    other = new_game(backend.store())
    for game in (gid, other):
        assert book(backend).take(game, "Ann", f"token-{game}", "csrf")
        backend.store().act(game, lambda g: g.apply(Discarded("Ann")), seat="Ann")
        book(backend).ask(game, SeatRequest("r1", "Ann", "undo", 3))  # (a write drops the requests asked before it)
    statements = [f"DELETE FROM {table} WHERE game_id = ?" for table in ("events", "snapshots", "corrections", "redo")]
    statements.append("DELETE FROM games WHERE id = ?")
    if backend.kind == "sqlite":
        with sqlite3.connect(backend.url) as con:
            con.execute("PRAGMA foreign_keys = ON")  # as the store's connections do
            for statement in statements:
                con.execute(statement, (gid,))
        con.close()
    else:
        for statement in statements:
            backend.sql(statement, (gid,))
    for table in SEAT_TABLES:
        assert backend.sql(f"SELECT game_id FROM {table}") == [(other,)], table


def test_a_seat_of_a_game_that_does_not_exist_is_refused_and_writes_nothing(backend: Backend) -> None:
    from referee.store import StoreError

    gid = new_game(backend.store())
    with pytest.raises(StoreError):
        book(backend).take(gid + 9, "Ann", "token", "csrf")
    assert backend.sql("SELECT count(*) FROM seats") == [(0,)]


def test_a_schema_5_file_gets_the_seat_tables(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    gid = new_game(Store(db))
    Store(db).act(gid, lambda g: g.apply(Discarded("Ann")))
    with sqlite3.connect(db) as con:  # what issue 24's referee wrote: schema 5, no seats
        unlink_chains(lambda sql, params: con.execute(sql, params).fetchall())
        con.executescript("DROP TABLE seats; DROP TABLE seat_requests; DROP TABLE phone_actions; "
                          "PRAGMA user_version = 5;")
    con.close()
    Path(f"{db}{STAMP_SUFFIX}").unlink()
    reader = Store(db, read_only=True)
    assert reader.load(gid)[1].count == 3  # read as it is
    reader.close()
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT name FROM sqlite_master WHERE name = 'seats'").fetchall() == []
    con.close()
    assert SeatBook(Store(db)).take(gid, "Bob", "token", "csrf")  # a writer opens it: migrated, then seated
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    con.close()
    assert Store(db).verify() == (1, 3, [])


def test_a_schema_5_postgresql_schema_is_read_as_it_is_then_migrated(postgres_db: str) -> None:
    import psycopg

    from referee.store_pg import PG_MIGRATIONS, PG_NO_SCHEMA, close_pools, open_store

    assert PG_NO_SCHEMA + len(PG_MIGRATIONS) == SCHEMA_VERSION  # each step one version
    gid = new_game(open_store(postgres_db))
    with psycopg.connect(postgres_db, autocommit=True) as conn:  # what the referee before schema 6 made
        def run(sql: str, params: tuple[Any, ...]) -> list[Any]:
            cursor = conn.execute(sql.replace("?", "%s").encode(), params)
            return list(cursor.fetchall()) if cursor.description else []

        unlink_chains(run)
        conn.execute("DROP TABLE seats, seat_requests, phone_actions")
        conn.execute("UPDATE uw_referee_meta SET value = '5' WHERE key = 'schema'")
    close_pools()  # a new process: it has not seen the schema yet

    def tables() -> list[Any]:
        with psycopg.connect(postgres_db) as conn:
            return [conn.execute("SELECT to_regclass(%s) IS NOT NULL", (t,)).fetchone() for t in SEAT_TABLES]

    assert open_store(postgres_db, read_only=True).load(gid)[1].count == 2  # a board's reader, before any writer
    assert open_store(postgres_db, read_only=True).games()[0].id == gid
    assert tables() == [(False,)] * 3
    assert SeatBook(open_store(postgres_db)).seat("token") is None  # a store that may write migrates, even to read
    assert tables() == [(True,)] * 3
    with psycopg.connect(postgres_db) as conn:
        assert conn.execute("SELECT value FROM uw_referee_meta WHERE key = 'schema'").fetchone() == (str(SCHEMA_VERSION),)
    assert SeatBook(open_store(postgres_db)).take(gid, "Ann", "token", "csrf")
    assert open_store(postgres_db).verify() == (1, 2, [])
