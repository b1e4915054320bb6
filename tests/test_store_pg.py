"""The store on PostgreSQL (referee/store_pg.py): what a shared server adds to the store's contract, which
tests/test_store.py checks on both backends. Concurrency by the database (a write locks its game's row), the
turn guard between two stores, the schema marked as ours, the commit's notification, a server that is down."""
from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from referee.engine import Discarded, GameChanged, RollOff, Seen, Setup
from referee.store import NoGame, StoreError
from referee.store_pg import CHANNEL, PgStore, is_database_url, open_store, scrubbed, shown_address


def new_game(url: str) -> int:
    gid, _, _ = open_store(url).create(Setup(players=("Ann", "Bob"), card_accounting=False),
                                       lambda g: g.apply(RollOff(first="Ann")))
    return gid


def discard_current(url: str, gid: int, expect: Seen | None = None) -> str:
    """The current player discards (decided inside the write, on the game as locked): who it was."""
    who: list[str] = []

    def action(game: Any) -> None:
        who.append(game.state.current.name)
        game.apply(Discarded(game.state.current.name))

    open_store(url).act(gid, action, expect)
    return who[0]


def test_an_address_chooses_postgresql_and_a_path_sqlite(tmp_path: Any) -> None:
    assert is_database_url("postgresql://h/db") and is_database_url("postgres://h/db")
    assert not is_database_url(str(tmp_path / "postgresql:")) and not is_database_url(None)
    assert type(open_store(str(tmp_path / "g.sqlite3"))).__name__ == "Store"
    assert shown_address("postgresql://ann:secret@db.example:6543/club") == "postgresql://ann@db.example:6543/club"


def test_writers_racing_on_one_game_take_turns_by_the_row_lock(postgres_db: str) -> None:
    """Eight threads, each with its own store and connection, discard 10 times each on one game: every discard
    lands once, in a whole chain, and each is credited to the player whose turn it was when the lock was held
    (without the lock two writers read the same last event and one fails on the key, or both land)."""
    gid = new_game(postgres_db)
    errors: list[BaseException] = []
    credited: list[str] = []

    def writer() -> None:
        try:
            for _ in range(10):
                credited.append(discard_current(postgres_db, gid))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    _, game, history = open_store(postgres_db).history(gid)
    assert len(history) == 2 + 80 and game.count == 82
    discards = [event.player for _, event in history if isinstance(event, Discarded)]
    assert discards == ["Ann", "Bob"] * 40 and sorted(credited) == sorted(discards)
    assert open_store(postgres_db).verify() == (1, 82, [])


def test_the_turn_guard_holds_between_two_replicas(postgres_db: str) -> None:
    gid = new_game(postgres_db)
    seen = Seen.of(open_store(postgres_db).load(gid)[1])
    assert discard_current(postgres_db, gid, seen) == "Ann"  # the first phone's action
    with pytest.raises(GameChanged, match="meanwhile"):  # the second phone saw the same state: refused
        discard_current(postgres_db, gid, seen)
    assert open_store(postgres_db).load(gid)[1].count == 3


def test_a_reader_never_creates_the_schema(postgres_db: str) -> None:
    reader = open_store(postgres_db, read_only=True)
    with pytest.raises(NoGame):
        reader.load()
    assert reader.games() == []
    with psycopg.connect(postgres_db) as conn:
        assert conn.execute("SELECT to_regclass('games')").fetchone() == (None,)
    gid = new_game(postgres_db)
    with pytest.raises(StoreError, match="read-only"):
        reader.act(gid, lambda _g: None)


def test_a_schema_of_another_program_or_a_newer_one_is_left_untouched(postgres_db: str) -> None:
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    with pytest.raises(StoreError, match="another program"):
        new_game(postgres_db)
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('events')").fetchone() == (None,)
        conn.execute("DROP TABLE games")
    new_game(postgres_db)
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute("UPDATE uw_referee_meta SET value = '99' WHERE key = 'schema'")
    from referee.store_pg import close_pools

    close_pools()  # a new process: it has not seen the schema yet
    with pytest.raises(StoreError, match="newer uw-referee"):
        new_game(postgres_db)


