"""The board's pages, its event streams and its JSON view (one blueprint)."""
from __future__ import annotations

import hashlib
import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    url_for,
)

from dictionaries.i18n import _, language, message_of, msg, ngettext, say
from dictionaries.rules import PAWNS
from referee.board.language import speaking
from referee.board.records import history_html, records_html
from referee.board.runtime import Render, runtime
from referee.board.source import (
    BoardError,
    Feed,
    Shown,
    Source,
    ending_text,
    is_over,
    sentence,
    waiting_text,
)
from referee.render import option_name, part_of_speech
from referee.terminal import shown as safe_text

board = Blueprint("board", __name__)

MAX_GAME_ID = 2**63 - 1    # SQLite's integers: a larger id is simply not a game
MAX_JUDGE_WORDS = 20
#: How often an idle stream looks whether its page was closed, where gevent's loop does not watch its connection
#: for it (seconds).
CHECK_SECONDS = 1.0


def _source() -> Source:
    return Source(current_app.config["BOARD_DB"])


def _shown(game_id: int | None) -> Shown:
    """The game as of the last commit, from the game the board keeps (no replay per request)."""
    rt = runtime(current_app)
    rt.watcher.poll()
    return rt.feed(game_id).shown()


def _check_id(game_id: int) -> int:
    if game_id > MAX_GAME_ID:
        raise BoardError(msg("there is no game {game}", game=game_id), 404)
    return game_id


# -- the board ------------------------------------------------------------------------------------

def board_context(shown: Shown) -> dict[str, Any]:
    """Everything the board fragment shows, from one game."""
    state = shown.state
    over = is_over(state)
    players = []
    for seat, p in enumerate(state.players):
        status = ("winner" if p.name == state.winner else "left" if p.left else "out" if p.out
                  else "turn" if (state.turn == seat and not over) else "")
        words = p.name.split()
        longest = max((len(w) for w in words), default=0)
        size = "" if longest <= 10 and len(p.name) <= 20 else "long" if longest <= 14 else "longer"
        players.append({"name": p.name, "words": words, "size": size, "score": p.score, "pawns": p.pawns,
                        "status": status, "progress": min(p.score, state.setup.target)})
    options = [option_name(name) for name, on in vars(state.setup.options).items() if on]
    return {
        "id": shown.id, "state": state, "players": players, "columns": _columns(len(players)), "over": over, "winner": state.winner,
        "waiting": ending_text(state) if over else waiting_text(state), "recent": list(reversed(shown.recent)),
        "options": options, "pawn_count": PAWNS, "setup": state.setup, "deck": deck_words(state.setup.deck),
        "dice": _("physical") if state.setup.dice == "physical" else _("virtual"),
        "join": _join(shown.id) if not over else None,
        "history": history_html(shown.id, shown.updated_at, shown.game.count) if over else None,  # the chart
    }


def _join(game_id: int) -> dict[str, str] | None:
    """The game's join link, QR code and code, on a board that lets phones play (``--players``): part of the
    live board, so the TV shows the current game's and follows it to a new game."""
    if "players" not in current_app.extensions:
        return None
    from referee.board.seats import join_box

    return join_box(game_id)


def _columns(players: int) -> int:
    """How many player cards a row holds on a wide screen: two rows at most, as wide as they can be."""
    return players if players <= 3 else 2 if players == 4 else 3 if players <= 6 else 4


def deck_words(deck: Any) -> str:
    """The deck the game is played with and its size ("standard (96 cards)")."""
    if deck.name == "standard":
        text = ngettext("standard ({n} card)", "standard ({n} cards)", deck.size)
    elif deck.name == "double":
        text = ngettext("double ({n} card)", "double ({n} cards)", deck.size)
    else:
        # TRANSLATORS: a deck the players described in a file; {name} is the file's name.
        text = ngettext("{name} ({n} card)", "{name} ({n} cards)", deck.size)
    return text.format(name=safe_text(deck.name), n=deck.size)


