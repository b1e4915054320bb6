"""What every referee store keeps and how it is sealed, whatever holds it: the errors, the digests that chain a
game's events and tie its snapshot to them, the summary ``games`` lists, and the words of the last actions kept
beside a snapshot. No SQL here: a second backend (PostgreSQL) stores the same bytes and computes the same digests,
so a game moved between backends verifies the same."""
from __future__ import annotations

import json
from datetime import UTC, datetime

from dictionaries.i18n import Message, msg
from referee.values import value

try:  # the BLAKE2 module alone: hashlib would load OpenSSL, which costs more than a status command
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

TYPE_CHECKING = False  # typing and the engine are loaded only when a command needs them
if TYPE_CHECKING:
    from typing import Any

    from referee.events import Event
    from referee.rules import Game
    from referee.state import State

#: How many of a game's last actions the store keeps in words beside its snapshot (schema 5): a bounded window,
#: so that a reader (the board) says the last actions without replaying the game. The board shows 5.
#: Why words and not a second snapshot some events back for the reader to replay from: the words are what the
#: reader needs, made once by the applies the writer does anyway (``Game.said``), a few hundred bytes that the
#: snapshot's digest covers and ``verify`` compares with a replay; a second state would double what each write
#: keeps and still leave each reader replaying a window whose length in events no bound fixes.
KEPT_ACTIONS = 8


class StoreError(Exception):
    """The database cannot be used (names the file and says why)."""


def require_postgres() -> None:
    """Raise ``StoreError`` naming the pip command when psycopg (the ``postgres`` extra) is not installed: one line
    for the user instead of an ImportError's traceback. The core install leaves it out (pyproject.toml)."""
    from importlib.util import find_spec

    if find_spec("psycopg") is None or find_spec("psycopg_pool") is None:
        raise StoreError(msg("PostgreSQL needs the postgres extra: pip install 'unspeakable-words[postgres]'"))


class NoGame(StoreError):
    """No game to act on."""


class Damaged(StoreError):
    """A game or file is damaged (changed after it was written, or cannot be replayed): nothing writes to it."""


def no_games_yet(path: str, db: str) -> NoGame:
    """No game in the database at ``path`` (``db`` as ``--db`` names it): how to start one, naming ``db`` unless
    it is the default, so that the command typed starts the game there."""
    from referee.paths import quote_around, suggested

    referee = suggested("", db)
    # TRANSLATORS: {referee} is "uw-referee" (with --db PATH when the games are elsewhere), {q} the quote around it.
    command = msg("{q}{referee} new NAME NAME{q}", q=quote_around(referee), referee=referee)
    return NoGame(msg("no games yet in {path}: start one with {command}", path=path, command=command))


@value(frozen=True)
class GameSummary:
    """One game as ``games`` lists it."""

    id: int
    players: tuple[str, ...]
    created_at: str
    updated_at: str
    phase: str
    turn: str | None
    winner: str | None
    scores: tuple[int, ...]



