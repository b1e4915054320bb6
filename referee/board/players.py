"""The players' side of the board (``uw-referee board --players``): the blueprint's views that let a phone
take a seat with the game's join code and play that seat's turns through the referee library and its turn guard.

Opt-in: the blueprint is registered only when the board was started with ``--players``; without it the board
stays read-only. The seats live in the database (``referee.board.seats.seat_book``), so any board process on it
serves any table's phones; the host secret (printed on the terminal) releases a seat and confirms the corrections
a seat asks for. Every write goes
through ``referee.Referee`` with ``Seen`` (``referee.board.offloop``): an action decided on a game that has
moved since is refused with 409 naming what happened. The API's document is ``referee.board.openapi``.
"""
from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, g, jsonify, render_template, request

from dictionaries.i18n import _, message_of, msg, ngettext, say
from referee.asking import asked_action, asked_command, asked_kind, asked_move
from referee.board.offloop import board_referee
from referee.board.openapi import OPENAPI
from referee.board.phone_view import current_game, game_view
from referee.board.runtime import runtime
from referee.board.seats import (
    ACTIONS,
    ASKABLE,
    COOKIE_PREFIX,
    WRONG_CODE_SECONDS,
    WRONG_CODES,
    Problem,
    Seat,
    Tables,
    client_address,
    join_box,
    join_path,
    json_body,
    json_flag,
    limit_address,
    limit_reads,
    limit_seat,
    new_secret,
    problem_answer,
    require_host,
    seat_book,
    seat_for,
    seat_key,
    seat_refused,
    store_problem,
    tables,
)
from referee.board.source import BoardError, sentence
from referee.store_seats import SeatRequest

if TYPE_CHECKING:
    from referee.engine import Game

players = Blueprint("players", __name__)


def install(app: Any) -> None:
    """Let phones play: the host secret from the app's config (else a new one)."""
    app.extensions["players"] = Tables(host=app.config.get("BOARD_HOST_SECRET") or new_secret())
    limit_reads(app)  # before a hosted board's gate, which reads too
    app.register_blueprint(players)


players.register_error_handler(Problem, problem_answer)


def _store_errors() -> None:
    from referee.store import StoreError
    from referee.store_format import SeatRefused

    players.register_error_handler(StoreError, lambda exc: _hidden_seat(exc) or store_problem(exc))
    players.register_error_handler(SeatRefused, lambda exc: _hidden_seat(exc) or problem_answer(seat_refused(exc.kind)))


def _hidden_seat(exc: Exception) -> Any:
    """The hosted gate's 404 (``g.seat_hidden``) when it let the request's seat be checked by its route: a seat's
    token that opens no seat of the game, or no such game, is refused as the gate refuses them (a missing CSRF token
    stays a 403, as after the gate)."""
    from referee.store import NoGame
    from referee.store_format import SeatRefused

    hidden = g.get("seat_hidden")
    unseated = isinstance(exc, SeatRefused) and exc.kind != "csrf" and not g.get("seat_code_known")
    if hidden is None or not (isinstance(exc, NoGame) or unseated):  # (with the game's code: the seat's own 401)
        return None
    return problem_answer(hidden)


_store_errors()


def _body() -> dict[str, Any]:
    data = json_body()
    if not isinstance(data, dict):
        raise Problem(400, "bad-request", _("Send a JSON object."))
    return data


def _game_or_404(game_id: int) -> tuple[int, Game]:
    from referee import NoGame

    try:
        loaded: tuple[int, Game] = board_referee().load(game_id)
        return loaded
    except NoGame:
        raise Problem(404, "no-game", sentence(say(msg("there is no game {game}", game=game_id)))) from None


# -- seats ----------------------------------------------------------------------------------------

