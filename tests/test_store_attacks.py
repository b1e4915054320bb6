"""Issue 22's attacks on the store, through the real ``uw-referee`` in fresh processes: bit rot that keeps the
file's size, time and inode; paths SQLite keeps in memory; a hostile stamp; a newer schema; read-only
-wal/-shm files left by another user; escape sequences in a deck file's name. Each one failed before
issue 22 (RELIABILITY.md, "Issue 22")."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dictionaries.deck import STANDARD
from referee.engine import Discarded, RollOff, Setup
from referee.store import SCHEMA_VERSION, STAMP_SUFFIX, Store, StoreError

pytestmark = pytest.mark.slow  # ten of its thirteen attacks run uw-referee processes by the dozen or fork as other users

ROOT = Path(__file__).resolve().parent.parent
#: The installed console entry point (the quick path, handing over to Click for anything else).
UW = (sys.executable, "-c", "from referee.quick import main; main()")


def uw(db: Path | str, *args: str, cwd: Path | None = None, lang: str = "en") -> subprocess.CompletedProcess[str]:
    """``uw-referee --db DB ARGS`` in a fresh process, stdin closed, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UW_")}
    env.update(UW_LANG=lang, NO_COLOR="1", PYTHONPATH=str(ROOT))
    return subprocess.run([*UW, "--db", str(db), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env=env, cwd=cwd or ROOT, timeout=60)


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr
    return done


def a_game(db: Path) -> None:
    """Game 1, Ann and Bob: events 0 (created), 1 (roll-off), then TAPS, LOOK, CHAMP each with its roll."""
    ok(uw(db, "new", "Ann", "Bob", "--first", "Ann"))
    for word, roll in (("TAPS", 11), ("LOOK", 12), ("CHAMP", 13)):
        ok(uw(db, "play", word, "--roll", str(roll)))


def files_of(db: Path) -> dict[str, bytes]:
    """The database and everything beside it (stamp, -wal, -shm), byte for byte."""
    return {p.name: p.read_bytes() for p in sorted(db.parent.iterdir()) if p.name.startswith(db.name)}


# -- bit rot that keeps size, modification time and inode -------------------------------------------

def _event_4(con: sqlite3.Connection) -> tuple[str, str]:
    at, data = con.execute("SELECT at, data FROM events WHERE game_id = 1 AND seq = 4").fetchone()
    return at + data, '"score":'  # the record's two texts lie side by side in its cell


def _last_event(con: sqlite3.Connection) -> tuple[str, str]:
    at, data = con.execute("SELECT at, data FROM events WHERE game_id = 1 AND seq = 7").fetchone()
    return at + data, '"roll":'  # CHAMP's roll, the game's last event


def _snapshot(con: sqlite3.Connection) -> tuple[str, str]:
    return con.execute("SELECT state FROM snapshots WHERE game_id = 1").fetchone()[0], '"score":'


def _summary(con: sqlite3.Connection) -> tuple[str, str]:
    return con.execute("SELECT summary FROM games WHERE id = 1").fetchone()[0], '"scores":['


def rot_one_byte(db: Path, where: Callable[[sqlite3.Connection], tuple[str, str]]) -> None:
    """Change one digit inside the text ``where`` finds, in place: same size, same inode, times put back."""
    with sqlite3.connect(f"file:{db}?immutable=1", uri=True) as con:  # leaves no -wal or -shm behind
        text, before = where(con)
    con.close()
    raw = db.read_bytes()
    assert raw.count(text.encode()) == 1, "the text must be found once in the file"
    offset = raw.index(text.encode()) + text.encode().index(before.encode()) + len(before)
    assert raw[offset:offset + 1].isdigit()
    old = os.stat(db)
    fd = os.open(db, os.O_RDWR)
    try:
        os.pwrite(fd, b"7" if raw[offset:offset + 1] != b"7" else b"6", offset)
    finally:
        os.close(fd)
    os.utime(db, ns=(old.st_atime_ns, old.st_mtime_ns))
    new = os.stat(db)
    assert (new.st_size, new.st_mtime_ns, new.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    assert db.read_bytes() != raw


@pytest.mark.parametrize(("where", "named", "told"), [
    (_last_event, "event 7 was changed after it was written", "event 7 was changed after it was written"),
    (_snapshot, "its saved state or summary was changed after it was written", "its saved state was changed"),
    (_summary, "its saved state or summary was changed after it was written", "its summary was changed"),
], ids=["event", "snapshot", "summary"])
def test_bit_rot_that_keeps_size_time_and_inode_is_never_written_over(
        tmp_path: Path, where: Callable[[sqlite3.Connection], tuple[str, str]], named: str, told: str) -> None:
    db = tmp_path / "g.sqlite3"
    a_game(db)
    assert not (tmp_path / "g.sqlite3-wal").exists()  # the last write checkpointed: every byte is in the file
    rot_one_byte(db, where)
    before = files_of(db)
    assert f"g.sqlite3{STAMP_SUFFIX}" in before  # the stamp still matches the file: only the chain can tell
    for args in (("play", "WAXY", "--roll", "20"),  # the quick path
                 ("play", "JUMBO", "--roll", "20", "--allow"),  # Click
                 ("discard",), ("undo",), ("amend", "--roll", "5")):
        done = uw(db, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "game 1 in" in done.stderr and named in done.stderr and "Nothing was written" in done.stderr, args
        # the command to type names this file (not the default database's): --db and the path
        assert f"uw-referee --db {db} verify" in done.stderr and "Traceback" not in done.stderr
        assert files_of(db) == before, args  # no write landed, the stamp was not renewed
    status = uw(db, "status")
    assert status.returncode == 1
    assert "Game 1: Ann, Bob" in status.stdout and named in status.stderr  # the scoreboard, then the damage
    verify = uw(db, "verify")
    assert verify.returncode == 1 and f"game 1: {told}" in verify.stdout, verify.stdout
    spanish = uw(db, "verify", lang="es")
    assert spanish.returncode == 1 and "partida 1:" in spanish.stdout and "Daños encontrados" in spanish.stdout
    after = files_of(db)  # reads may leave SQLite's empty -wal and its -shm, as any reader of a WAL file does
    assert {name: after[name] for name in before} == before


def test_bit_rot_behind_the_last_event_is_found_by_status_and_verify_and_never_laundered(tmp_path: Path) -> None:
    """A write checks its game's chain from the snapshot's link on (issue 33: a cost that does not grow with the
    game), so an event changed further back does not stop it; ``status`` (exit 1 after the scoreboard) and
    ``verify`` check the whole chain and name it, before the write and after it: the write's new events carry the
    chain on from the last digest, never over the damaged one, so the damage stays found."""
    db = tmp_path / "g.sqlite3"
    a_game(db)
    rot_one_byte(db, _event_4)
    assert "game 1: event 4 was changed" in uw(db, "verify").stdout
    status = uw(db, "status")
    assert status.returncode == 1 and "event 4 was changed" in status.stderr
    ok(uw(db, "discard"))
    verify = uw(db, "verify")
    assert verify.returncode == 1 and "game 1: event 4 was changed" in verify.stdout, verify.stdout
    assert uw(db, "status").returncode == 1
    for args in (("undo",), ("log",), ("export",)):  # whatever reads or rewrites the whole history stops
        done = uw(db, *args)
        assert done.returncode == 1 and "event 4 was changed" in done.stderr, args


def test_verify_says_a_whole_file_is_whole_and_checks_one_game(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    a_game(db)
    ok(uw(db, "new", "Cy", "Di", "--first", "Cy"))
    done = ok(uw(db, "verify"))
    assert "2 games and 10 events" in done.stdout and "No damage found" in done.stdout
    rot_one_byte(db, _event_4)
    assert "1 game and 2 events" in ok(uw(db, "verify", "--game", "2")).stdout
    assert uw(db, "verify", "--game", "1").returncode == 1
    ok(uw(db, "--game", "2", "discard"))  # a write to the undamaged game goes through
    assert "game 1: event 4 was changed" in uw(db, "verify").stdout


def test_every_replay_checks_the_chain(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    a_game(db)
    rot_one_byte(db, _event_4)
    for args in (("log",), ("export",)):
        done = uw(db, *args)
        assert done.returncode == 1 and "event 4 was changed" in done.stderr, args


def test_an_older_file_gets_its_chain_and_is_then_checked(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    a_game(db)
    with sqlite3.connect(db) as con:  # what issue 13's referee wrote: schema 3, no chain
        con.executescript("ALTER TABLE events DROP COLUMN chain; ALTER TABLE snapshots DROP COLUMN recent; "
                          "DROP TABLE seats; DROP TABLE seat_requests; DROP TABLE phone_actions; "
                          "PRAGMA user_version = 3;")
    con.close()
    Path(f"{db}{STAMP_SUFFIX}").unlink()
    ok(uw(db, "discard"))
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("SELECT count(*) FROM events WHERE chain IS NULL").fetchone()[0] == 0
    con.close()
    assert "No damage found" in ok(uw(db, "verify")).stdout
    rot_one_byte(db, _snapshot)  # (the last event, a discard, holds no digit to rot)
    assert uw(db, "discard").returncode == 1
    assert uw(db, "verify").returncode == 1


# -- paths SQLite keeps in memory or in a throw-away file ---------------------------------------------

@pytest.mark.parametrize("path", ["", ":memory:", "file:g.sqlite3", "file::memory:?cache=shared", "FILE:x"])
def test_a_temporary_database_path_is_refused(tmp_path: Path, path: str) -> None:
    for args in (("new", "Ann", "Bob", "--first", "Ann"), ("status",), ("games",), ("play", "TAPS", "--roll", "3")):
        done = uw(path, *args, cwd=tmp_path)
        assert done.returncode == 1, (args, done.stdout)
        assert "is not a file SQLite would keep" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written beside it (no ./-verified)
    with pytest.raises(StoreError, match="would be lost"):
        Store(path).create(Setup(("Ann", "Bob")))


# -- the stamp is data ------------------------------------------------------------------------------

@pytest.mark.parametrize("stamp", [b"[" * 1500, b"[" * 200_000, b"\xff\xfe", b"null", b'{"a": 1}',
                                   b"[[1,2,3],null]", b"[null,null]", b"1e999999"])
def test_a_hostile_stamp_is_ignored_and_the_whole_file_checked_once(
        tmp_path: Path, stamp: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.sqlite3"
    store = Store(db)
    gid, _, _ = store.create(Setup(("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))
    Path(f"{db}{STAMP_SUFFIX}").write_bytes(stamp)
    calls: list[int] = []
    original = Store._check_whole

    def counted(self: Store, conn: sqlite3.Connection) -> None:
        calls.append(1)
        original(self, conn)

    monkeypatch.setattr(Store, "_check_whole", counted)
    Store(db).act(gid, lambda g: g.apply(Discarded("Ann")))
    Store(db).act(gid, lambda g: g.apply(Discarded("Bob")))
    assert calls == [1]  # once: the first write renewed the stamp


def test_a_stamp_of_brackets_through_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ok(uw(db, "new", "Ann", "Bob", "--first", "Ann"))
    Path(f"{db}{STAMP_SUFFIX}").write_bytes(b"[" * 1500)
    for args in (("discard",), ("play", "TAPS", "--roll", "20")):
        done = uw(db, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(Path(f"{db}{STAMP_SUFFIX}").read_text())[1] is None


# -- a newer schema is refused before anything changes -------------------------------------------------

def test_a_newer_schema_is_refused_before_the_file_changes(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ok(uw(db, "new", "Ann", "Bob", "--first", "Ann"))
    with sqlite3.connect(db) as con:  # a later uw-referee, which may keep a rollback journal
        con.execute("PRAGMA journal_mode=DELETE")
        con.execute("PRAGMA user_version = 99")
    con.close()
    Path(f"{db}{STAMP_SUFFIX}").unlink()
    before = files_of(db)
    for args in (("play", "TAPS", "--roll", "20"), ("new", "Cy", "Di", "--first", "Cy"), ("discard",), ("undo",),
                 ("status",), ("games",), ("verify",)):
        done = uw(db, *args)
        assert done.returncode == 1 and "written by a newer uw-referee (schema 99" in done.stderr, (args, done.stderr)
        assert files_of(db) == before, args  # header bytes 18-19 (WAL), 24-27, 92-99 untouched; no -wal, no -shm


# -- read-only -wal and -shm files ---------------------------------------------------------------------

OWNER, READER = 65534, 65533  # two users who are not root (nobody, and an id without a name)


#: What each user's process starts with: the names the snippets below use.
PRELUDE = """\
import sqlite3
from pathlib import Path
from referee.engine import Discarded, RollOff, Setup
from referee.store import Store
"""


def as_user(uid: int, db: Path, work: str) -> str:
    """Run the snippet ``work`` (with ``db`` bound) as ``uid``: "ok", or its error in one line. A new Python
    process imports what the snippet needs, then gives up root for ``uid`` and runs it: not a fork of pytest,
    whose other threads may hold a lock the fork inherits (such a fork once hung for twenty minutes)."""
    body = "\n".join("    " + line for line in work.strip().splitlines())
    script = (f"{PRELUDE}import os\nos.setgroups([])\nos.setgid({uid})\nos.setuid({uid})\n"
              f"db = Path({str(db)!r})\ntry:\n{body}\nexcept BaseException as exc:\n"
              "    print(f'{type(exc).__name__}: {exc}', end='')\nelse:\n    print('ok', end='')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    return done.stdout or done.stderr.strip()


@pytest.fixture
def shared_dir() -> Any:
    if os.geteuid() != 0:
        print("\nSKIPPED LOUDLY: the read-only -wal/-shm attacks need root to act as two other users", file=sys.stderr)
        pytest.skip("needs root (to act as two users who are not root)")
    closed = [p for p in (ROOT, *ROOT.parents) if not p.stat().st_mode & 0o001]
    if closed:  # the forked users may still import a module of the project
        print(f"\nSKIPPED LOUDLY: other users cannot enter {closed[0]}, which holds the project", file=sys.stderr)
        pytest.skip(f"other users cannot enter {closed[0]}")
    folder = Path(tempfile.mkdtemp(prefix="uw22-"))
    folder.chmod(0o777)
    yield folder
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()


NEW = 'Store(db).create(Setup(("Ann", "Bob")), lambda g: g.apply(RollOff(first="Ann")))'
DISCARD = "Store(db).act(1, lambda g: g.apply(Discarded(g.state.current.name)))"


def test_a_read_by_another_user_leaves_nothing_that_blocks_the_owner(shared_dir: Path) -> None:
    db = shared_dir / "g.sqlite3"
    assert as_user(OWNER, db, NEW) == "ok"
    db.chmod(0o444)
    assert as_user(READER, db, "Store(db, read_only=True).view()") == "ok"
    assert as_user(READER, db, "Store(db, read_only=True).games()") == "ok"
    assert sorted(p.name for p in shared_dir.iterdir()) == ["g.sqlite3", f"g.sqlite3{STAMP_SUFFIX}"]
    db.chmod(0o644)
    assert as_user(OWNER, db, DISCARD) == "ok"


def test_blocking_wal_and_shm_files_are_named_with_what_to_do(shared_dir: Path) -> None:
    db = shared_dir / "g.sqlite3"
    assert as_user(OWNER, db, NEW) == "ok"
    db.chmod(0o444)

    older_reader = """  # what a reader did before issue 22: SQLite's own read-only opening
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
con.execute("SELECT count(*) FROM games").fetchone()
con.close()
"""
    assert as_user(READER, db, older_reader) == "ok"
    db.chmod(0o644)
    said = as_user(OWNER, db, DISCARD)
    assert said.startswith("StoreError:") and f"{db}-wal" in said and f"{db}-shm" in said and "delete them" in said
    for suffix in ("-wal", "-shm"):  # what the message says to do, when no uw-referee is using the file
        Path(f"{db}{suffix}").unlink()
    assert as_user(OWNER, db, DISCARD) == "ok"


# -- text from users and files is shown safely ------------------------------------------------------------

def test_a_deck_file_name_with_escapes_reaches_no_terminal_raw(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    deck = tmp_path / "\x1b[2J\x1b[31mPWNED\x1b]0;title\x07.json"
    deck.write_text(json.dumps(dict(STANDARD.counts)))
    outputs = [ok(uw(db, "new", "Ann", "Bob", "--first", "Ann", "--deck", str(deck)))]
    outputs += [ok(uw(db, *args)) for args in (("status",), ("games",), ("log",))]
    outputs.append(uw(db, "new", "Ann", "Bob", "--first", "Ann", "--deck", str(deck) + "\x1b[K-missing"))
    outputs.append(uw(str(tmp_path / "\x1b]0;x\x07" / "g.sqlite3"), "status"))  # a path in an error
    for done in outputs:
        assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr, done.args
    assert "\\x1b[2J\\x1b[31mPWNED\\x1b]0;title\\x07 deck" in outputs[1].stdout


def test_shown_escapes_controls_and_keeps_letters() -> None:
    from referee.terminal import shown

    assert shown("Año ☃ Zoë") == "Año ☃ Zoë"
    assert shown("a\x1b[2Jb\tc\u202ed\x85e\U000e0001") == "a\\x1b[2Jb\\x09c\\u202ed\\x85e\\U000e0001"


def test_the_board_shows_a_deck_name_safely() -> None:
    from dictionaries.deck import Deck
    from referee.board.views import deck_words

    words = deck_words(Deck("\x1b[2J\x1b[31mPWNED", dict(STANDARD.counts)))
    assert "\x1b" not in words and words.startswith("\\x1b[2J\\x1b[31mPWNED")
