"""The store's dialect seam (``referee/store_sql.py``): each backend names the same statements, and a fresh store
on each builds the same schema (tables, columns, their types, nullability and keys, foreign keys, indexes)."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from referee.store import Store
from referee.store_sql import POSTGRESQL, POSTGRESQL_WRITE, SQLITE

#: The types as both backends spell them, made one.
TYPES = {"integer": "integer", "bigint": "integer", "text": "text", "blob": "bytes", "bytea": "bytes",
         "double precision": "real", "real": "real"}


def test_both_backends_name_the_same_statements() -> None:
    assert set(SQLITE) == set(POSTGRESQL) == set(POSTGRESQL_WRITE)
    assert all("%s" not in sql for sql in (*SQLITE.values(), *POSTGRESQL.values()))  # both take ? placeholders
    assert [name for name in POSTGRESQL if POSTGRESQL_WRITE[name] != POSTGRESQL[name]] == [
        "latest_game", "one_game", "purge_summaries"]  # a write locks the rows it reads them by


def sqlite_schema(path: Path) -> dict[str, Any]:
    con = sqlite3.connect(path)
    try:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                            "'sqlite_%' ORDER BY name")]
        schema: dict[str, Any] = {}
        for table in tables:
            columns = {}
            keys = []
            for _cid, name, kind, notnull, _default, pk in con.execute(f"PRAGMA table_info({table})"):
                columns[name] = (TYPES[kind.lower()], bool(notnull or pk))
                if pk:
                    keys.append((pk, name))
            foreign = sorted((src, ref, dst, on_delete) for _id, _seq, ref, src, dst, _update, on_delete, _match in
                             con.execute(f"PRAGMA foreign_key_list({table})"))
            indexes = set()
            for _seq, name, unique, origin, _partial in con.execute(f"PRAGMA index_list({table})"):
                if origin == "pk":
                    continue
                cols = tuple(c for _n, _cid, c in con.execute(f"PRAGMA index_info({name})"))
                indexes.add((name if origin == "c" else "(constraint)", cols, bool(unique)))
            schema[table] = {"columns": columns, "key": tuple(n for _i, n in sorted(keys)), "foreign": foreign,
                             "indexes": indexes}
        return schema
    finally:
        con.close()


def postgres_schema(url: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(url) as conn:
        found = conn.execute("SELECT current_schema()").fetchone()
        assert found is not None
        schema_name = found[0]
        tables = [t for (t,) in conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
                                             "AND table_name <> 'uw_referee_meta' ORDER BY table_name",
                                             (schema_name,))]
        schema: dict[str, Any] = {}
        for table in tables:
            columns = {name: (TYPES[kind.lower()], nullable == "NO") for name, kind, nullable in conn.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = %s "
                "AND table_name = %s", (schema_name, table))}
            key = tuple(n for (n,) in conn.execute(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND "
                "a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
                "ORDER BY array_position(i.indkey, a.attnum)", (f"{schema_name}.{table}",)))
            foreign = sorted(conn.execute(
                "SELECT kcu.column_name, ccu.table_name, ccu.column_name, rc.delete_rule FROM "
                "information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu ON "
                "kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema JOIN "
                "information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND "
                "ccu.table_schema = tc.table_schema JOIN information_schema.referential_constraints rc ON "
                "rc.constraint_name = tc.constraint_name AND rc.constraint_schema = tc.table_schema WHERE "
                "tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = %s AND tc.table_name = %s",
                (schema_name, table)).fetchall())
            indexes = set()
            for name, unique, constraint, cols in conn.execute(
                    "SELECT c.relname, i.indisunique, con.conname IS NOT NULL, array(SELECT a.attname FROM "
                    "unnest(i.indkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = i.indrelid AND "
                    "a.attnum = k.n ORDER BY k.o) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid LEFT JOIN "
                    "pg_constraint con ON con.conindid = i.indexrelid WHERE i.indrelid = %s::regclass AND NOT "
                    "i.indisprimary", (f"{schema_name}.{table}",)):
                indexes.add((name if not constraint else "(constraint)", tuple(cols), bool(unique)))
            schema[table] = {"columns": columns, "key": key, "foreign": [tuple(f) for f in foreign],
                             "indexes": indexes}
        return schema


def test_a_fresh_store_has_the_same_schema_on_both_backends(tmp_path: Path, postgres_db: str) -> None:
    from referee.store_pg import open_store

    path = tmp_path / "g.sqlite3"
    Store(path).games()  # nothing yet: made by the first write
    from referee.engine import RollOff, Setup

    for store in (Store(path), open_store(postgres_db)):
        store.create(Setup(players=("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))
    lite, pg = sqlite_schema(path), postgres_schema(postgres_db)
    assert sorted(lite) == sorted(pg) == ["corrections", "events", "games", "phone_actions", "rate_limits", "redo", "seat_requests",
                                          "seats", "snapshots"]
    for table in lite:
        assert lite[table] == pg[table], table