@players.post("/api/games/<int:game_id>/seats")
def take_seat(game_id: int) -> Any:
    """Take a seat: ``{"code": "K7P2QX", "seat": "Ann"}`` answers the seat's token (and sets its cookie)."""
    t = tables()
    address = client_address()
    if t.over("wrong-code:" + address, WRONG_CODES, WRONG_CODE_SECONDS):
        raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
    limit_address(t, address)
    data = _body()
    code = str(data.get("code", "")).strip().upper()
    _gid, game = _game_or_404(game_id)  # no such game: 404 (it has no code: no salt to make one from)
    right = t.code(game_id)
    if not t.guess(address):  # (taken before the comparison, in one step: parallel guesses wait their turn)
        raise Problem(429, "too-many-codes", _("Too many wrong join codes from this device: wait a minute."))
    known = hmac.compare_digest(code.encode(), right.encode())
    t.settle(address, known)
    if not known:
        raise Problem(403, "wrong-code", _("That is not the join code shown on the board."))
    if game.state.is_over():
        raise Problem(409, "game-over", sentence(say(game.state.waiting_for())))
    asked = str(data.get("seat", "")).strip()
    player = next((p for p in game.state.players if p.name.casefold() == asked.casefold()), None)
    if player is None:
        raise Problem(400, "no-seat", _("{seat} is not a player of game {game}.").format(seat=repr(asked[:40]),
                                                                                       game=game_id))
    seat = Seat(game_id, player.name, new_secret(), new_secret())
    if not seat_book().take(game_id, player.name, seat.token, seat.csrf):  # the database's key: one seat, one phone
        raise Problem(409, "seat-taken", _("{name}'s seat is already taken; the host can release it.").format(
            name=player.name))
    answer = jsonify(game=game_id, seat=seat.name, token=seat.token, csrf=seat.csrf)
    answer.status_code = 201
    answer.set_cookie(COOKIE_PREFIX + str(game_id), seat.token, httponly=True, samesite="Strict",
                      secure=request.is_secure, path="/")
    return answer


@players.delete("/api/games/<int:game_id>/seats/<name>")
def release_seat(game_id: int, name: str) -> Any:
    """The host frees a seat (``Authorization: Bearer <host secret>``): its token stops working."""
    require_host(_("Only the host can release a seat."))
    if not seat_book().release(game_id, name):
        raise Problem(404, "no-seat", _("Nobody sits in that seat."))
    return Response(status=204)


@players.get("/api/games/<int:game_id>/seats")
def list_seats(game_id: int) -> Any:
    """Which seats are taken (names only: never a token)."""
    _gid, game = _game_or_404(game_id)
    taken = seat_book().taken(game_id)
    return jsonify(game=game_id, seats=[{"seat": p.name, "taken": p.name.casefold() in taken}
                                        for p in game.state.players])


# -- reading and judging --------------------------------------------------------------------------

@players.get("/api/games/<int:game_id>/play")
def read_for_seat(game_id: int) -> Any:
    """The game as this seat sees it (the phone page's read): the seat and the game in one transaction."""
    key = seat_key(game_id, write=False)
    game, own = board_referee().call(lambda r: r.store.seat_look(game_id, key))
    return jsonify(game_view(game_id, game, key.name, own))


@players.get("/api/games/<int:game_id>/verdict")
def verdict(game_id: int) -> Any:
    """The verdict on ``?word=`` as the CLI gives it, tried on the game as it is (card accounting included)."""
    from dictionaries.errors import WordError
    from referee import RulesError
    from referee.render import OVERRULABLE, check_lines, letters_text
    from referee.terminal import Style

    word = request.args.get("word", "")[:40]
    ref = board_referee()
    try:
        prepared = ref.prepare(game_id, word)
    except WordError as exc:
        raise Problem(400, "bad-word", sentence(say(message_of(exc)))) from None
    except RulesError as exc:
        raise Problem(409, "refused", sentence(say(message_of(exc)))) from None
    v = prepared.verdict
    refusal, codes = None, ()
    try:
        ref.check_play(prepared)
    except RulesError as exc:
        refusal, codes = sentence(say(message_of(exc))), tuple(getattr(exc, "codes", ()))
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
                   chance=round(v.success_chance * 100), playable=refusal is None, refusal=refusal,
                   overrulable=bool(refusal and codes and all(c in OVERRULABLE for c in codes)))


# -- acting ---------------------------------------------------------------------------------------

