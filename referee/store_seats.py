"""The players' seats in the store (schema 6), so that every board process on one database serves every table's
phones: the seats taken (``seats``), the corrections a seat asked the host for (``seat_requests``) and the last
action a phone took in each game (``phone_actions``).

A seat is found by the SHA-256 of its token: the store never holds a token, nor a seat's CSRF token (its digest
only), so a copy of the database lets nobody act for a seat. Taking a seat is refused by the database's unique key
on (game, seat), whichever process asks first, never by a lock in a process. Each call is one transaction on the
store's connection (``Store._transaction``: SQLite's or PostgreSQL's); none of them writes a game, so none
notifies the boards (no board view shows the seats: the host's page reads them itself). The last phone action is
not this module's: the action's own transaction writes it (``Store.act``: a seat's action gets the right to undo
it, any other write ends it), and the phone's read and a seat's own undo read it (``Store.seat_look``,
``rewrite``). Every write of a game also ends the corrections asked on the game as it was.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field, replace

from referee.store_format import NoGame, now, version_count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from referee.store import Store


def digest(secret: str) -> str:
    """The SHA-256 of a seat's token or CSRF token, in hex: what the store keeps instead of the secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class SeatRow:
    """A seat as the store keeps it: its game, the player's name as the game spells it, its CSRF token's digest."""

    game: int
    name: str
    csrf_sha256: str

    def csrf_matches(self, given: str) -> bool:
        return hmac.compare_digest(digest(given), self.csrf_sha256)


@dataclass(frozen=True)
class SeatRequest:
    """A correction a seat asked for, waiting for the host: what, by whom, on the game as the seat saw it."""

    id: str
    seat: str
    action: str
    seen: int
    roll: int | None = None   # amend: the right roll of the latest roll
    #: The game's version the seat asked on (checked when asked) or, listed or answered, the version it still is: the
    #: host's correction is made on the version ``answer`` reads.
    version: str | None = field(default=None, compare=False)


