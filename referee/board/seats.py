"""The seats of the players' board: join codes, seat tokens, the host secret and who a request speaks for (a
seat's token or cookie, the host's secret); a refusal (``Problem``) and its problem+json answer.

The seats taken, the corrections a seat asked for and the last action a phone took live in the database
(``referee.store_seats``, through ``seat_book``), so that every board process on one database serves every
table's phones: a phone keeps its seat when its board restarts or another replica answers it. The rate limits
(``Tables``) are counted in each process's memory: behind several replicas each counts what it serves.

The join code of each game is derived from the host secret and the game's number (short, typed from
the TV); a seat's token is a random secret of 256 bits, also set as an HttpOnly, SameSite=Strict
cookie, with a CSRF token for the page's cookie-authenticated requests. The store keeps their SHA-256 only.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import random
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Response, current_app, jsonify, request

from dictionaries.i18n import _, message_of, msg, say
from referee.board.counters import Counters
from referee.board.offloop import OffTheLoop
from referee.board.source import sentence

#: The alphabet of join codes: no 0/O, 1/I/L to confuse when read from a TV across the room.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: Actions one seat may post, and requests one address may write, per window of seconds.
SEAT_ACTIONS, ADDRESS_WRITES, WINDOW_SECONDS = 20, 60, 10.0
#: Database-backed reads (``LIMITED_READS``) one address, and one seat's or host's token, may make per window: a
#: phone typing at its fastest reads a verdict a key (about 60 in 10 s), and its game after each action; 30 cut a
#: phone off mid-turn in the whole-game browser test; a venue's phones share an address (docs/hosted.md).
ADDRESS_READS, TOKEN_READS = 300, 150
#: One lane per address: its reads are served one at a time, in order, the others waiting (``READS_WAITING`` at
#: most, each ``READ_WAIT_SECONDS`` at most, then 429). A flood of any number of connections has one read under way,
#: so another address's read waits for at most one of its reads at each step; a phone's overlapping reads, which
#: refusals over 2 at once stopped, are served a few ms apart (docs/hosted.md, "Reads under a flood").
READS_AT_ONCE = 1
READS_WAITING = 16
READ_WAIT_SECONDS = 5.0
#: The reads so limited: each reads the database (a seat, a verdict, the host's view, an export).
LIMITED_READS = frozenset({"players.read_for_seat", "players.verdict", "players.list_seats", "players.host_view",
                           "board.api_game", "hosted.export"})
#: Seconds a refusal over a read limit waits before it is sent, when served (drawn at random between them, so that
#: the refusals of a flood do not come back in step): a client that floods the board with requests (``wrk -c90``)
#: then makes one every 3 s per connection, each refused at next to no cost.
REFUSAL_DELAY = (2.0, 4.0)
#: The WSGI environ's key of a limited read under way (its address).
READING = "uw.reading"
#: Wrong join codes one address may send per minute before it is refused for that minute.
WRONG_CODES, WRONG_CODE_SECONDS = 5, 60.0
#: The limits every replica counts together, in the database (``SeatBook.hit``): the wrong join codes and the
#: tables started, the ones a client spreading its requests over replicas would multiply. The others (reads,
#: writes, actions) are each replica's, shared in front of them by nginx's zones (deploy/hosted-nginx.conf).
SHARED = ("wrong-code:", "tables:")
#: Counters (and salts) a process keeps; past it the least recently counted are forgotten (``Counters``).
MAX_KEYS = 10_000
COOKIE_PREFIX = "uw_seat_"
#: The longest token looked up (a seat's is 43 characters): a longer one is refused unread.
MAX_TOKEN = 200
CSRF_HEADER = "X-CSRF-Token"
#: The deepest nesting a JSON body may have (a table's deck is the deepest the API takes: 3).
MAX_JSON_DEPTH = 16
#: The actions a seat may post and whether only the player whose turn it is may post them.
TURN_ACTIONS = {"play", "roll", "discard", "bind_done"}
ACTIONS = TURN_ACTIONS | {"bind", "pass", "undo"}
#: What a seat may ask the host for: any undo or redo, a correction of the latest roll, leaving the game.
ASKABLE = ("undo", "redo", "amend", "leave", "allow")  # (referee.asking: an overrule too)

log = logging.getLogger(__name__)


def join_code(secret: str, game: int, salt: str = "") -> str:
    """The join code of ``game``: six letters of an HMAC of its number and its random salt (kept with the game,
    ``SeatBook.salt``) under the host secret. Only the board (and whoever reads it from the TV) knows it; another
    game's code says nothing about it, and a game that gets the number of a purged one gets another code."""
    mark = f"join:{game}:{salt}" if salt else f"join:{game}"  # '': a game written before salts, its code kept
    digest = hmac.new(secret.encode(), mark.encode(), hashlib.sha256).digest()
    n = int.from_bytes(digest[:8], "big")  # 64 bits for 31**6 (about 2**30) codes: no visible bias
    letters = []
    for _i in range(CODE_LENGTH):
        n, i = divmod(n, len(CODE_ALPHABET))
        letters.append(CODE_ALPHABET[i])
    return "".join(letters)