def render_board(shown: Shown) -> dict[str, str]:
    """The board fragment and what to announce, with a key that changes when either does."""
    ctx = board_context(shown)
    html = render_template("_board.html", **ctx)
    latest = shown.recent[-1] if shown.recent else ""
    announce = f"{latest} {ctx['waiting']}".strip()
    key = hashlib.blake2b(html.encode(), digest_size=8).hexdigest()
    return {"key": key, "html": html, "announce": announce, "title": _title(shown)}


def _title(shown: Shown) -> str:
    # TRANSLATORS: the page's title: the game's number and its players' names.
    return _("Game {id}: {players}").format(id=shown.id, players=", ".join(shown.state.setup.players))


def problem_payload(exc: BoardError) -> dict[str, str]:
    """The board when there is no game to show: a quiet page that waits for one (no game yet), or says why."""
    detail = sentence(say(message_of(exc)))
    waiting = exc.status == 404
    title = _("No game yet") if waiting else _("No game to show")
    html = render_template("_problem.html", detail=detail, waiting=waiting, title=title)
    return {"key": f"problem-{exc.status}-{detail}", "html": html, "announce": detail, "title": title}


def make_render(app: Flask) -> Callable[[Feed, str], Render]:
    """How the runtime renders a game in a language: in the app's context, whatever thread it runs in."""

    def render(feed: Feed, lang: str) -> Render:
        with app.app_context(), speaking(lang):
            try:
                shown = feed.shown()
            except BoardError as exc:
                payload = problem_payload(exc)
                status = 200 if exc.status == 404 else exc.status  # no game yet is a page that waits, not an error
                said = event_id(0, payload["key"])
                return Render(payload, _message(payload, said), status=status, problem=exc, event_id=said)
            payload = render_board(shown)
            said = event_id(shown.game.count, feed.head() or payload["key"])
            return Render(payload, _message(payload, said), game=shown.id, event_id=said)

    return render


def event_id(events: int, mark: str) -> str:
    """The id a board's message carries in the event stream: the game's event count, then a digest of what tells the
    game apart (``Feed.head``: the game and its chain of events; else the board's key), so that two boards at one
    count (an undo then another action, an amended roll) differ, and every replica gives one game the same id. A page
    that reconnects sends it back (``Last-Event-ID``): the stream then sends the board only if it changed since."""
    return f"{events}-{hashlib.blake2b(mark.encode(), digest_size=8).hexdigest()}"


def _message(payload: dict[str, str], said: str) -> bytes:
    """The event-stream message that carries the board, with its id."""
    return f"id: {said}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def _board_page(game_id: int | None, follow: bool) -> Any:
    """The board of one game; when it follows the current game, also the page that waits for one. The page
    is rendered once per commit and language and then sent as it is to every request."""
    rt = runtime(current_app)
    rt.watcher.poll()  # never older than the request
    found = rt.render(game_id, language())
    if found.problem is not None and not follow:
        raise found.problem
    if follow:
        stream = url_for("board.events")
    else:
        stream = url_for("board.game_events", game_id=found.game)
    page = found.pages.get(stream)
    if page is None:
        page = found.pages[stream] = render_template("board.html", payload=found.payload, stream=stream,
                                                     title=found.payload["title"], nav="board").encode()
    return Response(page, status=found.status, mimetype="text/html")


@board.get("/")
def index() -> Any:
    """The pinned game, else the most recently active one (the game the CLI acts on); it follows new games."""
    pinned = current_app.config["BOARD_GAME"]
    return _board_page(pinned, follow=pinned is None)


@board.get("/games/<int:game_id>")
def game(game_id: int) -> Any:
    return _board_page(_check_id(game_id), follow=False)


@board.get("/games")
def games() -> Any:
    found = _source().games()
    rows = [{"id": g.id, "players": ", ".join(g.players), "updated": when(g.updated_at),
             "state": _phase_words(g.phase, g.winner)} for g in found]
    return render_template("games.html", rows=rows, title=_("Games"), nav="games", records=records_html(found))


