"""The board's side of the table's history (``referee.history``): the chart of a finished game on its board (the
game's page and the TV), the records on the Games page, and a table's own records at ``/games/N/records``.

Each game's figures are kept per process, keyed by the game's number and what changes at each write (for the board
its last write's time and event count, for the records its summary: ``referee.history.kept.summary_key``), so a page
replays only the games written since it was last asked: a finished game's board costs one replay per process, not
one per request. On a hosted board ``/games`` is not served (no page lists
the games); ``/games/N/records`` passes the same gate as the table's board (``hosted._gate``: N's code, a seat's
or the host's token) and shows game N with any other game whose right code the visitor's cookies carry.
"""
from __future__ import annotations

import hmac
import logging
import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Flask, Response, current_app, render_template, request

from referee.history.stats import GameFigures

records = Blueprint("records", __name__)
log = logging.getLogger("referee.board")
#: Games' figures a process keeps at least (a few kB each, the chart's points included), or as many as its largest
#: records page shows; the least recently used are dropped.
KEPT = 1000
STYLESHEET = "/static/history.css"
#: Join-code cookies a records page checks at most (a table's visitor holds the codes of the few tables they sat at).
CODES_READ = 20


class FiguresCache:
    """Each game's figures as of its last write, per process (see the module)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: OrderedDict[tuple[int, str], GameFigures] = OrderedDict()
        self.most = KEPT

    def hold(self, games: int) -> None:
        """Keep at least ``games`` games' figures: a records page walks every game it shows in order, and a cache
        smaller than that page drops each game before the page comes back to it (every game replayed on every
        request). The page holds them all in memory while it is built anyway, so this costs no more than it."""
        with self.lock:
            self.most = max(self.most, games)

    def get(self, game: int, key: str) -> GameFigures | None:
        with self.lock:
            found = self.kept.get((game, key))
            if found is not None:
                self.kept.move_to_end((game, key))
            return found

    def put(self, game: int, key: str, figures: GameFigures) -> None:
        with self.lock:
            for old in [k for k in self.kept if k[0] == game and k[1][:1] == key[:1]]:
                del self.kept[old]  # the game's figures as they were: gone with the write that changed them
            self.kept[(game, key)] = figures
            while len(self.kept) > self.most:
                self.kept.popitem(last=False)


def install(app: Flask) -> None:
    app.extensions["history"] = FiguresCache()
    app.register_blueprint(records)


def _cache() -> FiguresCache:
    found: FiguresCache = current_app.extensions["history"]
    return found


def _figures(store: Any, game: int, key: str) -> GameFigures:
    from referee.history.reading import figures_of

    cache = _cache()
    figures = cache.get(game, key)
    if figures is None:
        figures = figures_of(store, game)[0]
        cache.put(game, key, figures)
    return figures


def _store() -> Any:
    from referee.store_pg import open_store

    return open_store(current_app.config["BOARD_DB"], read_only=True)


def history_html(game: int, updated: str, events: int) -> str | None:
    """The history section of a finished game for its board, as of its last write (``updated``, with ``events``
    events; None when its events cannot be read: the board still shows the game, and the operator's log says why)."""
    from referee.history.page import section
    from referee.store import StoreError

    store = _store()
    try:
        figures = _figures(store, game, f"B{updated}#{events}")
    except StoreError as exc:
        log.warning("the history of game %s cannot be read: %s", game, exc)
        return None
    finally:
        store.close()
    # written out, as the board's other links in its fragment: it is also rendered outside a request (its stream)
    return section(figures, stylesheet=STYLESHEET, records=f"/games/{game}/records")


def records_html(summaries: list[Any], only: set[int] | None = None) -> str:
    """The records over the games of those summaries (``only``: just those numbers), as an HTML section."""
    from referee.history.kept import summary_key
    from referee.history.page import records_section
    from referee.history.stats import table_figures
    from referee.store import NoGame

    chosen = sorted((s for s in summaries if only is None or s.id in only), key=lambda s: s.id)
    _cache().hold(len(chosen))
    games = []
    store = _store()
    try:
        for summary in chosen:
            try:
                games.append(_figures(store, summary.id, "R" + summary_key(summary)))
            except NoGame:  # purged since the list was read
                continue
    finally:
        store.close()
    return records_section(games, table_figures(games), STYLESHEET)


@records.get("/games/<int:game_id>/records")
def table_records(game_id: int) -> Any:
    """Game N's records (on a hosted board, with the other games whose codes this visitor holds)."""
    from dictionaries.i18n import msg
    from referee.board.source import BoardError, Source

    summaries = Source(current_app.config["BOARD_DB"]).games()
    if game_id not in {s.id for s in summaries}:
        raise BoardError(msg("there is no game {game}", game=game_id), 404)
    only = {game_id} | _games_with_codes({s.id for s in summaries})
    page = render_template("records.html", records=records_html(summaries, only), nav="games",
                           title=_title(game_id))
    return Response(page, mimetype="text/html")


def _title(game: int) -> str:
    from referee.history.page import records_title

    return records_title(game)


def _games_with_codes(games: set[int]) -> set[int]:
    """On a hosted board, the games (of ``games``, those there are) whose right join code the visitor's cookies
    carry (the code is a game's secret: holding it is being at that table); elsewhere none. At most ``CODES_READ``
    cookies are checked, each a salt read: a visitor cannot make one page cost hundreds of reads."""
    if not current_app.config.get("BOARD_HOSTED"):
        return set()
    from referee.board.hosted import CODE_COOKIE
    from referee.board.seats import tables

    t = tables()
    asked = []
    for name, value in request.cookies.items():
        number = name[len(CODE_COOKIE):]
        if name.startswith(CODE_COOKIE) and number.isascii() and number.isdigit() and len(number) < 19:
            if int(number) in games:
                asked.append((int(number), value))
    return {number for number, value in asked[:CODES_READ]
            if hmac.compare_digest(value.encode(), t.code(number).encode())}  # from the game's salt


__all__ = ["history_html", "install", "records", "records_html"]