@players.post("/api/games/<int:game_id>/actions")
def act(game_id: int) -> Any:
    """One action from a seat: ``{"action": "play", "word": "look", "roll": 7, "seen": "12-3f9a0c1b2d4e5f60"}``,
    made by the referee's one write path in one transaction (the seat, the guard, the action, the seat's own-undo
    right); its refusal says what happened (nothing is read before it to choose the words)."""
    from referee import GameChanged, GameOver, RulesError
    from referee.actions import RequestError
    from referee.engine import NotTheirTurn, NotYours
    from referee.moves import Bind as BindMove
    from referee.moves import CloseBinding, Discard, PassBinding, Play, Roll, Undo

    t = tables()
    limit_address(t, client_address())
    key = seat_key(game_id, write=True)
    limit_seat(t, key)
    data = _body()
    action, seen = _correction(data, tuple(sorted(ACTIONS)))
    roll = data.get("roll")
    if roll is not None and (not isinstance(roll, int) or isinstance(roll, bool)):
        raise Problem(400, "bad-roll", _("The roll is a whole number."))
    skip = json_flag(data, "skip")
    word = str(data.get("word", ""))[:40]
    letters = data.get("letters")
    moves: dict[str, Callable[[], Any]] = {
        "play": lambda: Play(word, roll), "roll": lambda: Roll(roll, skip),
        "discard": lambda: Discard(str(letters)[:40] if letters else None), "bind_done": lambda: CloseBinding(),
        "bind": lambda: BindMove(word), "pass": lambda: PassBinding(), "undo": lambda: Undo()}
    move = moves[action]()
    try:
        result = board_referee().act(game_id, move, seat=key, seen=seen)
    except NotYours as exc:  # (its words say why: another write came since, or its player is out)
        raise Problem(403, "not-yours", sentence(say(message_of(exc)))) from None
    except GameOver as exc:
        raise Problem(409, "game-over", sentence(say(message_of(exc)))) from None
    except NotTheirTurn as exc:
        raise Problem(403, "not-your-turn", sentence(say(message_of(exc)))) from None
    except GameChanged as exc:
        raise _moved(exc) from None
    except (RulesError, RequestError, ValueError) as exc:
        raise Problem(422, "refused", sentence(say(message_of(exc)))) from None
    made = result.version  # the version this seat's action made: its own-undo right belongs to it alone
    if action in ("bind", "pass"):  # Spell Binding closes once every other seated player named a word or passed
        result = _close_binding(game_id, result)  # (a write of the table's: it ends that right)
    player = next((p for p in result.game.state.players if p.name.casefold() == key.name.casefold()), None)
    # its own, recorded in the write (``_check_own``), while no other write came after it
    own = action != "undo" and result.version == made and player is not None and not player.out
    view = game_view(game_id, result.game, key.name, can_undo=own)
    view["notes"] = [sentence(say(n)) for n in result.told]  # (an undo too: the phone says what it took back)
    return jsonify(view)


# -- the host ------------------------------------------------------------------------------------

def _correction(data: dict[str, Any], allowed: tuple[str, ...] = ("undo", "redo")) -> tuple[str, str]:
    """The action a body names (one of ``allowed``) and the game's version its sender saw (``seen``)."""
    from referee.store_format import version_count

    action = data.get("action")
    if action not in allowed:
        raise Problem(400, "bad-action", _("Unknown action {action}: one of {actions}.").format(
            action=repr(str(action)[:20]), actions=", ".join(sorted(allowed))))
    seen = data.get("seen")
    if not isinstance(seen, str) or version_count(seen) is None:
        raise Problem(400, "no-seen", _("Send \"seen\": the game's \"version\" as this page last read it (a string "
                                        "such as \"12-3f9a0c1b2d4e5f60\"), not a number of events."))
    return str(action), seen


