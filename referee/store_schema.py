"""The SQLite schema of a referee database and its migrations: each version's tables, and the steps that fill
in what a new version keeps for the games an older one wrote (the chain of digests, the words of the last actions).
SQLite's own: a second backend creates its schema at the latest version and never migrates these files."""
from __future__ import annotations

import json
import sqlite3

from referee.store_format import Linked, chain_record, chain_start, dumps, game_digest, snapshot_digest, told_tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

APPLICATION_ID = 0x55575246  # "UWRF": marks the file as ours
SCHEMA_VERSION = 8

#: Schema 6 on both backends: the seats a board gave (the player's name casefolded and as shown, the SHA-256 of its
#: token and of its CSRF token: never a token itself), the corrections a seat asked the host for, and the last action
#: a phone took in each game (the event count it left and the seat). Each row goes with its game (ON DELETE CASCADE).
SEATS_SCHEMA = """
    CREATE TABLE seats (
        game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat TEXT NOT NULL,
        name TEXT NOT NULL,
        token_sha256 TEXT NOT NULL UNIQUE,
        csrf_sha256 TEXT NOT NULL,
        taken_at TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE TABLE seat_requests (
        game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        seat TEXT NOT NULL,
        action TEXT NOT NULL,
        seen INTEGER NOT NULL,
        roll INTEGER,
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, id)
    );
    CREATE TABLE phone_actions (
        game_id BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        events INTEGER NOT NULL,
        seat TEXT NOT NULL
    )
    """

#: Schema 8 on SQLite: the games table again, with numbers never reused and a salt per game (MIGRATIONS[7]).
IDS_NEVER_REUSED = """
    CREATE TABLE games_v7 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        summary TEXT,
        salt TEXT NOT NULL DEFAULT (lower(hex(randomblob(16))))
    );
    INSERT INTO games_v7 (id, created_at, updated_at, summary, salt)
        SELECT id, created_at, updated_at, summary, '' FROM games;
    DROP TABLE games;
    ALTER TABLE games_v7 RENAME TO games;
    CREATE INDEX games_by_activity ON games(updated_at, id);
    DELETE FROM seat_requests WHERE rowid NOT IN (SELECT min(rowid) FROM seat_requests GROUP BY game_id, seat, action);
    CREATE UNIQUE INDEX IF NOT EXISTS one_request_per_seat_and_kind ON seat_requests(game_id, seat, action);
    CREATE TABLE IF NOT EXISTS rate_limits (key TEXT NOT NULL, slot BIGINT NOT NULL, hits INTEGER NOT NULL,
                                            until DOUBLE PRECISION NOT NULL, PRIMARY KEY (key, slot))
    """

#: Schema 8 on PostgreSQL (``store_pg.PG_MIGRATIONS``): the salt, as SQLite's (an identity never gives a number
#: twice already: the games written before keep '' and so their join codes, each new one gets 122 random bits), one
#: waiting request per seat and kind, the replicas' shared limits.
PG_SCHEMA_8 = """
    ALTER TABLE games ADD COLUMN IF NOT EXISTS salt TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ALTER COLUMN salt SET DEFAULT replace(gen_random_uuid()::text, '-', '');
    DELETE FROM seat_requests a USING seat_requests b WHERE a.game_id = b.game_id AND a.seat = b.seat
        AND a.action = b.action AND a.ctid > b.ctid;
    CREATE UNIQUE INDEX IF NOT EXISTS one_request_per_seat_and_kind ON seat_requests(game_id, seat, action);
    CREATE TABLE IF NOT EXISTS rate_limits (key TEXT NOT NULL, slot BIGINT NOT NULL, hits INTEGER NOT NULL,
                                            until DOUBLE PRECISION NOT NULL, PRIMARY KEY (key, slot))
    """