def table_token(secret: str, game: int, salt: str = "") -> str:
    """The host token of ``game`` on a hosted board (``--hosted``): an HMAC of its number and salt under the host
    secret, so that every replica checks it with one read; it makes its bearer the host of that game only."""
    mark = f"host:{game}:{salt}" if salt else f"host:{game}"
    digest = hmac.new(secret.encode(), mark.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


#: The salt a game that does not exist is checked with: no game's (theirs are hex or ''), so no code matches it.
NO_SALT = "-"


def new_secret() -> str:
    """A random secret of 256 bits, URL-safe."""
    return secrets.token_urlsafe(32)


class Problem(Exception):
    """An API refusal: its HTTP status, a short type and the sentence (already in the request's language)."""

    def __init__(self, status: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail = status, kind, detail


def problem_answer(exc: Problem) -> Response:
    """A refusal as its answer: application/problem+json, titled in the request's language."""
    titles = {400: _("Bad request"), 401: _("Not signed in"), 403: _("Not allowed"), 404: _("Not found"),
              409: _("The game moved on"), 422: _("Refused"), 429: _("Too many requests"),
              503: _("Try again")}
    kinds = {"seat-taken": _("Seat taken"), "game-over": _("The game is over"), "in-play": _("The game is not over")}
    body = jsonify(type=f"urn:uw-referee:{exc.kind}", title=kinds.get(exc.kind) or titles.get(exc.status, _("Error")),
                   status=exc.status, detail=exc.detail)
    body.status_code = exc.status
    body.mimetype = "application/problem+json"
    if exc.status in (429, 503):
        body.headers["Retry-After"] = str(int(WINDOW_SECONDS))
    if exc.status == 401:
        body.headers["WWW-Authenticate"] = 'Bearer realm="uw-referee"'
    return body


@dataclass
class Seat:
    """The seat a request speaks for: its game, the player's name as the game spells it, its token (the one the
    request carried) and its CSRF token (known only to the answer that gave the seat: the store keeps its digest)."""

    game: int
    name: str
    token: str
    csrf: str = ""


@dataclass
class Tables:
    """What this board process keeps of the tables it lets phones play: the host's secret (each game's join code
    comes from it) and the rate limits, counted per process. The seats are the store's (``seat_book``)."""

    host: str
    hits: Counters = field(default_factory=lambda: Counters(MAX_KEYS))
    lock: threading.Lock = field(default_factory=threading.Lock)
    salts: dict[int, str] = field(default_factory=dict)
    reopened: int = 0  # the watcher's count of files opened anew when the salts were read
    lanes: dict[str, list[Any]] = field(default_factory=dict)  # per address: [its reads under way or waiting, lane]

    def limited(self, key: str, most: int, seconds: float) -> bool:
        """Count one more hit for ``key``; True when it is over ``most`` within ``seconds``. A key of ``SHARED`` is
        also counted in the database, in windows of ``seconds`` (every replica's hits: ``shared_hits``)."""
        if key.startswith(SHARED):
            over = self._counted(key, most, seconds)
            return self.shared_hits(key, seconds, count=True) > most or over
        return self._counted(key, most, seconds)

    def shared_hits(self, key: str, seconds: float, count: bool = False) -> int:
        """The hits of ``key`` in the database's current window (one counted first when ``count``); 0 when the
        database cannot say (this process's own count stands then, and the log says why)."""
        from referee.store import StoreError

        try:
            book = seat_book()
            return int(book.hit(key, seconds) if count else book.hits(key, seconds))
        except StoreError as exc:
            log.warning("the shared limits cannot be counted in the database: %s", say(message_of(exc)))
            return 0

    def _counted(self, key: str, most: int, seconds: float) -> bool:
        return self.hits.count(key, most, seconds)

    def guess(self, address: str) -> bool:
        """Take one of ``address``'s wrong-code tries before a code is compared (False: none left). Taken in one
        step, with no wait between the check and the count, so parallel guesses cannot all pass one check;
        ``settle`` gives it back when the code was right."""
        return not self.hits.count("wrong-code:" + address, WRONG_CODES, WRONG_CODE_SECONDS)

    def settle(self, address: str, right: bool) -> None:
        """After ``guess``: a right code costs nothing; a wrong one is also counted in the database (replicas)."""
        if right:
            self.hits.take_back("wrong-code:" + address)
        else:
            self.shared_hits("wrong-code:" + address, WRONG_CODE_SECONDS, count=True)

    def start_read(self, address: str) -> bool:
        """Wait for ``address``'s lane; True once in, False (nothing held) when ``READS_WAITING`` of its reads wait or
        it did not come in ``READ_WAIT_SECONDS``. Made here, on the request's greenlet: it waits on gevent's loop."""
        with self.lock:
            lane = self.lanes.get(address)
            if lane is None:
                lane = self.lanes[address] = [0, threading.Semaphore(READS_AT_ONCE)]
            if lane[0] >= READS_AT_ONCE + READS_WAITING:
                return False
            lane[0] += 1
        if lane[1].acquire(timeout=READ_WAIT_SECONDS):
            return True
        self._leave(address, lane)
        return False

    def end_read(self, address: str) -> None:
        """A read of ``address`` that ``start_read`` let in ended: the next one waiting goes."""
        with self.lock:
            lane = self.lanes.get(address)
        if lane is not None:
            lane[1].release()
            self._leave(address, lane)

    def _leave(self, address: str, lane: list[Any]) -> None:
        with self.lock:
            lane[0] -= 1
            if not lane[0] and self.lanes.get(address) is lane:
                del self.lanes[address]

    def salt(self, game: int) -> str:
        """The game's salt (``SeatBook.salt``), kept once read (dropped when the watcher opened the file anew: it may
        have been restored, its numbers other games); ``NO_SALT``
        when there is no such game (not kept: it may be started yet)."""
        from referee.board.runtime import runtime

        reopened = getattr(runtime(current_app).watcher, "reopened", 0)  # an SQLite file opened anew: restored?
        with self.lock:
            if reopened != self.reopened:
                self.salts.clear()
                self.reopened = reopened
            found = self.salts.get(game)
        if found is None:
            found = seat_book().salt(game)
            if found is None:
                return NO_SALT
            with self.lock:
                if len(self.salts) > MAX_KEYS:
                    self.salts.clear()
                self.salts[game] = found
        return found

    def code(self, game: int) -> str:
        return join_code(self.host, game, self.salt(game))

    def host_token(self, game: int) -> str:
        return table_token(self.host, game, self.salt(game))

    def over(self, key: str, most: int, seconds: float) -> bool:
        """True when ``key`` already has ``most`` hits within ``seconds`` (counts nothing): this process's count,
        then, for a ``SHARED`` key, the database's (every replica's)."""
        if self.hits.over(key, most, seconds):
            return True
        return key.startswith(SHARED) and self.shared_hits(key, seconds) >= most


def tables() -> Tables:
    """The tables of the app that serves the request (``install`` put them there)."""
    found: Tables = current_app.extensions["players"]
    return found


def seat_book() -> Any:
    """The seats in the board's database (``referee.store_seats.SeatBook``), each call one transaction made off the
    event loop on a connection of its own, as the referee's (``referee.board.offloop``)."""
    from referee.store_pg import open_store
    from referee.store_seats import SeatBook

    return OffTheLoop(SeatBook(open_store(current_app.config["BOARD_DB"])))


def join_path(game: int) -> str:
    return f"/games/{game}/join"


def join_box(game: int) -> dict[str, str]:
    """What the TV shows to let phones into ``game``: its join link (on the table's network address when the
    command knows it), its QR code's address and its join code. Needs no request (the board is rendered
    once per commit, off any request)."""
    base = str(current_app.config.get("BOARD_PUBLIC_URL") or "/").rstrip("/")
    code = tables().code(game)
    hosted = f"?code={code}" if current_app.config.get("BOARD_HOSTED") else ""  # a hosted game opens with its code
    return {"code": code, "url": base + join_path(game) + hosted, "qr": join_path(game) + ".svg"}


def json_body() -> Any:
    """The request's JSON body, or None when it is none, not JSON, or nested deeper than ``MAX_JSON_DEPTH`` (never
    parsed: the decoder is recursive, and a body of 100,000 ``[`` raised RecursionError, a 500)."""
    from dictionaries.json_depth import json_depth_within

    if not json_depth_within(request.get_data(cache=True), MAX_JSON_DEPTH):
        return None
    try:
        return request.get_json(silent=True)
    except RecursionError:  # (kept for safety: the depth check above already refuses such a body)
        return None


def json_flag(data: dict[str, Any], name: str) -> bool:
    """A body's boolean ``name`` (absent or null: false); anything else is a 400, never read as a yes ("no" is true
    to Python)."""
    value = data.get(name)
    if value is not None and not isinstance(value, bool):
        raise Problem(400, "bad-request", _("\"{name}\" is true or false.").format(name=name))
    return bool(value)


def client_address() -> str:
    """The address of the device that sent the request."""
    return str(request.remote_addr or "?")


def credential(game_id: Any) -> tuple[str, bool]:
    """The token the request carries for ``game_id`` ('' for none) and whether it came in the seat's cookie
    (``Authorization: Bearer <token>`` first: a seat's, the host's or a table's host token)."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[7:].strip(), False
    cookie = request.cookies.get(COOKIE_PREFIX + str(game_id))
    return (cookie, True) if cookie is not None else ("", False)


def seat_for(game_id: int, *, write: bool) -> Seat:
    """The seat the request speaks for: ``Authorization: Bearer <token>`` or the seat's cookie (then a write
    must carry the seat's CSRF token in ``X-CSRF-Token``). The seat is the store's: any board process on the
    database knows it."""
    token, by_cookie = credential(game_id)
    if not token:
        raise Problem(401, "no-token", _("Take a seat first: this request carries no seat's token."))
    kept = seat_book().seat(token) if len(token) <= MAX_TOKEN and token.isascii() else None  # none is other text
    if kept is None or kept.game != game_id:
        raise Problem(401, "bad-token", _("This seat's token is not valid for this game; take a seat again."))
    if write and by_cookie and not kept.csrf_matches(request.headers.get(CSRF_HEADER, "")):
        raise Problem(403, "csrf", _("This request lacks the page's CSRF token (X-CSRF-Token); reload the page."))
    return Seat(kept.game, kept.name, token)


def seat_key(game_id: int, *, write: bool) -> Any:
    """The seat the request names, without reading anything: its token's digest (``Authorization: Bearer`` or the
    seat's cookie) and, for a cookie's write, the digest of the CSRF token it carried (``X-CSRF-Token``). The store
    finds the seat in the same transaction that reads or writes the game (``referee.store_format.SeatKey``)."""
    from referee.store_format import SeatKey
    from referee.store_seats import digest

    token, by_cookie = credential(game_id)
    if not token:
        raise Problem(401, "no-token", _("Take a seat first: this request carries no seat's token."))
    if len(token) > MAX_TOKEN or not token.isascii():  # no seat's token is other text
        raise seat_refused("bad-token")
    csrf = digest(request.headers.get(CSRF_HEADER, "")) if write and by_cookie else None
    return SeatKey(digest(token), csrf)


def seat_refused(kind: str) -> Problem:
    """The store's refusal of a seat's request (``SeatRefused``): no seat of this game, or no CSRF token."""
    if kind == "csrf":
        return Problem(403, "csrf", _("This request lacks the page's CSRF token (X-CSRF-Token); reload the page."))
    return Problem(401, "bad-token", _("This seat's token is not valid for this game; take a seat again."))


def is_host(game: int | None = None) -> bool:
    """True when the request carries the host secret (``Authorization: Bearer <host secret>``); on a hosted board
    also the host token of the game the request names (``table_token``: that game's, no other's)."""
    header = request.headers.get("Authorization", "")
    given = header[7:].strip() if header.startswith("Bearer ") else ""
    if not given or not given.isascii() or len(given) > MAX_TOKEN:  # no secret of ours is other text
        return False
    if hmac.compare_digest(given.encode(), tables().host.encode()):
        return True
    game = game if game is not None else (request.view_args or {}).get("game_id")
    return (bool(current_app.config.get("BOARD_HOSTED")) and isinstance(game, int)
            and hmac.compare_digest(given.encode(), tables().host_token(game).encode()))


def require_host(refusal: str) -> None:
    """Go on only for the host: a request with no credentials at all is asked for them (401, ``WWW-Authenticate``);
    one that speaks for a seat, or carries a wrong secret, is refused with ``refusal`` (403)."""
    if is_host():
        return
    if "Authorization" not in request.headers and not any(k.startswith(COOKIE_PREFIX) for k in request.cookies):
        if current_app.config.get("BOARD_HOSTED"):
            raise Problem(401, "no-token", _("Only the host can do this: send the table's host token from the host "
                                             "link given when the table was started."))
        raise Problem(401, "no-token", _("Only the host can do this: send the host's secret from the host link the "
                                         "terminal printed."))
    raise Problem(403, "not-host", refusal)


def limit_address(t: Tables, address: str) -> None:
    """Refuse a write from a device that has made too many in the last window (429)."""
    if t.limited("address:" + address, ADDRESS_WRITES, WINDOW_SECONDS):
        raise Problem(429, "rate-limit", _("Too many requests from this device: wait a few seconds."))


def limit_reads(app: Any) -> None:
    """Limit the database-backed reads of ``app`` (``read_limit``), before any other check that reads."""
    app.before_request(read_limit)
    app.teardown_request(end_read)


def read_limit() -> Response | None:
    """Before a database-backed read (``LIMITED_READS``), before the gate reads anything: refuse it (429, sent after
    ``REFUSAL_DELAY`` when served) when its address has made ``ADDRESS_READS`` in the window, or its seat's or host's
    token ``TOKEN_READS``; else it waits for its address's lane (``Tables.start_read``). One address running
    ``wrk -c90`` made the other tables' reads 44 times slower. A refusal reads nothing and renders nothing: a few
    counters in memory, then a problem+json of one sentence."""
    if request.endpoint not in LIMITED_READS:
        return None
    t = tables()
    token = credential((request.view_args or {}).get("game_id"))[0]
    address = client_address()
    if t.limited("read:" + address, ADDRESS_READS, WINDOW_SECONDS):
        refusal = Problem(429, "rate-limit", _("Too many reads from this device: wait a few seconds."))
    elif token and t.limited("read-token:" + hashlib.sha256(token.encode(errors="replace")).hexdigest()[:32],
                             TOKEN_READS, WINDOW_SECONDS):
        refusal = Problem(429, "rate-limit", _("Too many reads for this seat: wait a few seconds."))
    elif not t.start_read(address):
        refusal = Problem(429, "rate-limit", _("Too many reads from this device: wait a few seconds."))
    else:
        request.environ[READING] = address  # under way until the request ends (``end_read``)
        return None
    _hold(random.uniform(*REFUSAL_DELAY))
    return problem_answer(refusal)


def end_read(_exc: BaseException | None = None) -> None:
    """A limited read ended (its answer made, or failed): its address may start another."""
    address = request.environ.pop(READING, None)
    if address is not None:
        tables().end_read(address)


def _hold(seconds: float) -> None:
    """Wait ``seconds`` on gevent's loop when the board serves on it (the other connections go on); else not."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the board
        return
    if monkey.is_module_patched("time"):
        import gevent

        gevent.sleep(seconds)


def limit_seat(t: Tables, seat: Any) -> None:
    """Refuse an action from a seat (its token, or its digest) that has posted too many in the last window (429)."""
    key = seat.token if isinstance(seat, Seat) else seat.token_sha256
    if t.limited("seat:" + key, SEAT_ACTIONS, WINDOW_SECONDS):
        raise Problem(429, "rate-limit", _("Too many actions from this seat: wait a few seconds."))


def store_problem(exc: Exception) -> Response:
    """The database could not be read or written (another uw-referee kept it locked past the busy timeout, a
    full disk, a server away): 503 saying why in words a player can use, without the file's path or the
    server's address and error (those go to the operator's log); nothing was changed. No such game: 404."""
    from referee.store import NoGame

    if isinstance(exc, NoGame):
        game = (request.view_args or {}).get("game_id")
        return problem_answer(Problem(404, "no-game", sentence(say(msg("there is no game {game}", game=game)))))
    log.warning("the players' API cannot use the games: %s", say(message_of(exc)))
    return problem_answer(Problem(503, "store", public_words(exc)))


#: The fields of the store's messages that name a place of the server (a path, an address) or quote an error
#: whose text may (SQLite's and psycopg's): a client is told neither.
SERVER_FIELDS = ("path", "why", "files", "detail", "error", "address")


def public_words(exc: Exception) -> str:
    """What a client may read of the store's error ``exc``, in the request's language: its sentence with every
    field that names the server's files or addresses replaced, at any depth, and none at all (a plain "cannot be
    used") if the database's name is still in it. The operator's log keeps the whole message."""
    from dictionaries.i18n import Message

    def hidden(said: Any) -> Any:
        if not isinstance(said, Message):
            return said
        params = {k: (msg("the games' database") if k == "path" else msg("the board's log says why"))
                  if k in SERVER_FIELDS else hidden(v) for k, v in said.params.items()}
        return Message(said.template, params, said.plural, said.n)

    words = sentence(say(hidden(message_of(exc))))
    from referee.store_pg import is_database_url, shown_address

    where = str(current_app.config.get("BOARD_DB") or "")
    if is_database_url(where):  # the server's address, with and without its user
        names = {shown_address(where), where.split("@")[-1].split("/")[0].split("?")[0]}
    else:  # the file's path as given and in full, and its name
        names = {where, os.path.abspath(where), os.path.basename(where)}
    names.discard("")
    if any(name in words for name in names):  # a message of the store not shaped as expected: say nothing of it
        return sentence(say(msg("the games cannot be used at the moment; the board's log says why")))
    return words
