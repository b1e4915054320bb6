"""What a phone's action costs the database (issue 33), counted, never timed: PostgreSQL's own counters show at most
two transactions per action, the phone's read of the game included; a write at 2,000 events reads no more rows
(PostgreSQL's ``pg_stat_user_tables``) and no more of SQLite's work (its virtual machine's steps) than 1.5 times one
at 10 events. Each figure is a slope, (the count over N + 1 actions - the count over 1) / N, which cancels what is
paid once (the pool's connections, the observer's own queries)."""
from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import game_code
from test_board_players import HOST, bearer, client_for

from referee.engine import Discarded, Game, RollOff, Setup
from referee.store_pg import close_pools, open_store, with_schema

ACTIONS = 8


def long_game(size: int) -> Callable[[Game], None]:
    def build(game: Game) -> None:
        game.apply(RollOff(first="Ann"))
        while game.count < size:
            assert game.state.current is not None
            game.apply(Discarded(game.state.current.name))
    return build


def phone_actions(db: str | Path, size: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """A game of ``size`` events on ``db`` with three seated phones: its phone's read, and a phone's action (the read
    of the player whose turn it is, then its discard with the version read)."""
    gid, _game, _ = open_store(db).create(Setup(("Ann", "Bob", "Cy"), target=10**9, card_accounting=False),
                                          long_game(size))
    client = client_for(Path(db) if not str(db).startswith("postgresql") else db)
    tokens = {n: client.post(f"/api/games/{gid}/seats", json={"code": game_code(db, HOST, gid), "seat": n}
                             ).get_json()["token"] for n in ("Ann", "Bob", "Cy")}
    turn = [client.get(f"/api/games/{gid}/play", headers=bearer(tokens["Ann"])).get_json()["waiting"]["player"]]

    def read() -> None:
        assert client.get(f"/api/games/{gid}/play", headers=bearer(tokens[turn[0]])).status_code == 200

    def act() -> None:
        view = client.get(f"/api/games/{gid}/play", headers=bearer(tokens[turn[0]])).get_json()
        done = client.post(f"/api/games/{gid}/actions", json={"action": "discard", "seen": view["version"]},
                           headers=bearer(tokens[turn[0]]))
        assert done.status_code == 200, done.get_json()
        turn[0] = done.get_json()["waiting"]["player"]

    return read, act


def slope(work: Callable[[], None], counters: Callable[[], list[int]]) -> list[float]:
    def cycle(n: int) -> list[int]:
        before = counters()
        for _ in range(n):
            work()
        return [a - b for a, b in zip(counters(), before, strict=True)]

    one, many = cycle(1), cycle(ACTIONS + 1)
    return [(m - o) / ACTIONS for m, o in zip(many, one, strict=True)]


@pytest.fixture
def private_database(postgres_url: str) -> Iterator[str]:
    """A database of its own (its counters are this test's alone), dropped after."""
    import psycopg

    name = f"uw_cost_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    base = postgres_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        yield base
    finally:
        close_pools()
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)".encode())


def test_postgresql_counts_two_transactions_per_phone_action_and_flat_rows(private_database: str) -> None:
    import psycopg

    figures = {}
    for size in (10, 2000):
        schema = f"g{size}"
        with psycopg.connect(private_database, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}".encode())
        url = with_schema(private_database, schema)

        def counters(schema: str = schema) -> list[int]:
            close_pools()  # a backend reports its counts when it exits
            for _ in range(50):
                with psycopg.connect(private_database, autocommit=True) as conn:
                    row = conn.execute(
                        "SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = "
                        "current_database()), (SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0) "
                        "FROM pg_stat_user_tables WHERE schemaname = %s), (SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid())", (schema,)).fetchone()
                assert row is not None
                if row[2] == 0:  # every other backend has exited: its counts are in
                    return [int(row[0]), int(row[1])]
                time.sleep(0.1)
            raise AssertionError("the board's connections did not close")

        read, act = phone_actions(url, size)
        with psycopg.connect(private_database, autocommit=True) as conn:  # autovacuum's own transactions and reads
            for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)).fetchall():
                conn.execute(f"ALTER TABLE {schema}.{table} SET (autovacuum_enabled = false)".encode())
        figures[size] = (slope(read, counters), slope(act, counters))
    for size, (reads, acts) in figures.items():
        assert reads[0] == 1 and acts[0] <= 2, (size, reads, acts)  # the phone's read, then its action: one each
    assert figures[2000][1][1] <= 1.5 * figures[10][1][1], figures


def test_sqlite_work_per_phone_action_is_flat_in_game_length(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {"begin": 0, "steps": 0}
    connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(*args, **kwargs)

        def traced(sql: str) -> None:
            counts["begin"] += sql.lstrip().upper().startswith("BEGIN")

        def step() -> int:
            counts["steps"] += 1
            return 0

        conn.set_trace_callback(traced)
        conn.set_progress_handler(step, 1)
        return conn

    monkeypatch.setattr(sqlite3, "connect", counting)
    found: dict[int, list[float]] = {}
    for size in (10, 2000):
        _read, act = phone_actions(tmp_path / f"g{size}.sqlite3", size)
        found[size] = slope(act, lambda: [counts["begin"], counts["steps"]])
    assert found[10][0] == found[2000][0] == 2, found  # two transactions: the read and the action
    assert found[2000][1] <= 1.5 * found[10][1], found
