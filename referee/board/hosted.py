"""Hosted tables (``uw-referee board --players --hosted``): anyone starts a table from the start form at ``/`` (or
``POST /api/tables``) and gets its join code, its join link and its host link; every page, stream and API route of
game N then answers only a request that carries N's join code (``?code=``, then the cookie that sets), a seat's
token of N, or N's host token (``seats.table_token``); finished games are kept ``--keep`` days, then purged, and
their players may download them (``/api/games/N/export``).

The gate (``_gate``, before every request) denies by default: a route of a game is admitted only with one of those
credentials and when the game exists; any other refusal (no such game, a missing or wrong code) is one and the
same 404: the answer does not tell a game without its code from no game (the numbers are sequential, so no
secret; the code is). A route of no game is open only when it shows none: the start form, the OpenAPI document,
the judge without a game, the static files. No page lists the games. A table's code and
host token are HMACs of its number and its random salt (kept with the game) under the board's host secret: every
replica checks them with one read, and a number given again (a restored file) gets another code and token.
"""
from __future__ import annotations

import hmac
import logging
import threading
import time
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, render_template, request
from werkzeug.exceptions import NotFound

from dictionaries.i18n import _, message_of, msg, say
from referee.board.offloop import board_referee, off_the_loop
from referee.board.runtime import runtime
from referee.board.seats import (
    COOKIE_PREFIX,
    WRONG_CODE_SECONDS,
    WRONG_CODES,
    Problem,
    client_address,
    is_host,
    json_body,
    limit_address,
    problem_answer,
    public_words,
    seat_for,
    store_problem,
    tables,
)
from referee.board.source import BoardError, sentence

hosted = Blueprint("hosted", __name__)
log = logging.getLogger(__name__)

#: Tables one address may start per window of seconds.
TABLES_PER_ADDRESS, TABLE_SECONDS = 10, 600.0
#: How often a hosted board looks for finished games past their keep time (seconds; also once at the start).
PURGE_SECONDS = 3600.0
CODE_COOKIE = "uw_code_"
#: The routes of no game that a hosted board serves: none of them shows a game.
OPEN = {"static", "board.index", "hosted.start_table", "hosted.create_table", "players.openapi", "board.judge_page"}
#: The routes that find the seat by its token in their own transaction (the phone's read and its action): the gate
#: lets a request of them that carries a seat's token through unread, and their refusal of the seat (no such seat,
#: no such game) is the gate's own 404 (``g.seat_hidden``), so one phone action costs no transaction of the gate's.
SEAT_ROUTES = {"players.act", "players.read_for_seat"}


def install(app: Flask) -> None:
    """Host tables on ``app`` (after the players' side): the gate before every request, the start form at ``/``,
    the export, and the purge of finished games past ``BOARD_KEEP_DAYS`` (now, then every ``PURGE_SECONDS``)."""
    app.register_blueprint(hosted)
    app.view_functions["board.index"] = start_page  # the root shows no game: it starts one
    app.before_request(_gate)
    app.after_request(_remember_code)
    app.context_processor(lambda: {"hosted": True, "granted_code": g.get("hosted_code")})
    app.register_error_handler(Problem, _refusal)
    app.extensions["hosted"] = {"purged_at": 0.0, "lock": threading.Lock()}
    with app.app_context():
        purge_now(app)


# -- the gate -------------------------------------------------------------------------------------

def hidden(game: object) -> Exception:
    """The one refusal for a game that does not exist and for a request that may not see it."""
    said = msg("there is no game {game} here, or this link lacks its join code", game=game)
    if request.path.startswith("/api/"):
        return Problem(404, "no-game", sentence(say(said)))
    return BoardError(said, 404)


def _gate() -> None:
    """Admit the request (see the module), or refuse it with ``hidden``; purge when it is time."""
    _purge_when_due()
    endpoint = request.endpoint
    if endpoint is None:
        return None  # no such route: Flask's own 404 or 405
    game = (request.view_args or {}).get("game_id")
    if game is None and endpoint == "board.judge_page" and "game" in request.args:
        asked = request.args["game"]
        if not (asked.isascii() and asked.isdigit()) or int(asked) > 2**63 - 1:  # '²' is a digit to isdigit
            return None  # the judge's own page: there is no such game
        game = int(asked)
    if game is None:
        if endpoint in OPEN:
            return None
        raise NotFound()  # the current game, the list of games, the board's host page: not on a hosted board
    admit(int(game))
    return None