def when(stamp: str) -> str:
    """A stored UTC time (ISO 8601) to the minute, written as a reader of the language writes dates."""
    match = re.match(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})", stamp)
    if not match:
        return stamp
    year, month, day, hour, minute = match.groups()
    # TRANSLATORS: a date and time in UTC, to the minute; write it in your readers' order (Spanish: day/month/year).
    return _("{year}-{month}-{day} {hour}:{minute} UTC").format(year=year, month=month, day=day, hour=hour,
                                                                  minute=minute)


def _phase_words(phase: str, winner: str | None) -> str:
    if winner:
        return _("over: {winner} won").format(winner=winner)
    phases = {"roll_off": _("waiting for the roll-off"), "action": _("in play"),
              "sanity": _("waiting for a sanity roll"), "spell_binding": _("Spell Binding"),
              "psychotherapy": _("waiting for a Psychotherapy roll"), "last_words": _("Last Words"),
              "over": _("over")}
    return phases.get(phase, phase.replace("_", " "))


# -- live updates ---------------------------------------------------------------------------------

@board.get("/events")
def events() -> Any:
    return _stream(current_app.config["BOARD_GAME"])


@board.get("/games/<int:game_id>/events")
def game_events(game_id: int) -> Any:
    runtime(current_app).feed(_check_id(game_id))  # an unknown game is a 404, not a stream of errors
    return _stream(game_id)


def _stream(game_id: int | None) -> Response:
    """Server-sent events: the board fragment now, then again after each commit that changes it, in the
    language of the request (the page names its own: ``?lang=``).

    The stream sleeps on an event of its own (``subscribe``), set only when its game changes, the server stops
    or, under gevent, its page is closed (the event loop watches the connection: ``_close_watch``), so an idle
    stream costs no CPU. It sends a comment every keep-alive period (proxies and phones' networks drop a silent
    connection) and ends after BOARD_STREAM_SECONDS (the browser reconnects by itself within a second). Each board
    message carries an id (``event_id``); a page that reconnects sends the last one it got (``Last-Event-ID``, as
    EventSource does by itself, to this replica or another), and the board is sent at once only when it is not
    that one: a page that missed a commit gets the board as it is now, one that missed nothing gets nothing
    again. Its slot in the budget of live pages is freed when the response is closed, whichever way it ends: the
    body sent in full, a HEAD request (no body at all), the client gone, the server stopping.
    """
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":  # no body will be read: no stream, no slot
        return Response(status=200, mimetype="text/event-stream", headers=headers)
    rt = runtime(current_app)
    release = rt.streams.take()
    if release is None:
        limit = rt.streams.limit
        text = ngettext("The board already shows {n} live page, as many as it was started for (--max-viewers); "
                        "this page tries again in a few seconds.",
                        "The board already shows {n} live pages, as many as it was started for (--max-viewers); "
                        "this page tries again in a few seconds.", limit).format(n=limit)
        return Response(text + "\n", status=503, mimetype="text/plain",
                        headers={"Retry-After": "5", "Cache-Control": "no-store"})
    cfg = current_app.config
    watcher = rt.watcher
    lang = language()
    seconds, keepalive = cfg["BOARD_STREAM_SECONDS"], cfg["BOARD_KEEPALIVE_SECONDS"]
    client = request.environ.get("gunicorn.socket")  # None under Flask's test client
    resumed = request.headers.get("Last-Event-ID", "")[:64]  # only compared with the ids sent, never echoed

    def generate() -> Iterator[bytes]:
        wake = threading.Event()
        unsubscribe = watcher.subscribe(game_id, wake)  # on PostgreSQL, only this game's commits set it
        closing = _close_watch(client, wake)
        try:
            seen = watcher.version_of(game_id)
            sent = resumed
            ends = time.monotonic() + seconds
            yield b"retry: 1000\n\n"
            while True:
                try:
                    found = rt.render(game_id, lang)
                except BoardError:
                    return  # the game is gone: the page reconnects and shows why
                if found.event_id != sent:
                    yield found.message
                    sent = found.event_id
                quiet_since = time.monotonic()
                while True:
                    now = time.monotonic()
                    if watcher.stopping.is_set() or now >= ends:
                        return
                    pause = min(max(0.0, quiet_since + keepalive - now), ends - now)
                    if closing is None or closing.fired:  # nobody watches the connection: look now and then
                        pause = min(pause, CHECK_SECONDS)
                    wake.wait(pause)
                    wake.clear()
                    version = watcher.version_of(game_id)
                    if version != seen:
                        seen = version
                        break
                    if (closing is None or closing.fired) and _gone(client):
                        return  # the page was closed: its slot is freed now, not at the next write
                    if time.monotonic() - quiet_since >= keepalive:
                        yield b": idle\n\n"
                        quiet_since = time.monotonic()
        finally:
            unsubscribe()
            if closing is not None:
                closing.stop()

    response = Response(generate(), mimetype="text/event-stream", headers=headers)
    response.call_on_close(release)
    return response