@players.post("/api/games/<int:game_id>/requests")
def ask(game_id: int) -> Any:
    """A seat asks the host for a correction it may not make itself: ``{"action": "undo", "seen": VERSION}``
    (refused with 409 when the game is no longer at that version)."""
    from referee.store_format import version_count

    t = tables()
    limit_address(t, client_address())
    seat = seat_for(game_id, write=True)
    data = _body()
    action, seen = _correction(data, ASKABLE)
    roll = data.get("roll")
    word = str(data.get("word", "")).strip()[:40]
    rolled = roll is not None or action == "amend"  # an overrule's roll: with physical dice (virtual: the referee's)
    if rolled and (not isinstance(roll, int) or isinstance(roll, bool) or not 1 <= roll <= 20):
        raise Problem(400, "bad-roll", _("The roll is a whole number from 1 to 20."))
    if action == "allow" and not word.isalpha():
        raise Problem(400, "bad-word", _("Say the word the table is asked to allow (\"word\")."))
    asked = SeatRequest(secrets.token_urlsafe(8), seat.name, asked_action(action, word), version_count(seen) or 0,
                        roll if action in ("amend", "allow") else None, seen)
    kept = seat_book().ask(game_id, asked)  # one per seat and kind: the same again is the one already waiting
    if kept is None:
        raise Problem(409, "game-moved", _("The game changed since this page read it; nothing was asked. Look "
                                           "again, then ask."))
    if kept.id == asked.id:
        _tell_the_terminal(game_id, asked)
    answer = jsonify(request=kept.id, seat=seat.name, action=action, seen=seen, roll=kept.roll,
                     word=asked_kind(kept.action)[1])
    answer.status_code = 202 if kept.id == asked.id else 200
    return answer


def _tell_the_terminal(game_id: int, asked: SeatRequest) -> None:
    """Say a request on the board's terminal, in the host's language, with the command that makes it there
    (the host may confirm it on their page or type that command: the request is then dropped as made)."""
    from referee.board.language import speaking
    from referee.paths import suggested

    kind, word = asked_kind(asked.action)
    with speaking(str(current_app.config.get("BOARD_HOST_LANG") or "en")):
        said = {"undo": _("{seat} asks to undo the last action."),
                "redo": _("{seat} asks to redo the last undone action."),
                "amend": _("{seat} asks to correct the last roll to {roll}."),
                "leave": _("{seat} asks to leave the game."),
                "allow": _("{seat} asks the table to allow {word}, which the referee refuses.")}[kind].format(
            seat=asked.seat, roll=asked.roll, word=word)
        command = asked_command(asked.action, asked.seat, asked.roll)
        line = _("Game {game}: {request} Confirm it on the host's page, or type: {command}").format(
            game=game_id, request=said, command=suggested(command, current_app.config.get("BOARD_DB"), game_id))
    print(line, flush=True)


@players.post("/api/games/<int:game_id>/requests/<rid>")
def answer_request(game_id: int, rid: str) -> Any:
    """The host confirms (``{"confirm": true}``) or refuses a correction a seat asked for. Confirmed, it is
    made on the game as the seat saw it: refused with 409 when the game moved since."""
    require_host(_("Only the host can undo or redo another player's action."))
    confirm = json_flag(_body(), "confirm")  # a bad body is a 400 that leaves the request waiting
    asked = seat_book().answer(game_id, rid)  # taken out: one host's answer only, whichever replica gets it
    if asked is None:
        raise Problem(404, "no-request", _("There is no such request (already answered?)."))
    if not confirm:
        return Response(status=204)
    try:
        return _correct(game_id, asked.action, asked.version or "", asked)
    except Problem as problem:
        if problem.status != 409:  # the game moved: the request is stale; anything else: it waits to be tried again
            seat_book().ask(game_id, asked)
        raise
    except Exception:
        seat_book().ask(game_id, asked)
        raise


@players.post("/api/games/<int:game_id>/corrections")
def correct(game_id: int) -> Any:
    """The host's corrections (``Authorization: Bearer <host secret>``): ``{"action": "undo"|"redo", "seen":
    VERSION}`` takes back or puts back the last action, whoever took it."""
    require_host(_("Only the host can undo or redo another player's action."))
    action, seen = _correction(_body(), ("bind_done", "redo", "undo"))
    return _correct(game_id, action, seen)


