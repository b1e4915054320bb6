"""The players' side of the board (``uw-referee board --players``): seats taken with a join code, a
turn played from a phone, through the referee library and its turn guard.

Opt-in: the blueprint is registered only when the board was started with ``--players``; without it
the board stays read-only. One board process keeps the seats in memory (one gunicorn worker):

- each game has its own join code (short, typed from the TV: derived from the host secret and the game's
  number, so a new game started while the board runs gets a new one and the old code takes no seat in it)
  that lets a phone take a free seat of that game; the seat
  gets a token (a random secret of 256 bits) in the JSON answer and in an HttpOnly, SameSite=Strict
  cookie, with a CSRF token for the page's cookie-authenticated requests;
- the host secret (printed on the terminal) releases a seat;
- every write goes through ``referee.Referee`` with ``Seen``: an action decided on a game that has
  moved since is refused with 409 naming what happened.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from dictionaries.i18n import _, message_of, msg, ngettext, say
from referee.board.runtime import runtime
from referee.board.source import BoardError, sentence

if TYPE_CHECKING:
    from referee.engine import Game

players = Blueprint("players", __name__)
T = TypeVar("T")

#: The alphabet of join codes: no 0/O, 1/I/L to confuse when read from a TV across the room.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: Actions one seat may post, and requests one address may write, per window of seconds.
SEAT_ACTIONS, ADDRESS_WRITES, WINDOW_SECONDS = 20, 60, 10.0
#: Wrong join codes one address may send per minute before it is refused for that minute.
WRONG_CODES, WRONG_CODE_SECONDS = 5, 60.0
#: The last actions a phone shows (newest first).
PHONE_RECENT = 3
#: Counters kept before the ones that ran out are forgotten.
MAX_KEYS = 10_000
COOKIE_PREFIX = "uw_seat_"
CSRF_HEADER = "X-CSRF-Token"


def join_code(secret: str, game: int) -> str:
    """The join code of ``game``: six letters of an HMAC of its number under the host secret. Only the board
    (and whoever reads it from the TV) knows it; another game's code says nothing about it."""
    digest = hmac.new(secret.encode(), f"join:{game}".encode(), hashlib.sha256).digest()
    n = int.from_bytes(digest[:8], "big")  # 64 bits for 31**6 (about 2**30) codes: no visible bias
    letters = []
    for _i in range(CODE_LENGTH):
        n, i = divmod(n, len(CODE_ALPHABET))
        letters.append(CODE_ALPHABET[i])
    return "".join(letters)


def new_secret() -> str:
    """A random secret of 256 bits, URL-safe."""
    return secrets.token_urlsafe(32)