class _CloseWatch:
    """gevent's event loop watching a stream's connection: the first time it is readable (a page that was
    closed; the page itself sends nothing after its request) it sets the stream's event and stops watching."""

    def __init__(self, io: Any, wake: threading.Event) -> None:
        self.io, self.wake, self.fired = io, wake, False
        io.start(self._fire)

    def _fire(self) -> None:
        self.fired = True
        self.io.stop()
        self.wake.set()

    def stop(self) -> None:
        self.io.stop()
        self.io.close()


def _gone(client: Any) -> bool:
    """Whether the client closed its end of the stream's connection (it sends nothing after its request,
    so a readable socket with nothing to read is a closed one)."""
    if client is None:
        return False
    try:
        poller = select.poll()  # not select.select: a busy board's descriptors pass its limit of 1,024
        poller.register(client, select.POLLIN)
        return bool(poller.poll(0)) and client.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _close_watch(client: Any, wake: threading.Event) -> _CloseWatch | None:
    """A watch of the stream's connection on gevent's loop, or None where there is none (no gevent: the
    stream then looks every CHECK_SECONDS)."""
    if client is None:
        return None
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the board
        return None
    if not monkey.is_module_patched("socket"):
        return None
    try:
        return _CloseWatch(get_hub().loop.io(client.fileno(), 1), wake)  # 1: readable
    except (OSError, ValueError):
        return None


# -- the judge ------------------------------------------------------------------------------------

@board.get("/judge")
def judge_page() -> Any:
    """Judge the words typed, as ``uw-referee check`` does, at the running game's size and deck."""
    from dictionaries import DEFAULT_LEVEL
    from dictionaries.deck import STANDARD
    from dictionaries.errors import DictionaryError, WordError
    from dictionaries.verdict import judge

    text = request.args.get("words", "")[:1000]
    words = [w for w in re.split(r"[\s,;]+", text) if w][:MAX_JUDGE_WORDS]
    game_state, game_id = None, None
    asked = request.args.get("game")
    if asked is not None:  # this game, or a page saying there is no such game
        if not (asked.isascii() and asked.isdigit()) or int(asked) > MAX_GAME_ID:  # '²' is a digit to isdigit
            raise BoardError(msg("there is no game {game}", game=repr(asked[:30])), 404)
        shown = _shown(int(asked))
        game_state, game_id = shown.state, shown.id
    elif not current_app.config.get("BOARD_HOSTED"):  # a hosted board has no current game to judge for
        try:
            shown = _shown(current_app.config["BOARD_GAME"])
            if not is_over(shown.state):
                game_state, game_id = shown.state, shown.id
        except BoardError:
            pass  # no game running: the standard deck at the default size
    level = game_state.setup.level if game_state else DEFAULT_LEVEL
    deck = game_state.setup.deck if game_state else STANDARD
    results, status = [], 200
    if words:
        rt = runtime(current_app)
        try:
            if rt.dictionary is None:
                from dictionaries.dictionary import open_dictionary

                rt.dictionary = open_dictionary()
        except DictionaryError as exc:
            raise BoardError(msg("the dictionary cannot be read: {error}", error=message_of(exc)), 503) from None
        for word in words:
            try:
                v = judge(rt.dictionary, word, level, deck)
            except WordError as exc:
                results.append({"input": word, "error": say(message_of(exc))})
                status = 400
                continue
            results.append({
                "input": word, "word": v.word, "legal": v.legal, "reasons": [say(r.message) for r in v.reasons],
                "score": v.score, "letters": list(v.letters), "chance": round(v.success_chance * 100),
                "used": bool(game_state and game_state.is_used(v.word)),
                "definitions": definitions_for(v.word),
            })
    page = render_template("judge.html", text=text, results=results, level=level,
                           hint=judged_for(game_id, level, deck.name), game_id=game_id, title=_("Judge a word"),
                           nav="judge",
                           truncated=len(re.split(r"[\s,;]+", text.strip())) > MAX_JUDGE_WORDS,
                           max_words=MAX_JUDGE_WORDS)
    return Response(page, status=status, mimetype="text/html")