class SeatBook:
    """The seats and the requests of the games in ``store`` (see the module)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- seats ------------------------------------------------------------------------------------

    def take(self, game_id: int, name: str, token: str, csrf: str) -> bool:
        """Seat ``token`` as ``name`` in the game; False when the seat is already someone's (nothing written).

        The insert does nothing on the (game, seat) key another seat holds; the row read back says whose it is.
        On PostgreSQL a second process inserting the same seat at once waits for the first's commit, then finds
        the first's row."""
        mine = digest(token)
        with self.store._transaction() as conn:
            conn.execute("INSERT INTO seats (game_id, seat, name, token_sha256, csrf_sha256, taken_at) VALUES "
                         "(?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, seat) DO NOTHING",
                         (game_id, name.casefold(), name, mine, digest(csrf), now()))
            row = conn.execute("SELECT token_sha256 FROM seats WHERE game_id = ? AND seat = ?",
                               (game_id, name.casefold())).fetchone()
        return row is not None and hmac.compare_digest(str(row[0]), mine)

    def release(self, game_id: int, name: str) -> bool:
        """Free the seat (its token stops working); False when nobody sat in it."""
        if not is_game_id(game_id):
            return False
        with self.store._transaction() as conn:
            gone = conn.execute("DELETE FROM seats WHERE game_id = ? AND seat = ?", (game_id, name.casefold()))
            return bool(gone.rowcount)

    def seat(self, token: str) -> SeatRow | None:
        """The seat ``token`` opens, if any (found by the token's digest, which is the table's unique key)."""
        with self.store._transaction(write=False) as conn:
            row = conn.execute("SELECT game_id, name, csrf_sha256 FROM seats WHERE token_sha256 = ?",
                               (digest(token),)).fetchone()
        return None if row is None else SeatRow(int(row[0]), str(row[1]), str(row[2]))

    def taken(self, game_id: int) -> set[str]:
        """The seats taken in the game: the players' names casefolded."""
        if not is_game_id(game_id):
            return set()
        with self.store._transaction(write=False) as conn:
            return {str(seat) for (seat,) in conn.execute("SELECT seat FROM seats WHERE game_id = ?", (game_id,))}

    def salt(self, game_id: int) -> str | None:
        """The game's random salt (schema 8), which its join code and host token are made from ('' for a game
        written before); None when there is no such game (never there, or purged)."""
        if not is_game_id(game_id):
            return None
        with self.store._transaction(write=False) as conn:
            row = conn.execute("SELECT salt FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    # -- the corrections asked for ----------------------------------------------------------------

    def ask(self, game_id: int, asked: SeatRequest) -> SeatRequest | None:
        """Keep a correction a seat asked for until the host answers it or the game moves on (every write to the game
        drops its requests: ``Store._seat_wrote``): the request kept, ``asked`` or the one of this seat and kind
        already waiting (one per seat and kind, by the table's unique key; one asked on an earlier state of the game
        gives way to the new one). None, nothing kept, when the game is no longer at the version the seat asked on
        (``asked.version``, when given)."""
        with self.store._transaction() as conn:
            # The game's row first (PostgreSQL: locked, as a write locks it): a write in flight commits before the
            # version is read, so a request is never kept on a version that write has already left.
            self.store._resolve(conn, game_id)
            if asked.version is not None and self.store._version_now(conn, game_id) != asked.version:
                return None
            conn.execute("DELETE FROM seat_requests WHERE game_id = ? AND seat = ? AND action = ? AND seen <> ?",
                         (game_id, asked.seat, asked.action, asked.seen))
            conn.execute("INSERT INTO seat_requests (game_id, id, seat, action, seen, roll, at) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, seat, action) DO NOTHING",
                         (game_id, asked.id, asked.seat, asked.action, asked.seen, asked.roll, now()))
            row = conn.execute("SELECT id, seat, action, seen, roll FROM seat_requests WHERE game_id = ? AND seat = ? "
                               "AND action = ?", (game_id, asked.seat, asked.action)).fetchone()
        return asked if row is None else _request(row)

    def answer(self, game_id: int, rid: str) -> SeatRequest | None:
        """Take the request out to answer it: None when there is none (already answered, by this process or
        another: only one of them gets it). ``ask`` puts it back when the answer could not be made. A request still
        there was asked on the game's version as it is now (a write drops them): that version comes with it."""
        if not is_game_id(game_id):
            return None
        with self.store._transaction() as conn:
            row = conn.execute("SELECT id, seat, action, seen, roll FROM seat_requests WHERE game_id = ? AND id = ?",
                               (game_id, rid)).fetchone()
            if row is None:
                return None
            gone = conn.execute("DELETE FROM seat_requests WHERE game_id = ? AND id = ?", (game_id, rid))
            if not gone.rowcount:
                return None
            version = self.store._version_now(conn, game_id)
        found = _request(row)
        return SeatRequest(found.id, found.seat, found.action, found.seen, found.roll, version)

    def requests(self, game_id: int) -> list[SeatRequest]:
        """The requests waiting in the game, oldest first, each with the game's version as it is now, which the host's
        page shows (``answer`` reads the version again when the host answers). Every write drops the requests, so
        those left were asked on it; any asked on an older state (a seat that saw fewer events) can no longer be
        made as asked and is dropped, judged by the game as it is in this transaction: never by a state the caller
        read before, which a request asked since would not match."""
        if not is_game_id(game_id):
            return []
        with self.store._transaction() as conn:
            # The game's row first (PostgreSQL: locked, as a write locks it), as ``ask`` does.
            try:
                self.store._resolve(conn, game_id)
            except NoGame:  # purged meanwhile
                return []
            version = self.store._version_now(conn, game_id)
            conn.execute("DELETE FROM seat_requests WHERE game_id = ? AND seen <> ?", (game_id, version_count(version)))
            rows = conn.execute("SELECT id, seat, action, seen, roll FROM seat_requests WHERE game_id = ? "
                                "ORDER BY at, id", (game_id,)).fetchall()
        return [replace(_request(row), version=version) for row in rows]

    # -- the limits every board process shares ----------------------------------------------------

    def hit(self, key: str, seconds: float) -> int:
        """Count one hit of ``key`` (a limit's key: ``wrong-code:ADDRESS``) in the current window of ``seconds``;
        the hits of the window so far, this one included, whichever board process counted them. Windows past their
        end are deleted now and then (one hit in 64)."""
        at = time.time()
        slot = int(at // seconds)
        with self.store._transaction(create=True) as conn:  # the first table's start may come first
            row = conn.execute("INSERT INTO rate_limits (key, slot, hits, until) VALUES (?, ?, 1, ?) ON CONFLICT "
                               "(key, slot) DO UPDATE SET hits = rate_limits.hits + 1 RETURNING hits",
                               (key, slot, (slot + 1) * seconds)).fetchone()
            if secrets.randbelow(64) == 0:
                conn.execute("DELETE FROM rate_limits WHERE until < ?", (at,))
        return int(row[0]) if row else 1

    def hits(self, key: str, seconds: float) -> int:
        """The hits of ``key`` in the current window of ``seconds`` (counts none)."""
        slot = int(time.time() // seconds)
        with self.store._transaction(write=False) as conn:
            row = conn.execute("SELECT hits FROM rate_limits WHERE key = ? AND slot = ?", (key, slot)).fetchone()
        return int(row[0]) if row else 0


def is_game_id(game_id: int) -> bool:
    """Whether ``game_id`` can name a game: a page's address can hold any number, and one past the databases'
    64-bit integers would overflow the query (SQLite raises) rather than find nothing."""
    return 0 < game_id < 2**63


def _request(row: Any) -> SeatRequest:
    rid, seat, action, seen, roll = row
    return SeatRequest(str(rid), str(seat), str(action), int(seen), None if roll is None else int(roll))


__all__ = ["SeatBook", "SeatRequest", "SeatRow", "digest"]