class Problem(Exception):
    """An API refusal: its HTTP status, a short type and the sentence (already in the request's language)."""

    def __init__(self, status: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail = status, kind, detail


@dataclass
class Seat:
    game: int
    name: str
    token: str
    csrf: str


@dataclass
class Asked:
    """A correction a seat asked for, waiting for the host: what, by whom, on the game as the seat saw it."""

    id: str
    seat: str
    action: str
    seen: int
    roll: int | None = None   # amend: the right roll of the latest roll


@dataclass
class Tables:
    """The seats of every game this board lets phones play, the host's secret (each game's join code comes
    from it), the corrections asked for, the rate limits."""

    host: str
    seats: dict[tuple[int, str], Seat] = field(default_factory=dict)   # (game, player's name casefolded)
    by_token: dict[str, Seat] = field(default_factory=dict)
    last_phone_action: dict[int, tuple[int, str]] = field(default_factory=dict)  # game -> (event count, seat)
    hits: dict[str, deque[float]] = field(default_factory=dict)
    asked: dict[int, dict[str, Asked]] = field(default_factory=dict)  # game -> the corrections asked for, by id
    lock: threading.Lock = field(default_factory=threading.Lock)

    def limited(self, key: str, most: int, seconds: float) -> bool:
        """Count one more hit for ``key``; True when it is over ``most`` within ``seconds``."""
        now = time.monotonic()
        with self.lock:
            if len(self.hits) > MAX_KEYS:  # forget the counters that have run out (many addresses over time)
                for old in [k for k, v in self.hits.items() if not v or v[-1] <= now - WRONG_CODE_SECONDS]:
                    del self.hits[old]
            hits = self.hits.setdefault(key, deque())
            while hits and hits[0] <= now - seconds:
                hits.popleft()
            if len(hits) >= most:
                return True
            hits.append(now)
            return False

    def code(self, game: int) -> str:
        return join_code(self.host, game)

    def over(self, key: str, most: int, seconds: float) -> bool:
        """True when ``key`` already has ``most`` hits within ``seconds`` (counts nothing)."""
        now = time.monotonic()
        with self.lock:
            hits = self.hits.get(key, deque())
            return sum(1 for t in hits if t > now - seconds) >= most


def tables() -> Tables:
    found: Tables = current_app.extensions["players"]
    return found


def install(app: Any) -> None:
    """Let phones play: the host secret from the app's config (else a new one)."""
    app.extensions["players"] = Tables(host=app.config.get("BOARD_HOST_SECRET") or new_secret())
    app.register_blueprint(players)


def join_path(game: int) -> str:
    return f"/games/{game}/join"


def join_box(game: int) -> dict[str, str]:
    """What the TV shows to let phones into ``game``: its join link (on the table's network address when the
    command knows it), its QR code's address and its join code. Needs no request (the board is rendered
    once per commit, off any request)."""
    base = str(current_app.config.get("BOARD_PUBLIC_URL") or "/").rstrip("/")
    return {"code": tables().code(game), "url": base + join_path(game), "qr": join_path(game) + ".svg"}


# -- the referee ----------------------------------------------------------------------------------

def off_the_loop(work: Callable[[], T]) -> T:
    """Run ``work`` (SQLite's reads and writes) in gevent's thread pool when the board serves on gevent.

    A write waits for the database's lock as long as another uw-referee holds it (SQLite's busy timeout,
    up to 10 s): on the event loop's own thread that wait would stop every page and stream of the board.
    In a thread of the pool only the request that writes waits. Without gevent (tests, a plain WSGI
    server) it runs here. The exception ``work`` raises is raised here (not printed by gevent's hub)."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the board
        return work()
    if not monkey.is_module_patched("threading"):
        return work()
    import gevent

    def caught() -> tuple[bool, Any]:
        try:
            return True, work()
        except BaseException as exc:  # handed back to the greenlet that asked, which raises it
            return False, exc

    ok, value = gevent.get_hub().threadpool.apply(caught)
    if not ok:
        raise value
    answer: T = value
    return answer


class OffTheLoop:
    """The referee, each of its calls made by ``off_the_loop`` on a connection of its own (closed after it:
    an SQLite connection belongs to the thread that opened it)."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    def call(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            try:
                return work(self.referee)
            finally:
                self.referee.store.close()

        return off_the_loop(run)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def method(*args: Any, **kwargs: Any) -> Any:
            return self.call(lambda ref: getattr(ref, name)(*args, **kwargs))

        return method


def _referee() -> Any:
    from referee import Referee
    from referee.store_pg import open_store

    rt = runtime(current_app)

    def dictionary() -> Any:
        if rt.dictionary is None:
            from dictionaries.dictionary import open_dictionary

            rt.dictionary = open_dictionary()
        return rt.dictionary

    return OffTheLoop(Referee(open_store(current_app.config["BOARD_DB"]), dictionary))


def _problem(exc: Problem) -> Response:
    titles = {400: _("Bad request"), 401: _("Not signed in"), 403: _("Not allowed"), 404: _("Not found"),
              409: _("The game moved on"), 422: _("Refused"), 429: _("Too many requests"),
              503: _("Try again")}
    body = jsonify(type=f"urn:uw-referee:{exc.kind}", title=titles.get(exc.status, _("Error")),
                   status=exc.status, detail=exc.detail)
    body.status_code = exc.status
    body.mimetype = "application/problem+json"
    if exc.status in (429, 503):
        body.headers["Retry-After"] = str(int(WINDOW_SECONDS))
    if exc.status == 401:
        body.headers["WWW-Authenticate"] = 'Bearer realm="uw-referee"'
    return body


players.register_error_handler(Problem, _problem)


def _store_problem(exc: Exception) -> Response:
    """The database could not be read or written (another uw-referee kept it locked past the busy timeout, a
    full disk): 503 naming why; nothing was changed."""
    return _problem(Problem(503, "store", sentence(say(message_of(exc)))))


def _store_errors() -> None:
    from referee.store import StoreError

    players.register_error_handler(StoreError, _store_problem)


_store_errors()


def _address() -> str:
    return str(request.remote_addr or "?")


def _body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Problem(400, "bad-request", _("Send a JSON object."))
    return data


def _game_or_404(game_id: int) -> tuple[int, Game]:
    from referee import NoGame

    try:
        loaded: tuple[int, Game] = _referee().load(game_id)
        return loaded
    except NoGame:
        raise Problem(404, "no-game", sentence(say(msg("there is no game {game}", game=game_id)))) from None


def _seat(game_id: int, *, write: bool) -> Seat:
    """The seat the request speaks for: ``Authorization: Bearer <token>`` or the seat's cookie (then a write
    must carry the seat's CSRF token in ``X-CSRF-Token``)."""
    t = tables()
    header = request.headers.get("Authorization", "")
    token, by_cookie = None, False
    if header.startswith("Bearer "):
        token = header[7:].strip()
    elif (COOKIE_PREFIX + str(game_id)) in request.cookies:
        token, by_cookie = request.cookies[COOKIE_PREFIX + str(game_id)], True
    if not token:
        raise Problem(401, "no-token", _("Take a seat first: this request carries no seat's token."))
    seat = t.by_token.get(token)
    if seat is None or seat.game != game_id or not hmac.compare_digest(seat.token, token):
        raise Problem(401, "bad-token", _("This seat's token is not valid for this game; take a seat again."))
    if write and by_cookie and not hmac.compare_digest(request.headers.get(CSRF_HEADER, ""), seat.csrf):
        raise Problem(403, "csrf", _("This request lacks the page's CSRF token (X-CSRF-Token); reload the page."))
    return seat


def _is_host() -> bool:
    header = request.headers.get("Authorization", "")
    given = header[7:].strip() if header.startswith("Bearer ") else ""
    return bool(given) and hmac.compare_digest(given, tables().host)


# -- seats ----------------------------------------------------------------------------------------

def _limit_address(t: Tables, address: str) -> None:
    """Refuse a write from a device that has made too many in the last window (429)."""
    if t.limited("address:" + address, ADDRESS_WRITES, WINDOW_SECONDS):
        raise Problem(429, "rate-limit", _("Too many requests from this device: wait a few seconds."))


@players.post("/api/games/<int:game_id>/seats")
def take_seat(game_id: int) -> Any:
    """Take a seat: ``{"code": "K7P2QX", "seat": "Ann"}`` answers the seat's token (and sets its cookie)."""
    t = tables()
    address = _address()
    if t.over("wrong-code:" + address, WRONG_CODES, WRONG_CODE_SECONDS):
        raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
    _limit_address(t, address)
    data = _body()
    code = str(data.get("code", "")).strip().upper()
    if not hmac.compare_digest(code.encode(), t.code(game_id).encode()):
        t.limited("wrong-code:" + address, 10**9, WRONG_CODE_SECONDS)  # count it
        raise Problem(403, "wrong-code", _("That is not the join code shown on the board."))
    _gid, game = _game_or_404(game_id)
    if game.state.is_over():
        raise Problem(409, "game-over", sentence(say(game.state.waiting_for())))
    asked = str(data.get("seat", "")).strip()
    player = next((p for p in game.state.players if p.name.casefold() == asked.casefold()), None)
    if player is None:
        raise Problem(400, "no-seat", _("{seat} is not a player of game {game}.").format(seat=repr(asked[:40]),
                                                                                       game=game_id))
    key = (game_id, player.name.casefold())
    with t.lock:
        if key in t.seats:
            raise Problem(409, "seat-taken", _("{name}'s seat is already taken; the host can release it.").format(
                name=player.name))
        seat = Seat(game_id, player.name, new_secret(), new_secret())
        t.seats[key] = seat
        t.by_token[seat.token] = seat
    answer = jsonify(game=game_id, seat=seat.name, token=seat.token, csrf=seat.csrf)
    answer.status_code = 201
    answer.set_cookie(COOKIE_PREFIX + str(game_id), seat.token, httponly=True, samesite="Strict",
                      secure=request.is_secure, path="/")
    return answer


@players.delete("/api/games/<int:game_id>/seats/<name>")
def release_seat(game_id: int, name: str) -> Any:
    """The host frees a seat (``Authorization: Bearer <host secret>``): its token stops working."""
    if not _is_host():
        raise Problem(403, "not-host", _("Only the host can release a seat."))
    t = tables()
    with t.lock:
        seat = t.seats.pop((game_id, name.casefold()), None)
        if seat is not None:
            t.by_token.pop(seat.token, None)
    if seat is None:
        raise Problem(404, "no-seat", _("Nobody sits in that seat."))
    return Response(status=204)


@players.get("/api/games/<int:game_id>/seats")
def list_seats(game_id: int) -> Any:
    """Which seats are taken (names only: never a token)."""
    _gid, game = _game_or_404(game_id)
    t = tables()
    return jsonify(game=game_id, seats=[{"seat": p.name, "taken": (game_id, p.name.casefold()) in t.seats}
                                        for p in game.state.players])


# -- reading and judging --------------------------------------------------------------------------

def game_view(game_id: int, game: Any, seat: Seat | None = None) -> dict[str, Any]:
    """A game as a phone needs it: the state, the last event's number, what it waits for and the last actions
    (newest first, in the request's language, as the board shows them)."""
    from referee.actions import waiting

    state = game.state
    w = waiting(state)
    rt = runtime(current_app)
    rt.watcher.poll()  # the board's own copy of the game, caught up with the write just made (if any)
    try:
        shown = rt.feed(game_id).shown()
        recent = list(reversed(shown.recent))[:PHONE_RECENT] if shown.game.count == game.count else []
    except BoardError:
        recent = []
    return {"game": game_id, "events": game.count, "undos": game.generation, "phase": state.phase.value,
            "over": state.is_over(), "winner": state.winner, "dice": state.setup.dice,
            "players": [{"name": p.name, "score": p.score, "hand": p.hand, "left": p.left} for p in state.players],
            "waiting": {"player": w.player, "text": sentence(say(w.text)), "word": w.word, "needs": w.needs,
                        "letters": w.letters},
            "seat": seat.name if seat else None,
            "your_turn": bool(seat and w.player and w.player.casefold() == seat.name.casefold()),
            "can_undo": bool(seat and _own_last(game_id, game, seat)), "recent": recent}


def _own_last(game_id: int, game: Any, seat: Seat) -> bool:
    last = tables().last_phone_action.get(game_id)
    return last is not None and last[0] == game.count and last[1] == seat.name


@players.get("/api/games/<int:game_id>/play")
def read_for_seat(game_id: int) -> Any:
    """The game as this seat sees it (the phone page's read)."""
    seat = _seat(game_id, write=False)
    _gid, game = _game_or_404(game_id)
    return jsonify(game_view(game_id, game, seat))


@players.get("/api/games/<int:game_id>/verdict")
def verdict(game_id: int) -> Any:
    """The verdict on ``?word=`` as the CLI gives it, tried on the game as it is (card accounting included)."""
    from dictionaries.errors import WordError
    from referee import RulesError
    from referee.render import check_lines, letters_text
    from referee.terminal import Style

    word = request.args.get("word", "")[:40]
    ref = _referee()
    try:
        prepared = ref.prepare(game_id, word)
    except WordError as exc:
        raise Problem(400, "bad-word", sentence(say(message_of(exc)))) from None
    except RulesError as exc:
        raise Problem(409, "refused", sentence(say(message_of(exc)))) from None
    v = prepared.verdict
    refusal = None
    try:
        ref.check_play(prepared)
    except RulesError as exc:
        refusal = sentence(say(message_of(exc)))
    # The CLI's own words (``uw-referee check``): legal with the score per letter and the sanity check's
    # odds, or not legal and why; then what the game itself says (card accounting, the Oath).
    said = [line.strip().removeprefix("- ") for line in check_lines([v], Style(False))]
    if refusal and v.legal:  # (a word that is not legal: its reasons above say why)
        said.append(refusal)
    elif refusal is None and not v.legal:  # the referee takes it all the same: the Unspellable Oath (one pawn left)
        said.append(ngettext("Not a word, but the Unspellable Oath lets you play it: {n} point ({letters}); the sanity "
                             "check passes {chance}% of the time.",
                             "Not a word, but the Unspellable Oath lets you play it: {n} points ({letters}); the "
                             "sanity check passes {chance}% of the time.", v.score).format(
            n=v.score, letters=letters_text(v.letters), chance=round(v.success_chance * 100)))
    return jsonify(said=said, word=v.word, legal=v.legal, reasons=[say(r.message) for r in v.reasons], score=v.score,
                   letters=[list(x) if isinstance(x, tuple) else x for x in v.letters],
                   chance=round(v.success_chance * 100), playable=refusal is None, refusal=refusal)


# -- acting ---------------------------------------------------------------------------------------

#: The actions a phone may post and whether only the player whose turn it is may post them.
TURN_ACTIONS = {"play", "roll", "discard", "bind_done"}
ACTIONS = TURN_ACTIONS | {"bind", "undo"}


@players.post("/api/games/<int:game_id>/actions")
def act(game_id: int) -> Any:
    """One action from a seat: ``{"action": "play", "word": "look", "roll": 7, "seen": 12}``."""
    from referee import GameChanged, RulesError, Seen
    from referee.actions import RequestError

    t = tables()
    _limit_address(t, _address())
    seat = _seat(game_id, write=True)
    if t.limited("seat:" + seat.token, SEAT_ACTIONS, WINDOW_SECONDS):
        raise Problem(429, "rate-limit", _("Too many actions from this seat: wait a few seconds."))
    data = _body()
    action, seen_n = _correction(data, tuple(sorted(ACTIONS)))
    roll = data.get("roll")
    if roll is not None and (not isinstance(roll, int) or isinstance(roll, bool)):
        raise Problem(400, "bad-roll", _("The roll is a whole number."))
    ref = _referee()
    _gid, game = _game_or_404(game_id)
    state = game.state
    if state.is_over():
        raise Problem(409, "game-over", sentence(say(state.waiting_for())))
    seen = Seen(events=seen_n)
    try:
        ref.call(lambda r: r.store.check_seen(game_id, seen))
    except GameChanged as exc:
        raise Problem(409, "game-moved", sentence(say(message_of(exc)))) from None
    current = state.current.name if state.current is not None else None
    if action in TURN_ACTIONS and (current is None or current.casefold() != seat.name.casefold()):
        raise Problem(403, "not-your-turn", _("It is not {seat}'s turn: {waiting}").format(
            seat=seat.name, waiting=sentence(say(state.waiting_for()))))
    if action == "undo" and not _own_last(game_id, game, seat):
        raise Problem(403, "not-yours", _("{seat} can only undo their own last action, until the next player acts; "
                                          "ask the host for any other undo.").format(seat=seat.name))
    guard = Seen(events=seen_n, player=seat.name) if action in TURN_ACTIONS else seen
    try:
        if action == "play":
            result = ref.play(ref.prepare(game_id, str(data.get("word", ""))[:40]), roll=roll, seen=guard)
        elif action == "roll":
            result = ref.roll(game_id, roll, skip=bool(data.get("skip")), seen=guard)
        elif action == "discard":
            letters = data.get("letters")
            result = ref.discard(game_id, str(letters)[:40] if letters else None, seen=guard)
        elif action == "bind_done":
            result = ref.bind_done(game_id, seen=guard)
        elif action == "bind":
            result = ref.bind(ref.prepare(game_id, str(data.get("word", ""))[:40]), seat.name, seen=guard)
        else:
            result = ref.undo(game_id, 1, seen=guard)
    except GameChanged as exc:
        raise Problem(409, "game-moved", sentence(say(message_of(exc)))) from None
    except (RulesError, RequestError, ValueError) as exc:
        raise Problem(422, "refused", sentence(say(message_of(exc)))) from None
    with t.lock:
        if action == "undo":
            t.last_phone_action.pop(game_id, None)
        else:
            t.last_phone_action[game_id] = (result.game.count, seat.name)
    runtime(current_app).watcher.poll()
    view = game_view(game_id, result.game, seat)
    view["notes"] = [sentence(say(n)) for n in result.notes]
    return jsonify(view)


# -- the host ------------------------------------------------------------------------------------

#: What a seat may ask the host for: any undo or redo, a correction of the latest roll, leaving the game.
ASKABLE = ("undo", "redo", "amend", "leave")


def _correction(data: dict[str, Any], allowed: tuple[str, ...] = ("undo", "redo")) -> tuple[str, int]:
    """The action a body names (one of ``allowed``) and the last event its sender saw."""
    action = data.get("action")
    if action not in allowed:
        raise Problem(400, "bad-action", _("Unknown action {action}: one of {actions}.").format(
            action=repr(str(action)[:20]), actions=", ".join(sorted(allowed))))
    seen_n = data.get("seen")
    if not isinstance(seen_n, int) or isinstance(seen_n, bool):
        raise Problem(400, "no-seen", _("Say the number of the last event this page saw (\"seen\")."))
    return str(action), seen_n


@players.post("/api/games/<int:game_id>/requests")
def ask(game_id: int) -> Any:
    """A seat asks the host for a correction it may not make itself: ``{"action": "undo", "seen": N}``."""
    t = tables()
    _limit_address(t, _address())
    seat = _seat(game_id, write=True)
    data = _body()
    action, seen_n = _correction(data, ASKABLE)
    roll = data.get("roll")
    if action == "amend" and (not isinstance(roll, int) or isinstance(roll, bool)):
        raise Problem(400, "bad-roll", _("The roll is a whole number."))
    asked = Asked(secrets.token_urlsafe(8), seat.name, action, seen_n, roll if action == "amend" else None)
    with t.lock:
        t.asked.setdefault(game_id, {})[asked.id] = asked
    _tell_the_terminal(game_id, asked)
    answer = jsonify(request=asked.id, seat=seat.name, action=action, seen=seen_n, roll=asked.roll)
    answer.status_code = 202
    return answer


def _tell_the_terminal(game_id: int, asked: Asked) -> None:
    """Say a request on the board's terminal, in the host's language, with the command that makes it there
    (the host may confirm it on their page or type that command: the request is then dropped as made)."""
    import shlex

    from referee.board.language import speaking

    with speaking(str(current_app.config.get("BOARD_HOST_LANG") or "en")):
        said = {"undo": _("{seat} asks to undo the last action."),
                "redo": _("{seat} asks to redo the last undone action."),
                "amend": _("{seat} asks to correct the last roll to {roll}."),
                "leave": _("{seat} asks to leave the game.")}[asked.action].format(seat=asked.seat, roll=asked.roll)
        command = {"undo": "undo", "redo": "redo", "amend": f"amend --roll {asked.roll}",
                   "leave": f"leave {shlex.quote(asked.seat)}"}[asked.action]
        line = _("Game {game}: {request} Confirm it on the host's page, or type: {command}").format(
            game=game_id, request=said, command=f"uw-referee --game {game_id} {command}")
    print(line, flush=True)


@players.post("/api/games/<int:game_id>/requests/<rid>")
def answer_request(game_id: int, rid: str) -> Any:
    """The host confirms (``{"confirm": true}``) or refuses a correction a seat asked for. Confirmed, it is
    made on the game as the seat saw it: refused with 409 when the game moved since."""
    if not _is_host():
        raise Problem(403, "not-host", _("Only the host can undo or redo another player's action."))
    t = tables()
    with t.lock:
        asked = t.asked.get(game_id, {}).pop(rid, None)
    if asked is None:
        raise Problem(404, "no-request", _("There is no such request (already answered?)."))
    if not _body().get("confirm"):
        return Response(status=204)
    return _correct(game_id, asked.action, asked.seen, asked)


@players.post("/api/games/<int:game_id>/corrections")
def correct(game_id: int) -> Any:
    """The host's corrections (``Authorization: Bearer <host secret>``): ``{"action": "undo"|"redo", "seen": N}``
    takes back or puts back the last action, whoever took it."""
    if not _is_host():
        raise Problem(403, "not-host", _("Only the host can undo or redo another player's action."))
    action, seen_n = _correction(_body())
    return _correct(game_id, action, seen_n)


def _correct(game_id: int, action: str, seen_n: int, asked: Asked | None = None) -> Any:
    from referee import GameChanged, RulesError, Seen
    from referee.actions import RequestError

    ref = _referee()
    _game_or_404(game_id)
    seen = Seen(events=seen_n)
    try:
        if action == "leave" and asked is not None:
            result: Any = ref.leave(game_id, asked.seat, seen=seen)
        elif action == "amend" and asked is not None and asked.roll is not None:
            result = ref.amend(game_id, asked.roll, seen=seen)
        else:
            result = (ref.undo if action == "undo" else ref.redo)(game_id, 1, seen=seen)
    except GameChanged as exc:
        raise Problem(409, "game-moved", sentence(say(message_of(exc)))) from None
    except (RulesError, RequestError) as exc:
        raise Problem(422, "refused", sentence(say(message_of(exc)))) from None
    with tables().lock:
        tables().last_phone_action.pop(game_id, None)
    runtime(current_app).watcher.poll()
    return jsonify(game_view(game_id, result.game))


@players.get("/host")
def host_page() -> Any:
    """The host's page: the secret stays in the link's fragment (never sent in a request line or logged)."""
    return render_template("host.html", title=_("Host"), nav="host", game_id=_current_game())


@players.get("/api/games/<int:game_id>/host")
def host_view(game_id: int) -> Any:
    """What the host's page shows: the game, its join code, which seats are taken, the corrections asked for
    and the game the board shows now (a new game started: the page moves to it).

    A correction asked on a game that has moved since (someone acted, or the host made it at the terminal
    with ``uw-referee undo``) can no longer be made as asked: it is dropped."""
    if not _is_host():
        raise Problem(403, "not-host", _("Only the host can release a seat."))
    _gid, game = _game_or_404(game_id)
    t = tables()
    view = game_view(game_id, game)
    view["join"] = join_box(game_id)
    view["current"] = _current_game()
    view["seats"] = [{"seat": p.name, "taken": (game_id, p.name.casefold()) in t.seats} for p in game.state.players]
    with t.lock:
        waiting = t.asked.get(game_id, {})
        for rid in [rid for rid, a in waiting.items() if a.seen != game.count]:
            del waiting[rid]
        view["requests"] = [{"id": a.id, "seat": a.seat, "action": a.action, "seen": a.seen, "roll": a.roll}
                            for a in waiting.values()]
    return jsonify(view)


# -- pages and documents --------------------------------------------------------------------------

def _current_game() -> int | None:
    """The game the board shows on its front page (pinned, else the most recently active), if any."""
    game_id = current_app.config.get("BOARD_GAME")
    if game_id is not None:
        return int(game_id)
    try:
        return runtime(current_app).feed(None).shown().id
    except BoardError:
        return None


def _known(game_id: int) -> Any:
    """The game as the board shows it; an unknown one is the board's page saying so (404)."""
    if game_id > 2**63 - 1:  # beyond SQLite's integers: not a game
        raise BoardError(msg("there is no game {game}", game=game_id), 404)
    return runtime(current_app).feed(game_id).shown()


@players.get("/join")
def join_current() -> Any:
    """The join link the terminal prints: the join page of the game the board shows now."""
    from flask import redirect

    game_id = _current_game()
    if game_id is None:
        return render_template("phone.html", title=_("Join the game"), nav="join", game_id=None, players=[])
    query = request.query_string.decode()
    return redirect(join_path(game_id) + (f"?{query}" if query else ""), code=303)


@players.get("/games/<int:game_id>/join")
def join_page(game_id: int) -> Any:
    """The phone's page: the code, a seat, then the turns of that seat."""
    names = list(_known(game_id).state.setup.players)
    return render_template("phone.html", title=_("Join the game"), nav="join", game_id=game_id, players=names)


@players.get("/games/<int:game_id>/join.svg")
def join_qr(game_id: int) -> Any:
    """The game's join link as a QR code (SVG, drawn by segno on the server)."""
    import io

    import segno

    _known(game_id)
    link = join_box(game_id)["url"]
    if link.startswith("/"):
        link = request.host_url.rstrip("/") + link
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, border=2, dark="#000", light="#fff")
    return Response(out.getvalue(), mimetype="image/svg+xml")