def admit(game: int) -> None:
    """Let the request at ``game`` when it carries the game's host token, a seat's token of it or its join code
    (and the game exists); else ``hidden``. A wrong code counts toward the address's limit of wrong codes; over it,
    a code given is refused unread, but a request with credentials (a seat's or the host's token, the game's code
    cookie the board set) guesses nothing and goes through: one address is often a whole venue's (NAT)."""
    from referee.store import StoreError

    t = tables()
    address = client_address()
    cookie = request.cookies.get(CODE_COOKIE + str(game), "")
    carried = bool(cookie or request.headers.get("Authorization") or (COOKIE_PREFIX + str(game)) in request.cookies)
    if not carried and t.over("wrong-code:" + address, WRONG_CODES, WRONG_CODE_SECONDS):  # before anything is read
        raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
    code = _code_given(game)
    try:
        right = t.code(game)  # of no game: a code nobody is given
        known = bool(code) and hmac.compare_digest(code.encode(), right.encode())
        if request.endpoint in SEAT_ROUTES and (known or not code) and _carries_seat(game) and not is_host(game):
            # The route's own transaction checks the seat and that the game exists; it refuses them as here.
            g.seat_hidden, g.seat_code_known = hidden(game), known
            g.hosted_code = right
            g.hosted_set_cookie = game if request.args.get("code") and known else None
            return
        granted = (is_host(game) or _seated(game)
                   or (bool(cookie) and hmac.compare_digest(cookie.encode(), right.encode()) and code == right))
    except StoreError as exc:
        raise store_refusal(exc) from None
    if not granted and t.over("wrong-code:" + address, WRONG_CODES, WRONG_CODE_SECONDS):
        raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
    if not granted and code:
        if not t.guess(address):  # (taken before the comparison, in one step: parallel guesses wait their turn)
            raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
        granted = hmac.compare_digest(code.encode(), right.encode())
        t.settle(address, granted)
    if not granted:
        raise hidden(game)
    rt = runtime(current_app)
    rt.watcher.poll()  # a game deleted meanwhile (purged) is gone from here too
    try:
        rt.feed(game).shown()
    except BoardError as exc:
        if exc.status == 404:
            raise hidden(game) from None
        raise
    g.hosted_code = right
    g.hosted_set_cookie = game if request.args.get("code") and code == right else None


def _code_given(game: int) -> str:
    """The join code the request carries: ``?code=``, else the game's code cookie, else (taking a seat) the body's."""
    code = request.args.get("code") or request.cookies.get(CODE_COOKIE + str(game))
    if not code and request.endpoint == "players.take_seat":
        body = json_body()
        code = str(body.get("code", "")) if isinstance(body, dict) else ""
    return str(code or "").strip().upper()[:20]


def _carries_seat(game: int) -> bool:
    """The request carries a seat's token for ``game`` (``Authorization: Bearer`` or the seat's cookie), unread."""
    return request.headers.get("Authorization", "").startswith("Bearer ") or (COOKIE_PREFIX + str(game)) in request.cookies


def _seated(game: int) -> bool:
    from referee.store import StoreError

    try:
        seat_for(game, write=False)
    except Problem:
        return False
    except StoreError as exc:  # the seats cannot be read: a 503 in words, never a 500
        raise store_refusal(exc) from None
    return True


def _refusal(exc: Problem) -> Response:
    """A refusal of the gate: problem+json under /api/, else the board's error page saying it."""
    if request.path.startswith("/api/"):
        return problem_answer(exc)
    page = render_template("error.html", status=exc.status, title=str(problem_answer(exc).get_json()["title"]),
                           detail=exc.detail)
    answer = Response(page, status=exc.status, mimetype="text/html")
    if exc.status in (429, 503):
        answer.headers["Retry-After"] = problem_answer(exc).headers["Retry-After"]
    return answer


def store_refusal(exc: Exception) -> Problem:
    """The store's 503 (``seats.store_problem``: its words without the database's address) as a refusal; the
    operator's log keeps the whole message."""
    log.warning("the hosted board cannot use the games: %s", say(message_of(exc)))
    return Problem(503, "store", public_words(exc))


def _remember_code(response: Response) -> Response:
    """A page opened with its game's right ``?code=`` sets the game's code cookie: its stream, its QR code, its next
    page carry it (HttpOnly, SameSite=Strict)."""
    game = g.get("hosted_set_cookie")
    if game is not None:
        response.set_cookie(CODE_COOKIE + str(game), str(g.hosted_code), httponly=True, samesite="Strict",
                            secure=request.is_secure, path="/")
    return response


# -- starting a table -----------------------------------------------------------------------------

def start_page() -> Any:
    """The start form (the root of a hosted board)."""
    return _form()


