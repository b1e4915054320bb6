"""Bad files, through real processes: a broken dictionary stops the CLI, create_app and gunicorn at
start with one line naming the file; a corrupt, damaged or foreign referee database gets one clear
line and is never written to."""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dictionaries import DATA_DIR, METADATA
from dictionaries.errors import DictionaryError
from reliability.common import GUNICORN, REFEREE, ROOT, Server, clean_env, free_port, run_referee

pytestmark = pytest.mark.slow  # real processes and servers over damaged and missing files

# -- a broken dictionary --------------------------------------------------------------------------


def _missing(d: Path) -> Path:
    (d / "words.marisa").unlink()
    return d / "words.marisa"


def _missing_metadata(d: Path) -> Path:
    (d / METADATA).unlink()
    return d / METADATA


def _truncated(d: Path) -> Path:
    file = d / "racks.nodes"
    data = file.read_bytes()
    file.write_bytes(data[: len(data) // 2])
    return file


def _wrong_version(d: Path) -> Path:
    meta = json.loads((d / METADATA).read_text())
    meta["format_version"] = 2
    (d / METADATA).write_text(json.dumps(meta))
    return d / METADATA


def _garbage(name: str) -> Callable[[Path], Path]:
    """Replace ``name`` by random bytes of the same size (issue 13: 500s, an IndexError, silent empty racks)."""
    def breaks(d: Path) -> Path:
        file = d / name
        file.write_bytes(os.urandom(file.stat().st_size))
        return file
    return breaks


def _one_byte(d: Path) -> Path:
    """One byte changed in the middle of words.levels: sizes and counts all still match."""
    file = d / "words.levels"
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0x01
    file.write_bytes(bytes(data))
    return file


BREAKAGES: dict[str, Callable[[Path], Path]] = {
    "missing": _missing, "missing-metadata": _missing_metadata, "truncated": _truncated, "wrong-version": _wrong_version,
    "garbage-words.levels": _garbage("words.levels"), "garbage-racks.words": _garbage("racks.words"),
    "garbage-racks.nodes": _garbage("racks.nodes"), "one-byte-words.levels": _one_byte,
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Each breakage: (the broken dictionary directory, the file the message must name)."""
    out = {}
    for name, breaks in BREAKAGES.items():
        copy = tmp_path_factory.mktemp(f"dictionary-{name}") / "data"
        shutil.copytree(DATA_DIR, copy)
        out[name] = (copy, breaks(copy))
    return out


def one_line(text: str) -> str:
    """The text, which must be exactly one non-empty line and no traceback."""
    found = [line for line in text.splitlines() if line.strip()]
    assert len(found) == 1, text
    assert "Traceback" not in text
    return found[0]


@pytest.mark.parametrize("case", BREAKAGES)
def test_cli_stops_with_one_line_naming_the_file(broken: dict[str, tuple[Path, Path]], case: str, tmp_path: Path) -> None:
    directory, file = broken[case]
    done = subprocess.run([*REFEREE, "check", "taps"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=clean_env(UW_DICTIONARY=str(directory)))
    assert done.returncode == 1 and done.stdout == ""
    line = one_line(done.stderr)
    assert line.startswith("Error: ") and str(file) in line


@pytest.mark.parametrize("case", BREAKAGES)
def test_create_app_raises_one_line_naming_the_file(broken: dict[str, tuple[Path, Path]], case: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from service.app import create_app

    directory, file = broken[case]
    monkeypatch.setenv("UW_DICTIONARY", str(directory))  # as gunicorn's workers get it
    with pytest.raises(DictionaryError) as raised:
        create_app()
    message = one_line(str(raised.value))
    assert str(file) in message
    assert raised.value.__cause__ is None  # no chained traceback
    assert raised.value.__context__ is None or raised.value.__suppress_context__


GUNICORN_CASES = ("missing", "truncated", "wrong-version", "garbage-racks.nodes", "one-byte-words.levels")


@pytest.fixture(scope="module")
def gunicorn_starts(broken: dict[str, tuple[Path, Path]]) -> dict[str, tuple[int | None, str, bool]]:
    """gunicorn (the Procfile's command, one worker) on each broken dictionary: (exit status, output, answered)."""
    out = {}
    for case in GUNICORN_CASES:
        port = free_port()
        args = [a.format(port=port) for a in GUNICORN]
        process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   env=clean_env(UW_DICTIONARY=str(broken[case][0]), WEB_CONCURRENCY="1"))
        answered = False
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                    conn.settimeout(0.5)
                    conn.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
                    answered = answered or conn.recv(64).startswith(b"HTTP/")
            except OSError:
                pass
            time.sleep(0.1)
        if process.poll() is None:
            process.kill()
        output = process.communicate(timeout=30)[0]
        out[case] = (process.returncode, output, answered)
    return out


@pytest.mark.parametrize("case", GUNICORN_CASES)
def test_gunicorn_refuses_to_serve(gunicorn_starts: dict[str, tuple[int | None, str, bool]],
                                   broken: dict[str, tuple[Path, Path]], case: str) -> None:
    status, output, answered = gunicorn_starts[case]
    assert status not in (None, 0), output  # it stopped by itself, as a failure
    assert not answered                     # and never answered a request
    assert str(broken[case][1]) in output   # the log names the file


@pytest.mark.parametrize("case", GUNICORN_CASES)
def test_gunicorn_start_error_is_one_line(gunicorn_starts: dict[str, tuple[int | None, str, bool]],
                                          broken: dict[str, tuple[Path, Path]], case: str) -> None:
    _, output, _ = gunicorn_starts[case]
    assert "Traceback" not in output
    assert len([line for line in output.splitlines() if str(broken[case][1]) in line]) == 1


def _get(server: Server, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()


def test_files_changed_under_a_running_server_are_never_served(tmp_path: Path) -> None:
    """A file rewritten in place under gunicorn: within a second /healthz is a 503 and no word or
    rack is answered from it (the memory maps see the new bytes); a file rewritten with the same
    bytes (only its times change) is re-verified and still served."""
    directory = tmp_path / "data"
    shutil.copytree(DATA_DIR, directory)
    with Server(workers=2, env={"UW_DICTIONARY": str(directory)}) as server:
        assert _get(server, "/healthz")[0] == 200
        same = directory / "words.marisa"
        same.write_bytes(same.read_bytes())  # new times, same bytes
        time.sleep(1.2)
        for _ in range(6):  # every worker
            assert _get(server, "/healthz")[0] == 200
            assert _get(server, "/v1/words/taps")[0] == 200
        nodes = directory / "racks.nodes"
        with open(nodes, "r+b") as handle:  # in place: the running workers' maps see it
            handle.write(os.urandom(nodes.stat().st_size))
        time.sleep(1.2)
        for path in ["/healthz", "/v1/words/taps", "/v1/racks/tapsxe", "/v1/words/jazz?deck=double",
                     "/v1/dictionary"] * 3:
            status, content_type, body = _get(server, path)
            assert (status, content_type) == (503, "application/problem+json"), (path, body[:200])
            assert b"Traceback" not in body and str(directory).encode() not in body
        log = server.log()
    assert "racks.nodes does not match its checksum" in log


# -- a bad referee database -----------------------------------------------------------------------

COMMANDS = (("status",), ("games",), ("export",), ("new", "Ann", "Bob", "--first", "Ann"), ("play", "taps", "--roll", "5"),
            ("discard",), ("undo",))


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_refused_untouched(db: Path, commands: tuple[tuple[str, ...], ...] = COMMANDS, reads_may_pass: bool = False,
                             words: tuple[str, ...] = ()) -> None:
    """Each command: exit 1 with one line naming the file (a read may pass), and the bytes never change."""
    before = file_digest(db)
    for args in commands:
        outcome = run_referee(db, *args)
        if reads_may_pass and args[0] in ("status", "games", "export") and outcome.code == 0:
            continue
        assert outcome.code == 1, outcome.describe()
        line = one_line(outcome.stderr)
        assert str(db) in line and line.startswith("Error: "), line
        for word in words:
            assert word in line, line
        assert file_digest(db) == before, f"{args} changed {db}"
    assert file_digest(db) == before


@pytest.mark.parametrize(("content", "words"), [
    (b"these are my notes, not a database\n" * 200, ("not a readable uw-referee database",)),
    (b"SQLite format 3\x00" + b"\xff" * 4000, ("not a readable uw-referee database",)),
], ids=["text", "sqlite-header-then-garbage"])
def test_corrupt_file(tmp_path: Path, content: bytes, words: tuple[str, ...]) -> None:
    db = tmp_path / "games.sqlite3"
    db.write_bytes(content)
    assert_refused_untouched(db, words=words)


def test_foreign_sqlite_database(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('Nyarlathotep');")
    con.close()
    assert_refused_untouched(db, words=("another program",))


def test_database_of_a_newer_referee(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    assert run_referee(db, "new", "Ann", "Bob", "--first", "Ann").code == 0
    con = sqlite3.connect(db)
    from referee.store import SCHEMA_VERSION

    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert_refused_untouched(db, words=("newer uw-referee",))


def test_database_path_is_a_directory(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    db.mkdir()
    for args in (("status",), ("games",), ("new", "Ann", "Bob", "--first", "Ann"), ("discard",)):
        outcome = run_referee(db, *args)
        assert outcome.code == 1 and "is a directory" in one_line(outcome.stderr), outcome.describe()
    assert list(db.iterdir()) == []


@pytest.fixture(scope="module")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real referee database of several pages, checkpointed into one file."""
    db = tmp_path_factory.mktemp("played") / "games.sqlite3"
    assert run_referee(db, "new", "Ann", "Bob", "Cy", "--first", "Ann").code == 0
    from referee.store import chain_record, chain_start
    from referee.store_format import Linked

    con = sqlite3.connect(db)  # many events quickly: the same JSON the referee writes for discards
    data = '{"type":"discarded","player":"%s","letters":null}'
    rows = [(1, 2 + i, "2026-01-01T00:00:00.000+00:00", data % ("Ann", "Bob", "Cy")[i % 3]) for i in range(150)]
    chain = Linked(chain_start(1).digest())  # with the linked digests the referee gives each event (schema 7)
    for seq, at, text in con.execute("SELECT seq, at, data FROM events WHERE game_id = 1 ORDER BY seq").fetchall():
        chain.update(chain_record(seq, at, text))
    chained = []
    for row in rows:
        chain.update(chain_record(*row[1:]))
        chained.append((*row, chain.digest()))
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", chained)
    con.execute("DELETE FROM snapshots")  # the game is replayed, as a game of version 1 is
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert run_referee(db, "discard").code == 0  # the referee replays it and adds to it
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    con.close()
    assert pages >= 6
    return db


def test_damaged_page_anywhere_is_refused_before_any_write(played_db: Path, tmp_path: Path) -> None:
    """A bad page beyond the header: reads that touch it and every write stop with one line.

    Before the fix, reads died with a traceback (sqlite3.DatabaseError) and 'new' wrote into a
    damaged file when the insert did not touch the bad page.
    """
    con = sqlite3.connect(played_db)
    page_size, pages = con.execute("PRAGMA page_size").fetchone()[0], con.execute("PRAGMA page_count").fetchone()[0]
    con.close()
    for page in range(2, pages + 1):
        db = tmp_path / f"damaged-{page}.sqlite3"
        shutil.copyfile(played_db, db)
        with open(db, "r+b") as f:
            f.seek((page - 1) * page_size)
            f.write(b"\xde\xad\xbe\xef" * (page_size // 4))
        assert_refused_untouched(db, (("status",), ("games",), ("new", "Ann", "Bob", "--first", "Ann"), ("discard",)),
                                 reads_may_pass=True)
        assert not os.path.exists(f"{db}-wal") or os.path.getsize(f"{db}-wal") == 0