def _correct(game_id: int, action: str, seen: str, asked: SeatRequest | None = None) -> Any:
    """The host's correction, by the referee's one write path on the version ``seen`` (the write ends any seat's
    own-undo right and the other requests, in its transaction)."""
    from referee import GameChanged, RulesError
    from referee.actions import RequestError
    from referee.moves import CloseBinding, Redo, Undo

    if action == "bind_done":  # the host closes Spell Binding, whoever is still to name a word
        move: Any = CloseBinding()
    elif asked is not None:  # as asked: an overrule is the seat's own play, on its turn
        move = asked_move(asked.action, asked.seat, asked.roll)
    else:
        move = Undo() if action == "undo" else Redo()
    seat = asked.seat if asked is not None and asked_kind(asked.action)[0] == "allow" else None
    try:
        result = board_referee().act(game_id, move, seat=seat, seen=seen)
    except GameChanged as exc:
        raise _moved(exc) from None
    except (RulesError, RequestError) as exc:
        raise Problem(422, "refused", sentence(say(message_of(exc)))) from None
    return jsonify(game_view(game_id, result.game))


def _close_binding(game_id: int, result: Any) -> Any:
    """``result`` with Spell Binding closed when nobody seated is left to name a word or pass (the library decides:
    ``Referee.close_when_all_acted``); when the game moved meanwhile, the naming or pass stands as made."""
    from referee import GameChanged, RulesError

    try:
        return board_referee().close_when_all_acted(result, seat_book().taken(game_id))
    except (GameChanged, RulesError):
        return result


def _moved(exc: Exception) -> Problem:
    """A write decided on a version the game has left: 409, what happened meanwhile, and that nothing changed."""
    return Problem(409, "game-moved", _("{happened} Nothing was changed.").format(
        happened=sentence(say(message_of(exc)))))


@players.get("/host")
def host_page() -> Any:
    """The host's page: the secret stays in the link's fragment (never sent in a request line or logged)."""
    return render_template("host.html", title=_("Host"), nav="host", game_id=current_game())


@players.get("/api/games/<int:game_id>/host")
def host_view(game_id: int) -> Any:
    """What the host's page shows: the game, its join code, which seats are taken, the corrections asked for
    and the game the board shows now (a new game started: the page moves to it).

    A correction asked on a game that has moved since (someone acted, or the host made it at the terminal
    with ``uw-referee undo``) can no longer be made as asked: it is dropped."""
    require_host(_("Only the host can release a seat."))
    _gid, game = _game_or_404(game_id)
    book = seat_book()
    view = game_view(game_id, game, None, False)
    view["join"] = join_box(game_id)
    view["current"] = current_game()
    taken = book.taken(game_id)
    view["seats"] = [{"seat": p.name, "taken": p.name.casefold() in taken} for p in game.state.players]
    view["requests"] = [{"id": a.id, "seat": a.seat, "action": asked_kind(a.action)[0], "seen": a.version,
                         "roll": a.roll, "word": asked_kind(a.action)[1]}
                        for a in book.requests(game_id)]  # each with the version it is answered on
    return jsonify(view)


# -- pages and documents --------------------------------------------------------------------------

def _known(game_id: int) -> Any:
    """The game as the board shows it; an unknown one is the board's page saying so (404)."""
    if game_id > 2**63 - 1:  # beyond SQLite's integers: not a game
        raise BoardError(msg("there is no game {game}", game=game_id), 404)
    return runtime(current_app).feed(game_id).shown()


@players.get("/join")
def join_current() -> Any:
    """The join link the terminal prints: the join page of the game the board shows now."""
    from flask import redirect

    game_id = current_game()
    if game_id is None:
        return render_template("phone.html", title=_("Join the game"), nav="join", game_id=None, players=[])
    query = request.query_string.decode()
    return redirect(join_path(game_id) + (f"?{query}" if query else ""), code=303)


@players.get("/games/<int:game_id>/join")
def join_page(game_id: int) -> Any:
    """The phone's page: the code, a seat, then the turns of that seat."""
    setup = _known(game_id).state.setup
    return render_template("phone.html", title=_("Join the game"), nav="join", game_id=game_id,
                           players=list(setup.players), options=setup.options)


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


__all__ = ["install", "players"]