def _form(error: str | None = None, status: int = 200, values: dict[str, Any] | None = None) -> Response:
    from dictionaries import DEFAULT_LEVEL, LEVELS
    from referee.events import MAX_PLAYERS

    page = render_template("start.html", title=_("Start a table"), nav="board", error=error, levels=LEVELS,
                           default_level=DEFAULT_LEVEL, seats=MAX_PLAYERS, values=values or {})
    return Response(page, status=status, mimetype="text/html")


@hosted.post("/tables")
def start_table() -> Any:
    """The start form sent: the table's page (its links and codes), or the form again saying what is wrong."""
    form = request.form
    choices = {"players": [n.strip() for n in form.getlist("player") if n.strip()],
               "options": form.getlist("option"), "dice": form.get("dice", "virtual"),
               "deck": form.get("deck", "standard"), "first": form.get("first", "").strip() or None,
               "target": form.get("target", "").strip() or None, "level": form.get("level", "").strip() or None,
               "card_accounting": form.get("card_accounting") == "on"}
    try:
        made = _start(choices)
    except Problem as exc:
        return _form(exc.detail, exc.status, {**choices, "players": choices["players"]})
    page = render_template("table.html", title=_("Your table"), nav="board", **made)
    return Response(page, status=201, mimetype="text/html")


@hosted.post("/api/tables")
def create_table() -> Any:
    """``{"players": ["Ann", "Bob"], "dice": "virtual", ...}``: the table's number, join code and links, and its
    host token (``Authorization: Bearer`` it to release a seat or confirm a correction of that table only)."""
    data = json_body()
    if not isinstance(data, dict):
        raise Problem(400, "bad-request", _("Send a JSON object."))
    made = _start(data)
    answer = jsonify(made)
    answer.status_code = 201
    answer.headers["Location"] = made["board"]
    return answer


def _start(data: dict[str, Any]) -> dict[str, Any]:
    """Start the game ``data`` describes, through the same set-up as ``uw-referee new`` (``referee.starting``)."""
    from dictionaries.deck import DeckError
    from referee.actions import RequestError
    from referee.events import RulesError
    from referee.starting import ChoiceError, first_roll_off, new_setup
    from referee.store import StoreError

    t = tables()
    address = client_address()
    limit_address(t, address)
    if t.limited("tables:" + address, TABLES_PER_ADDRESS, TABLE_SECONDS):
        raise Problem(429, "rate-limit", _("Too many tables started from this device: wait a few minutes."))
    names = data.get("players")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or len(names) > 100:
        raise Problem(400, "bad-players", _("Name the players as a list of names (\"players\"), in seat order."))
    options = data.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise Problem(400, "bad-options", _("Give the optional rules as a list of names (\"options\")."))
    if "seed" in data:  # a table's dice are the board's: a seed known to a player foretells every virtual roll
        raise Problem(400, "bad-seed", _("A table's virtual dice take no seed (\"seed\"): whoever knew it would "
                                         "know every roll to come."))
    target, level = (_whole(data, key) for key in ("target", "level"))
    first, dice, counting = data.get("first"), data.get("dice", "virtual"), data.get("card_accounting", True)
    if first is not None and not isinstance(first, str):
        raise Problem(400, "bad-first", _("Name the player who goes first as text (\"first\")."))
    if not isinstance(counting, bool):
        raise Problem(400, "bad-number", _("{key} is true or false.").format(key=repr("card_accounting")))
    if first is not None and dice == "virtual":  # the API's own words: no command-line flag to name
        raise Problem(400, "bad-first", _("The first player (\"first\") is for physical dice: with virtual dice "
                                          "the referee rolls off."))
    try:
        setup = new_setup(tuple(names), options=tuple(options), target=100 if target is None else target,
                          level=level, deck=_deck(data.get("deck", "standard")), dice=str(dice),
                          card_accounting=counting)
        roll_off = first_roll_off(setup, first)
        result = board_referee().start(setup, roll_off)
    except (ChoiceError, DeckError) as exc:
        raise Problem(400, "bad-choice", sentence(say(message_of(exc)))) from None
    except (RulesError, RequestError) as exc:
        raise Problem(422, "refused", sentence(say(message_of(exc)))) from None
    except StoreError as exc:
        raise store_refusal(exc) from None
    runtime(current_app).watcher.poll()
    return links(result.game_id)