def test_a_commit_notifies_its_game_and_a_refusal_nothing(postgres_db: str) -> None:
    """The payload names the schema, the game and the process that wrote it: the channel is the whole database's
    (other schemas, other test runs on the same server, notify on it too), so only this schema's are counted here.
    A commit notifies only while a board listens (``referee.commits``): a connection that is not one hears nothing."""
    from referee.commits import LISTENER_NAME, origin

    gid = new_game(postgres_db)
    with psycopg.connect(postgres_db, autocommit=True) as bystander:
        bystander.execute(f"LISTEN {CHANNEL}")
        discard_current(postgres_db, gid)
        assert not [n for n in bystander.notifies(timeout=0.5) if n.payload.startswith(bystander.execute(
            "SELECT current_schema()").fetchone()[0] + ":")]  # type: ignore[index]
    with psycopg.connect(postgres_db, autocommit=True, application_name=LISTENER_NAME) as listener:
        row = listener.execute("SELECT current_schema()").fetchone()
        assert row is not None
        schema = row[0]

        def ours(seconds: float, stop_after: int | None = None) -> list[str]:
            heard = []
            for n in listener.notifies(timeout=seconds):
                if n.payload.startswith(f"{schema}:"):
                    heard.append(n.payload)
                    if stop_after is not None and len(heard) >= stop_after:
                        break
            return heard

        listener.execute(f"LISTEN {CHANNEL}")
        discard_current(postgres_db, gid)
        assert ours(2, 1) == [f"{schema}:{gid}:{origin()}"]
        with pytest.raises(GameChanged):
            discard_current(postgres_db, gid, Seen(events=1))
        assert ours(0.5) == []
        other = new_game(postgres_db)
        assert ours(2, 1) == [f"{schema}:{other}:{origin()}"]


def test_a_server_that_cannot_be_reached_is_said_at_once_without_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        PgStore("postgresql://ann:secret@127.0.0.1:9/club").load()
    # at once: libpq's own reason from the first connection, not the pool's "couldn't get a connection" after its wait
    assert "Connection refused" in str(caught.value) and "couldn't get a connection" not in str(caught.value)
    assert "secret" not in str(caught.value) and "postgresql://ann@127.0.0.1:9/club" in str(caught.value)


@pytest.mark.parametrize("url", ["postgresql://nobody:secret@[::1/x", "postgresql://nobody:secret@127.0.0.1:1/x?sslmode=bogus"])
def test_an_address_libpq_cannot_parse_is_said_without_its_password(url: str) -> None:
    """libpq repeats an address it cannot parse, password and all: the message names it without."""
    with pytest.raises(StoreError) as caught:
        PgStore(url).load()
    assert "secret" not in str(caught.value) and str(caught.value).startswith("cannot open postgresql://")


def test_error_text_is_scrubbed_of_passwords_in_addresses_and_parameters() -> None:
    url = "postgresql://ann:s3cret@db.example:5432/club"
    said = scrubbed(f'invalid URI query parameter in "{url}"; also postgres://bob:pw@h/x and password=hunter2 here', url)
    assert "s3cret" not in said and ":pw@" not in said and "hunter2" not in said
    assert "postgresql://ann@db.example:5432/club" in said and "postgres://bob:***@h/x" in said


# -- a board's worker: psycopg imported after gevent's patch, its own pool after the fork (issue 25's load test) ---

_GREEN = """
import sys
from gevent import monkey
monkey.patch_all()
import gevent
import psycopg  # first imported after the patch, as in a board's worker: its waits are gevent's

finished = []

def query(name, seconds):
    with psycopg.connect(sys.argv[1]) as conn:
        conn.execute("SELECT pg_sleep(%s)", (seconds,))
    finished.append(name)

slow = gevent.spawn(query, "slow", 2)
gevent.sleep(0.3)  # the slow query is in the server's hands
quick = gevent.spawn(query, "quick", 0)
gevent.joinall([slow, quick], raise_error=True)
print(" ".join(finished))
"""