@players.get("/api/openapi.json")
def openapi() -> Any:
    return jsonify(OPENAPI)


def _problem_ref() -> dict[str, Any]:
    return {"description": "A refusal (application/problem+json, in the request's language)",
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "uw-referee board: players' API", "version": "1",
             "description": "Phones, bots and the CLI share one contract: every write goes through the referee "
                            "library and its turn guard. Served only by a board started with --players."},
    "components": {
        "securitySchemes": {"seat": {"type": "http", "scheme": "bearer"},
                            "seatCookie": {"type": "apiKey", "in": "cookie", "name": "uw_seat_{game}"},
                            "host": {"type": "http", "scheme": "bearer",
                                     "description": "The host secret printed on the terminal."}},
        "schemas": {
            "Problem": {"type": "object", "properties": {"type": {"type": "string"}, "title": {"type": "string"},
                                                          "status": {"type": "integer"},
                                                          "detail": {"type": "string"}}},
            "Game": {"type": "object", "properties": {"game": {"type": "integer"}, "events": {"type": "integer"},
                                                       "phase": {"type": "string"}, "over": {"type": "boolean"},
                                                       "waiting": {"type": "object"}, "seat": {"type": ["string", "null"]},
                                                       "your_turn": {"type": "boolean"},
                                                       "can_undo": {"type": "boolean"},
                                                       "recent": {"type": "array", "items": {"type": "string"},
                                                                  "description": "The last actions, newest first"}}},
        },
    },
    "paths": {
        "/api/games/{id}": {"get": {"summary": "Read a game (as the board shows it)",
                                    "responses": {"200": {"description": "The game"}, "404": _problem_ref()}}},
        "/api/games/{id}/seats": {
            "get": {"summary": "Which seats are taken", "responses": {"200": {"description": "The seats"}}},
            "post": {"summary": "Take a seat with the join code",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "required": ["code", "seat"],
                         "properties": {"code": {"type": "string"}, "seat": {"type": "string"}}}}}},
                     "responses": {"201": {"description": "The seat's token (also set as an HttpOnly, SameSite=Strict "
                                                          "cookie) and its CSRF token"},
                                   "400": _problem_ref(), "403": _problem_ref(), "409": _problem_ref(),
                                   "429": _problem_ref()}}},
        "/api/games/{id}/seats/{seat}": {
            "delete": {"summary": "Release a seat (the host)", "security": [{"host": []}],
                       "responses": {"204": {"description": "Released"}, "403": _problem_ref(),
                                     "404": _problem_ref()}}},
        "/api/games/{id}/play": {
            "get": {"summary": "The game as a seat sees it", "security": [{"seat": []}, {"seatCookie": []}],
                    "responses": {"200": {"description": "The game",
                                          "content": {"application/json": {"schema": {
                                              "$ref": "#/components/schemas/Game"}}}},
                                  "401": _problem_ref()}}},
        "/api/games/{id}/verdict": {
            "get": {"summary": "The verdict on ?word= tried on the game as it is",
                    "responses": {"200": {"description": "legal, reasons, score, letters, chance, playable, refusal"}}}},
        "/api/games/{id}/host": {
            "get": {"summary": "The game, the seats and the requests waiting (the host's page)", "security": [{"host": []}],
                    "responses": {"200": {"description": "The game, its seats and requests"}, "403": _problem_ref()}}},
        "/api/games/{id}/corrections": {
            "post": {"summary": "Undo or redo the last action (the host)", "security": [{"host": []}],
                     "responses": {"200": {"description": "The game after it"}, "403": _problem_ref(),
                                   "409": _problem_ref(), "422": _problem_ref()}}},
        "/api/games/{id}/requests": {
            "post": {"summary": "A seat asks the host for an undo, a redo, a correction of the latest roll "
                                "({\"action\": \"amend\", \"roll\": N}) or to leave the game", "security": [{"seat": []}, {"seatCookie": []}],
                     "responses": {"202": {"description": "Asked; the host's page lists it"}, "401": _problem_ref(),
                                   "403": _problem_ref()}}},
        "/api/games/{id}/requests/{request}": {
            "post": {"summary": "The host confirms ({\"confirm\": true}) or refuses a request", "security": [{"host": []}],
                     "responses": {"200": {"description": "Confirmed and made"}, "204": {"description": "Refused"},
                                   "403": _problem_ref(), "404": _problem_ref(), "409": _problem_ref()}}},
        "/api/games/{id}/actions": {
            "post": {"summary": "Act for a seat", "security": [{"seat": []}, {"seatCookie": []}],
                     "description": "With the cookie, the X-CSRF-Token header must carry the seat's CSRF token.",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "required": ["action", "seen"],
                         "properties": {"action": {"enum": sorted(ACTIONS)}, "seen": {"type": "integer"},
                                        "word": {"type": "string"}, "roll": {"type": "integer"},
                                        "letters": {"type": "string"}, "skip": {"type": "boolean"}}}}}},
                     "responses": {"200": {"description": "The game after the action, with its notes"},
                                   "400": _problem_ref(), "401": _problem_ref(), "403": _problem_ref(),
                                   "409": _problem_ref(), "422": _problem_ref(), "429": _problem_ref()}}},
    },
}


__all__ = ["OPENAPI", "Problem", "Tables", "install", "join_box", "join_code", "new_secret", "players"]