def judged_for(game_id: int | None, level: int, deck: str) -> str:
    """What the verdicts were judged against: the running game's size and deck, or the defaults."""
    if game_id:
        if deck == "standard":
            text = _("Judged for game {game}: dictionary size {level}, standard deck; words already used in it are "
                     "marked.")
        elif deck == "double":
            text = _("Judged for game {game}: dictionary size {level}, double deck; words already used in it are "
                     "marked.")
        else:
            text = _("Judged for game {game}: dictionary size {level}, the deck {deck}; words already used in it are "
                     "marked.")
    elif deck == "standard":
        text = _("No game is running: judged at dictionary size {level} with the standard deck.")
    elif deck == "double":
        text = _("No game is running: judged at dictionary size {level} with the double deck.")
    else:
        text = _("No game is running: judged at dictionary size {level} with the deck {deck}.")
    return text.format(game=game_id, level=level, deck=deck)


def definitions_for(word: str) -> list[tuple[str, str]] | None:
    """The word's short WordNet senses as (part of speech, gloss); None when the dictionary was built
    without definitions or their files cannot be read (the page then says nothing about meaning).
    The part of speech is in the language in use; the gloss is WordNet's English."""
    from dictionaries.definitions import definitions
    from dictionaries.errors import DictionaryError, WordError

    try:
        return [(part_of_speech(d.part_of_speech), d.text) for d in definitions(word)]
    except (DictionaryError, WordError):
        return None


# -- JSON -----------------------------------------------------------------------------------------

def _game_json(shown: Shown) -> dict[str, Any]:
    """A game for programs: its state's codes and names as they are, its sentences (what it waits for,
    its recent actions) in the language of the request (``Content-Language`` says which)."""
    state = shown.state.to_dict()
    if "waiting_for" in state:
        state["waiting_for"] = say(shown.state.waiting_for())
    # ``version``: the game's version, which a program acting on the game (board --players) sends back as what it
    # saw (``seen``); ``events``: the number of its events.
    return {"game": shown.id, "updated_at": shown.updated_at, **state, "recent": shown.recent,
            "events": shown.game.count, "version": shown.version}


@board.get("/api/games")
def api_games() -> Any:
    return jsonify([{"game": g.id, "players": list(g.players), "created_at": g.created_at,
                     "updated_at": g.updated_at, "phase": g.phase, "winner": g.winner}
                    for g in _source().games()])


@board.get("/api/games/current")
def api_current() -> Any:
    return jsonify(_game_json(_shown(current_app.config["BOARD_GAME"])))


@board.get("/api/games/<int:game_id>")
def api_game(game_id: int) -> Any:
    return jsonify(_game_json(_shown(_check_id(game_id))))