def test_psycopg_imported_after_gevent_s_patch_lets_other_greenlets_run(postgres_db: str) -> None:
    """One greenlet's query waits on gevent's loop: another greenlet's query, started after it, finishes first."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _GREEN, postgres_db], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == ["quick", "slow"], done


_MASTER = """
import sys
from referee.board.cli import _current_game
from referee.store_pg import is_database_url, shown_address

assert is_database_url(sys.argv[1]) and shown_address(sys.argv[1]).startswith("postgresql://")
print(_current_game(sys.argv[1], None), "psycopg" in sys.modules)
"""


def test_a_board_s_master_reads_the_current_game_without_importing_psycopg(postgres_db: str) -> None:
    """The gunicorn master of ``board --players`` names the address and reads the game it opens on, but psycopg is
    first imported in its worker, after gevent's patch (else its waits would stop the worker's loop)."""
    import subprocess
    import sys

    gid, _g, _r = open_store(postgres_db).create(Setup(players=("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))
    done = subprocess.run([sys.executable, "-c", _MASTER, postgres_db], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == [str(gid), "False"], done


def test_a_forked_child_makes_its_own_pool(postgres_db: str) -> None:
    """A pool made before a fork has no worker threads in the child and shares the parent's sockets: the child
    makes its own, which opens as many connections as it needs."""
    import os

    from referee.store_pg import pool

    parent = pool(postgres_db)
    with parent.connection() as conn:
        conn.execute("SELECT 1")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        code = 1
        try:
            mine = pool(postgres_db)
            with mine.connection(timeout=5) as one, mine.connection(timeout=5) as two:
                one.execute("SELECT 1")
                two.execute("SELECT 1")
            code = 0 if mine is not parent else 2
        finally:
            os.write(write, str(code).encode())
            os._exit(0)
    os.close(write)
    answer = os.read(read, 10)
    os.waitpid(child, 0)
    assert answer == b"0", "the child used its parent's pool" if answer == b"2" else answer
    with parent.connection() as conn:  # the parent's pool is untouched by the child
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_read_sees_one_snapshot_while_a_write_commits(postgres_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``verify`` reads a game's events, replays them, then reads its saved state; a write committing in between
    must not read as damage (at READ COMMITTED each statement saw the newest commit: "its saved state does not match
    its events" on a game nothing had damaged). ``status`` reads the view, then the version: the same view."""
    from referee.store import Store

    gid = new_game(postgres_db)
    original_events, original_kept = Store._events, Store._kept
    wrote: list[str] = []

    def events_then_a_write(self: Any, conn: Any, game_id: int, check: bool = True) -> Any:
        found = original_events(self, conn, game_id, check)
        if not wrote:
            wrote.append(discard_current(postgres_db, gid))  # another connection commits meanwhile
        return found

    monkeypatch.setattr(Store, "_events", events_then_a_write)
    assert open_store(postgres_db).verify() == (1, 2, [])  # the two events it saw, and no damage
    assert wrote == ["Ann"] and open_store(postgres_db).verify() == (1, 3, [])
    monkeypatch.setattr(Store, "_events", original_events)

    def kept_then_a_write(self: Any, conn: Any, game_id: int, what: str) -> Any:
        found = original_kept(self, conn, game_id, what)
        if len(wrote) == 1:
            wrote.append(discard_current(postgres_db, gid))
        return found

    monkeypatch.setattr(Store, "_kept", kept_then_a_write)
    _gid, view, problem = open_store(postgres_db).checked_view(gid)
    assert wrote == ["Ann", "Bob"] and problem is None
    assert view["version"].startswith("3-") and view["state"]["turn"] == "Bob"  # the view and version of one state
