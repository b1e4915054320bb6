"""The store's statements that differ between its two backends, by name: SQLite's text and PostgreSQL's side by side,
so that a backend runs its own statement and never another's looked up by its text (an edit to one cannot silently
send SQLite's SQL to PostgreSQL). Every other statement of the store is plain SQL both run alike, with ``?``
placeholders (PostgreSQL's connection turns them into psycopg's ``%s``). ``tests/test_store_sql.py`` checks that
both backends name the same statements and build the same tables, columns, types, keys and indexes."""
from __future__ import annotations

#: SQLite's statements (``referee.store.Store``).
SQLITE: dict[str, str] = {
    # A game's events before seq ``?`` as one byte string of ``chain_record``s, with their count and last seq: one
    # query and one hash call check a schema 4 to 6 chain of thousands of events (rows read in the key's order).
    "chain_aggregate": "SELECT CAST(group_concat(at || data, '\x1e') AS BLOB), count(*), max(seq) FROM (SELECT seq, at, "
                       "data FROM events WHERE game_id = ? AND seq < ? ORDER BY seq)",
    # The events ``seq`` in [?, ?) with their bytes as stored and their chain digest.
    "chain_rows": "SELECT seq, CAST(at AS BLOB), CAST(data AS BLOB), chain FROM events WHERE game_id = ? AND seq >= ? "
                  "AND seq < ? ORDER BY seq",
    "snapshot_upsert": "INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest, recent) VALUES "
                       "(?, ?, ?, ?, ?, ?)",
    "snapshot_upsert_4": "INSERT OR REPLACE INTO snapshots (game_id, seq, state, view, digest) VALUES (?, ?, ?, ?, ?)",
    "new_game": "INSERT INTO games (created_at, updated_at) VALUES (?, ?)",
    # The game a write or a read is about; a write's reads come after every earlier write's commit (SQLite's write
    # lock is the whole file's, taken by BEGIN IMMEDIATE).
    "latest_game": "SELECT id FROM games ORDER BY updated_at DESC, id DESC LIMIT 1",
    "one_game": "SELECT id FROM games WHERE id = ?",
    "purge_summaries": "SELECT id, created_at, updated_at, summary FROM games ORDER BY id",
}

#: PostgreSQL's (``referee.store_pg.PgStore``): the same rows and the same bytes.
POSTGRESQL: dict[str, str] = {
    "chain_aggregate": "SELECT string_agg(convert_to(at || data, 'UTF8'), '\\x1e'::bytea ORDER BY seq), count(*), "
                       "max(seq) FROM events WHERE game_id = ? AND seq < ?",
    "chain_rows": "SELECT seq, convert_to(at, 'UTF8'), convert_to(data, 'UTF8'), chain FROM events WHERE game_id = ? "
                  "AND seq >= ? AND seq < ? ORDER BY seq",
    "snapshot_upsert": "INSERT INTO snapshots (game_id, seq, state, view, digest, recent) VALUES (?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (game_id) DO UPDATE SET seq = EXCLUDED.seq, state = EXCLUDED.state, "
                       "view = EXCLUDED.view, digest = EXCLUDED.digest, recent = EXCLUDED.recent",
    # (PostgreSQL databases start at schema 5: never without ``recent``)
    "snapshot_upsert_4": "INSERT INTO snapshots (game_id, seq, state, view, digest) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT (game_id) DO UPDATE SET seq = EXCLUDED.seq, state = EXCLUDED.state, "
                         "view = EXCLUDED.view, digest = EXCLUDED.digest",
    "new_game": "INSERT INTO games (created_at, updated_at) VALUES (?, ?) RETURNING id",
    "latest_game": "SELECT id FROM games ORDER BY updated_at DESC, id DESC LIMIT 1",
    "one_game": "SELECT id FROM games WHERE id = ?",
    "purge_summaries": "SELECT id, created_at, updated_at, summary FROM games ORDER BY id",
}

#: PostgreSQL in a write transaction: the game's row is locked by the write's first read of it, so that two
#: replicas writing one game take turns and the second reads the first's commit; ``purge`` judges every game as it
#: is now, their rows locked.
POSTGRESQL_WRITE: dict[str, str] = {
    **POSTGRESQL,
    "latest_game": POSTGRESQL["latest_game"] + " FOR UPDATE",
    "one_game": POSTGRESQL["one_game"] + " FOR UPDATE",
    "purge_summaries": POSTGRESQL["purge_summaries"] + " FOR UPDATE",
}

__all__ = ["POSTGRESQL", "POSTGRESQL_WRITE", "SQLITE"]