#: Migrations: MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE INDEX games_by_activity ON games(updated_at, id);
    """,
    # Version 2: a snapshot of each game's state (tied to its last event by a digest) and a summary
    # for listing. Games written by version 1 get both at their next write; until then they replay.
    """
    CREATE TABLE snapshots (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        view TEXT NOT NULL,
        digest TEXT NOT NULL
    );
    ALTER TABLE games ADD COLUMN summary TEXT;
    """,
    # Version 3: the corrections a table made (undo, redo, amend), for log and export and for new
    # virtual rolls after an undo; and each game's redo stack (undone events, most recent first).
    """
    CREATE TABLE corrections (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE redo (
        game_id INTEGER NOT NULL REFERENCES games(id),
        pos INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, pos)
    );
    """,
    # Version 4: each event carries the running digest of its game's events up to it (``chain_start``,
    # ``chain_record``), and snapshot digests cover the chain and the summary. Filled in by ``_fill_chains``.
    """
    ALTER TABLE events ADD COLUMN chain BLOB;
    """,
    # Version 5: beside each snapshot, the words of the game's last actions (``KEPT_ACTIONS``, as ``log`` says
    # them), made by the same applies that make the snapshot and covered by its digest. Filled in by ``_fill_recent``.
    """
    ALTER TABLE snapshots ADD COLUMN recent TEXT;
    """,
    # Version 6: the players' seats (``referee.store_seats``), so that any board process serves any table's phones.
    SEATS_SCHEMA,
    # Version 7: linked chains (``store_format.Linked``), so that a write checks and carries on a game's chain from
    # its last event instead of reading every event. No table changes: ``link_chains`` fills in the digests.
    "",
    # Version 8: a game's number is never given again (AUTOINCREMENT: a purged game's number was the next game's,
    # and so were its join code and host token), and each game has a random salt that its code and host token are
    # made from (``referee.board.seats.join_code``). The games written before keep the salt '' and so their codes.
    # And one correction waits per seat and kind (one seat had sent 240 in 2 s, each printed on the terminal), and
    # the limits every replica shares (wrong join codes, tables started) are counted here (``SeatBook.hit``).
    # SQLite cannot add AUTOINCREMENT in place: the table is made again (foreign keys off meanwhile, ``migrate``).
    IDS_NEVER_REUSED,
]


def _fill_recent(conn: sqlite3.Connection) -> None:
    """Migration to schema 5: every snapshot that matches its events gets the words of the game's last actions
    (one replay per game, once) and its digest again with them. A game that cannot be replayed keeps none
    (readers then replay it, and ``verify`` names the damage)."""
    from referee.events import event_from_dict

    rows = conn.execute("SELECT s.game_id, s.seq, s.state, s.view, s.digest, g.summary FROM snapshots s JOIN games g "
                        "ON g.id = s.game_id").fetchall()
    for gid, seq, state, view, digest, summary in rows:
        last = conn.execute("SELECT seq, chain FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                            (gid,)).fetchone()
        if last is None or last[0] + 1 != seq or not isinstance(last[1], bytes):
            continue
        if game_digest(seq, last[1], state, view, summary) != digest:
            continue
        try:
            events = [event_from_dict(json.loads(data)) for (data,) in conn.execute(
                "SELECT data FROM events WHERE game_id = ? ORDER BY seq", (gid,))]
            _game, window = told_tail(events)
        except (ValueError, KeyError, TypeError):
            continue
        recent = dumps(window)
        conn.execute("UPDATE snapshots SET recent = ?, digest = ? WHERE game_id = ?",
                     (recent, game_digest(seq, last[1], state, view, summary, recent), gid))


def _fill_chains(conn: sqlite3.Connection) -> None:
    """Migration to schema 4: every event gets its running digest, every snapshot the digest of schema 4.

    A snapshot that did not match its game's last event is dropped (the game replays until its next write).
    """
    heads: dict[int, tuple[int, str, bytes]] = {}
    for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall():
        chain = chain_start(gid)
        rows = []
        last: tuple[int, str] | None = None
        for seq, at, data in conn.execute("SELECT seq, at, data FROM events WHERE game_id = ? ORDER BY seq", (gid,)):
            chain.update(chain_record(seq, at, data))
            rows.append((chain.digest(), gid, seq))
            last = (seq, data)
        conn.executemany("UPDATE events SET chain = ? WHERE game_id = ? AND seq = ?", rows)
        if last is not None:
            heads[gid] = (last[0], last[1], chain.digest())
    for gid, seq, state, view, digest, summary in conn.execute(
            "SELECT s.game_id, s.seq, s.state, s.view, s.digest, g.summary FROM snapshots s JOIN games g ON "
            "g.id = s.game_id").fetchall():
        head = heads.get(gid)
        if head is None or head[0] + 1 != seq or snapshot_digest(seq, head[1], state, view) != digest:
            conn.execute("DELETE FROM snapshots WHERE game_id = ?", (gid,))
        else:
            conn.execute("UPDATE snapshots SET digest = ? WHERE game_id = ?",
                         (game_digest(seq, head[2], state, view, summary), gid))


#: The events of a game with their time and data as stored, for ``link_chains`` (the same on both backends: the
#: text's UTF-8 bytes are what ``chain_record`` hashes).
LINK_ROWS = "SELECT seq, at, data, chain FROM events WHERE game_id = ? ORDER BY seq"


def link_chains(conn: Any) -> None:
    """Migration to schema 7, on either backend (``conn`` takes ``?`` placeholders): every game whose running chain
    (schemas 4 to 6) is whole gets linked digests (``Linked``), and its snapshot, when it matched, its digest over
    the new head. A game whose chain or snapshot was damaged keeps its old digests: they no longer match, so the
    damage is still found (``verify``), never laundered by the migration."""
    games = [gid for (gid,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall()]
    for gid in games:
        running = chain_start(gid)
        linked = Linked(chain_start(gid).digest())
        rows = []
        whole = True
        for i, (seq, at, data, digest) in enumerate(conn.execute(LINK_ROWS, (gid,)).fetchall()):
            record = chain_record(seq, at, data)
            running.update(record)
            linked.update(record)
            if seq != i or bytes(digest or b"") != running.digest():
                whole = False
                break
            rows.append((linked.digest(), gid, seq))
        if not whole or not rows:
            continue
        old_head, new_head = running.digest(), linked.digest()
        conn.executemany("UPDATE events SET chain = ? WHERE game_id = ? AND seq = ?", rows)
        found = conn.execute("SELECT s.seq, s.state, s.view, s.digest, g.summary, s.recent FROM snapshots s JOIN games g "
                             "ON g.id = s.game_id WHERE s.game_id = ?", (gid,)).fetchone()
        if found is None:
            continue
        seq, state, view, digest, summary, recent = found
        if seq == len(rows) and game_digest(seq, old_head, state, view, summary, recent) == digest:
            conn.execute("UPDATE snapshots SET digest = ? WHERE game_id = ?",
                         (game_digest(seq, new_head, state, view, summary, recent), gid))


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite ends some on its own after an I/O or disk-full error)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the original error is the one worth reporting


def migrate(conn: sqlite3.Connection, verify: Callable[[sqlite3.Connection, int], None]) -> None:
    """Bring the file to ``SCHEMA_VERSION`` in one transaction; a file already written is ``verify``-ed first, at
    the version it has (a damaged file is never migrated)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version >= SCHEMA_VERSION:
        return
    if version:
        verify(conn, version)
    keys = conn.execute("PRAGMA foreign_keys").fetchone()[0]
    conn.execute("PRAGMA foreign_keys=OFF")  # a table made again (version 8) is dropped: no cascade, no refusal
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
        for step in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[step].split(";"):
                if statement.strip():
                    conn.execute(statement)
            if step == 3:
                _fill_chains(conn)
            if step == 4:
                _fill_recent(conn)
            if step == 6:
                link_chains(conn)
        if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
            raise sqlite3.IntegrityError("a row refers to a game that is not there")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    finally:
        conn.execute(f"PRAGMA foreign_keys={'ON' if keys else 'OFF'}")