def _whole(data: dict[str, Any], key: str) -> int | None:
    """A whole number the body gives (as a number, or the form's digits), else None; anything else is a 400."""
    found = data.get(key)
    if found is None:
        return None
    if isinstance(found, str) and found.isascii() and found.isdigit() and len(found) <= 18:
        return int(found)
    if isinstance(found, int) and not isinstance(found, bool) and abs(found) < 2**62:
        return found
    raise Problem(400, "bad-number", _("{key} is a whole number.").format(key=repr(key)))


def _deck(spec: Any) -> Any:
    """``standard``, ``double``, or an object of letter counts (``{"counts": {"A": 12, ...}}``); never a server's
    file."""
    from dictionaries.deck import BUILT_IN, DeckError, custom_deck

    if isinstance(spec, str) and spec in BUILT_IN:
        return BUILT_IN[spec]
    if isinstance(spec, dict) and isinstance(spec.get("counts"), dict):
        points = spec.get("points")
        if points is not None and not isinstance(points, dict):
            raise Problem(400, "bad-choice", _("A deck's points (\"points\") are an object of letter scores, "
                                               "like its counts."))
        return custom_deck("custom", spec["counts"], points)
    raise DeckError(msg("deck {deck!r} is neither 'standard', 'double' nor an object of letter counts",
                        deck=str(spec)[:40]))


def links(game: int) -> dict[str, Any]:
    """What the players of ``game`` need: its join code, join link, board link and host link (its host token in the
    fragment, never sent in a request line)."""
    t = tables()
    base = str(current_app.config.get("BOARD_PUBLIC_URL") or request.host_url).rstrip("/")
    code, token = t.code(game), t.host_token(game)
    return {"game": game, "code": code, "join": f"{base}/games/{game}/join?code={code}",
            "board": f"{base}/games/{game}?code={code}", "host": f"{base}/games/{game}/host?code={code}#{token}",
            "host_token": token, "keep_days": current_app.config.get("BOARD_KEEP_DAYS")}


# -- a table's host page and its export -----------------------------------------------------------

@hosted.get("/games/<int:game_id>/host")
def table_host(game_id: int) -> Any:
    """The host's page of one table (the gate let its code in; the token stays in the link's fragment)."""
    return render_template("host.html", title=_("Host"), nav="host", game_id=game_id)


@hosted.get("/api/games/<int:game_id>/export")
def export(game_id: int) -> Any:
    """The game as ``uw-referee --game N export`` prints it, to the byte, as a download; only once it is over (409
    before: its set-up's seed foretells every virtual roll to come)."""
    from referee.exporting import GameInPlay, export_text
    from referee.store import NoGame, StoreError
    from referee.store_pg import open_store

    path = current_app.config["BOARD_DB"]

    def read() -> str:  # in one thread: an SQLite connection belongs to the thread that opened it
        store = open_store(path, read_only=True)
        try:
            return export_text(store, game_id, finished=True)
        finally:
            store.close()

    try:
        text = off_the_loop(read)
    except NoGame:
        raise hidden(game_id) from None
    except GameInPlay as exc:
        raise Problem(409, "in-play", sentence(say(message_of(exc)))) from None
    except StoreError as exc:
        return store_problem(exc)
    return Response(text, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="uw-game-{game_id}.json"'})


# -- keeping finished games for a time --------------------------------------------------------------

def purge_now(app: Flask) -> list[int]:
    """Delete the finished games past the keep time (``Store.purge``); the board's own copies follow. A database
    that cannot be written is said in the log and tried again at the next time."""
    from referee.retention import older_than
    from referee.store import StoreError
    from referee.store_pg import open_store

    state = app.extensions["hosted"]
    state["purged_at"] = time.monotonic()
    path, keep = app.config["BOARD_DB"], float(app.config["BOARD_KEEP_DAYS"])

    def purge() -> list[int]:  # in one thread, as ``export``'s read
        store = open_store(path)
        try:
            return store.purge(older_than(keep))
        finally:
            store.close()

    try:
        deleted = off_the_loop(purge)
    except StoreError as exc:
        log.warning("the finished games could not be purged: %s", say(message_of(exc)))
        return []
    if deleted:
        log.info("purged the finished games %s", deleted)
        runtime(app).refresh(set(deleted))
    return deleted


def _purge_when_due() -> None:
    """Purge at most every ``PURGE_SECONDS``, by one request of one thread (the others go on at once)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    state = app.extensions["hosted"]
    if time.monotonic() - state["purged_at"] < PURGE_SECONDS or not state["lock"].acquire(blocking=False):
        return
    try:
        if time.monotonic() - state["purged_at"] >= PURGE_SECONDS:
            purge_now(app)
    finally:
        state["lock"].release()


__all__ = ["OPEN", "admit", "hidden", "hosted", "install", "links", "purge_now"]