def now() -> str:
    """The time a row is written, as the store keeps it (UTC, ISO 8601 to the millisecond)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")



def snapshot_digest(seq: int, last_event: str, state: str, view: str) -> str:
    """Ties a snapshot to the event it follows: a changed event or snapshot no longer matches."""
    return blake2b(f"{seq}\n{last_event}\n{state}\n{view}".encode(), digest_size=16).hexdigest()


def chain_start(game_id: int) -> Any:
    """The running digest of a game's events before its first (a BLAKE2b hasher), tied to the game's id so
    that rows cannot move between games unseen. Each event row carries this digest updated with every
    event up to and including it (``chain_record``): a changed byte anywhere breaks every digest after it."""
    return blake2b(b"uw-referee game %d\n" % game_id, digest_size=16)


def chain_record(seq: int, at: str | bytes, data: str | bytes) -> bytes:
    """One event as the chain hashes it: its time and its data, after a record separator from the second event
    on, the bytes ``chain_aggregate`` (``referee.store_sql``) joins, so both agree. (The seq is not hashed: the
    chain is checked with the count and the last seq, and ``verify`` checks every seq.)"""
    return b"%s%s%s" % (b"\x1e" if seq else b"", at.encode() if isinstance(at, str) else at,
                        data.encode() if isinstance(data, str) else data)


class Linked:
    """A game's chain from schema 7 on: each event's digest is the BLAKE2b of the digest before it (``chain_start``'s
    for the first) and the event's ``chain_record``, so that a writer carries the chain on from the last digest
    alone (schemas 4 to 6 kept one running digest over every event, which only all of them could carry on). Used
    as the running digest is: ``update(record)``, ``digest()``."""

    __slots__ = ("head",)

    def __init__(self, head: bytes) -> None:
        self.head = head

    def update(self, record: bytes) -> None:
        self.head = blake2b(self.head + record, digest_size=16).digest()

    def digest(self) -> bytes:
        return self.head


def game_digest(seq: int, head: bytes, state: str, view: str, summary: str | None, recent: str | None = None) -> str:
    """Ties a snapshot and the game's summary to the chain of events they follow (schema 4), and the words of
    its last actions kept with it (schema 5; None: none kept, the digest schema 4 gave): a changed byte in
    any of them, or in any event, no longer matches."""
    text = f"{seq}\n{head.hex()}\n{state}\n{view}\n{summary}" + ("" if recent is None else f"\n{recent}")
    return blake2b(text.encode(errors="surrogateescape"), digest_size=16).hexdigest()


class SeatRefused(Exception):
    """A request that names no seat of the game (``kind`` "bad-token": no such token, or another game's), or a
    cookie's request without the seat's CSRF token (``kind`` "csrf"): refused before anything is read or written."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@value()
class SeatKey:
    """A phone's seat as a request names it: its token's SHA-256 and, for a request authenticated by the seat's
    cookie, the SHA-256 of the CSRF token it carried (None: a bearer token, no CSRF token needed). The store finds
    the seat inside the transaction that reads or writes the game (no read of its own) and sets ``name``, the
    player's name as the game spells it."""

    token_sha256: str
    csrf_sha256: str | None = None
    name: str = ""


def version_of(game_id: int, count: int, head: bytes | None) -> str:
    """The game's version: its event count and a digest of its chain head (which covers every event before it), the
    same string as the board's event stream id for the game (``referee.board.views.event_id``). Every read returns
    it and every write takes it: a write decided on another version is refused (an undo, a redo or an amended roll
    changes it even when the count comes back)."""
    mark = f"{game_id}:{(head or b'').hex()}"
    return f"{count}-{blake2b(mark.encode(), digest_size=8).hexdigest()}"


def version_count(version: str) -> int | None:
    """The event count a version names; None when ``version`` is not one (``version_of``'s form)."""
    count, dash, mark = version.partition("-")
    if not dash or not count.isdigit() or len(count) > 9 or len(mark) != 16 or not all(
            c in "0123456789abcdef" for c in mark):
        return None
    return int(count)


def summary_of(state: State) -> dict[str, Any]:
    """What ``games`` shows of a game, kept beside it so listing never replays."""
    return {
        "players": list(state.setup.players), "phase": state.phase.value,
        "turn": None if state.current is None or state.is_over() else state.current.name,
        "winner": state.winner, "scores": [p.score for p in state.players],
    }


_dumps = json.JSONEncoder(separators=(",", ":")).encode
dumps = json.JSONEncoder(separators=(",", ":")).encode

def _note_json(note: str) -> dict[str, Any]:
    """One note as the window keeps it: a Message's JSON (translatable later), a plain string as a bare template."""
    if isinstance(note, Message):
        return note.to_json()
    return {"message": str(note).replace("{", "{{").replace("}", "}}"), "params": {}}


def add_actions(window: list[list[Any]], told: list[tuple[Event, list[str]]], over: bool,
                keep: int = KEPT_ACTIONS) -> list[list[Any]]:
    """The window of last actions (each a list of notes as JSON) after the events ``told`` with the notes their
    ``apply`` returned: as ``log`` says them (without the closing sentence of what the game waits for, unless
    the game ended on the last one); a roll joins the play it belongs to, as the table sees one action. The
    same grouping as the board's ``recent_notes``, so a window carried forward equals one made by a replay."""
    actions = [list(action) for action in window]
    for i, (event, notes) in enumerate(told):
        said = notes if over and i == len(told) - 1 else notes[:-1]
        if not said:
            continue
        if actions and not event.starts_action:
            actions[-1].extend(_note_json(note) for note in said)
        else:
            actions.append([_note_json(note) for note in said])
    return actions[-keep:] if keep > 0 else []


def told_tail(events: list[Event], keep: int = KEPT_ACTIONS) -> tuple[Game, list[list[Any]]]:
    """The game those events give and the window of its last ``keep`` actions in words (``add_actions``): the
    events before the last ``keep`` + 1 actions are replayed without words (``Game.replay(words=False)``), the
    rest with them, so it costs a quiet replay. A refused event raises as ``Game.replay`` does. (Should actions
    that say nothing leave fewer than ``keep`` whole ones in the worded part, it starts further back.)"""
    from referee.rules import Game

    starts = [i for i, e in enumerate(events) if i and e.starts_action]
    back = keep + 1
    while True:
        start = starts[-back] if back <= len(starts) else 1
        game = Game.replay(events[:start], words=False)
        said: list[list[str]] = []
        game.said = said
        try:
            for event in events[start:]:
                game.apply(event)
        finally:
            game.said = None
        window = add_actions([], list(zip(events[start:], said, strict=True)), game.state.is_over(), keep + 1)
        if start <= 1:
            return game, window[-keep:] if keep > 0 else []
        if len(window) > keep:  # the first may lack events that an earlier, silent start would join to it
            return game, window[-keep:]
        back *= 2

