"""What the board app keeps for its process: the change watcher, the games it follows and their
renders, and the budget of live pages.

One render per commit: each game the board shows is a ``Feed`` (its state and last actions, carried
forward by the new events only), and each (game, language) pair has one ``Render`` (the board
fragment, the event-stream message, the whole pages) that every stream and every page request of
that game and language shares until the next commit changes the game. The watcher refreshes the
feeds and renders what changed before it wakes the streams.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from referee.board.source import BoardError, Feed, Watcher
from referee.commits import Written
from referee.settings import env_int
from referee.store_pg import is_database_url

#: Live pages (event streams) one board serves at once by default: each costs a connection and
#: a few tens of kB of memory, no thread (BENCHMARKS.md, issue 21). ``--max-viewers`` changes it.
MAX_VIEWERS = 2000
#: Games followed at once (each a game kept in memory, a few kB); the least recently asked for is dropped.
#: ``UW_BOARD_FEEDS`` changes it: a hosted board (many tables on PostgreSQL) follows every table it streams.
MAX_FEEDS = env_int("UW_BOARD_FEEDS", 32, low=1)


@dataclass
class Render:
    """One game's board in one language, as every page and stream sends it until the next commit."""

    payload: dict[str, str]          # key, html, announce, title
    message: bytes                    # the event-stream message that carries it (with ``event_id`` as its id)
    status: int = 200
    game: int | None = None          # the game's number (None: no game to show)
    problem: BoardError | None = None
    pages: dict[str, bytes] = field(default_factory=dict)  # whole pages, by their stream's address
    event_id: str = ""               # the stream's id of this board: "<event count>-<key>" (``views.event_id``)


class Streams:
    """The budget of open event streams: ``take`` a slot or be refused; ``release`` it exactly once."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> Callable[[], None] | None:
        """A slot's release (safe to call any number of times), or None when every slot is taken."""
        with self._lock:
            if self.open >= self.limit:
                return None
            self.open += 1
        done = [False]

        def release() -> None:
            with self._lock:
                if not done[0]:
                    done[0] = True
                    self.open -= 1

        return release


class Runtime:
    """What the app keeps for its process (see the module's docstring)."""

    def __init__(self, path: str, viewers: int, render: Callable[[Feed, str], Render], poll_s: float | None = None,
                 ) -> None:
        self.path = path
        self.streams = Streams(viewers)
        self.dictionary: Any = None
        self._render = render
        self._lock = threading.RLock()
        self._feeds: OrderedDict[int | None, Feed] = OrderedDict()
        self._renders: dict[tuple[int | None, str], Render] = {}
        extra = {} if poll_s is None else {"poll_s": poll_s}
        self.watcher: Any
        if is_database_url(path):  # commits heard of on one connection (LISTEN/NOTIFY), whichever process made them
            from referee.notify import Listener

            # (this process's own commits are taken as written: no NOTIFY heard, nothing read: ``published``)
            self.watcher = Listener(path, on_change=self.refresh, on_own=self.published)
        else:
            self.watcher = Watcher(path, on_change=self.refresh, **extra)
        self.renders_done = 0  # how many renders since the start (the tests count them)

    def feed(self, game_id: int | None) -> Feed:
        """The game, as of the last commit the watcher saw (a page asks the watcher first)."""
        with self._lock:
            feed = self._feeds.get(game_id)
            if feed is None:
                feed = Feed(self.path, game_id)
                feed.refresh()
                if feed.problem is not None and game_id is not None:
                    raise feed.problem  # an unknown game is not followed
                self._feeds[game_id] = feed
                while len(self._feeds) > MAX_FEEDS:
                    old, _feed = self._feeds.popitem(last=False)
                    for key in [k for k in self._renders if k[0] == old]:
                        del self._renders[key]
            self._feeds.move_to_end(game_id)
            return feed

    def kept(self, game_id: int) -> Feed | None:
        """The board's copy of the game when it keeps one (nothing read: as of the last commit the watcher saw)."""
        with self._lock:
            return self._feeds.get(game_id)

    def render(self, game_id: int | None, lang: str) -> Render:
        """The board of the game in ``lang``: rendered once per commit that changes it, then shared."""
        with self._lock:
            feed = self.feed(game_id)
            found = self._renders.get((game_id, lang))
            if found is None:
                found = self._renders[(game_id, lang)] = self._render(feed, lang)
                self.renders_done += 1
            return found

    def published(self, written: list[Written]) -> None:
        """After a commit of this process (``referee.commits``): each game followed takes the game as written (a
        correction, a deleted game or the current game become another one: read again), its renders are dropped
        (the next page or stream renders it, once), and its streams are woken."""
        games: set[int] = set()
        with self._lock:
            for done in written:
                for key in (done.game_id, None):
                    feed = self._feeds.get(key)
                    if feed is None:
                        continue
                    if feed.refresh() if key is None and feed.id != done.game_id else feed.take(done):
                        for old in [k for k in self._renders if k[0] == key]:
                            del self._renders[old]
                        games.add(done.game_id)
        if games:
            self.watcher.woken(games)

    def refresh(self, games: set[int] | None = None) -> None:
        """After a commit: catch the followed games up, and render again, once per language shown, those
        that changed (the watcher calls it before it wakes the streams). ``games``: the games the commits
        wrote, when the watcher knows them (PostgreSQL's notifications); the current game's feed is always
        caught up (any game may become current)."""
        with self._lock:
            for game_id, feed in list(self._feeds.items()):
                if games is not None and game_id is not None and game_id not in games:
                    continue
                if feed.refresh():
                    for key in [k for k in self._renders if k[0] == game_id]:
                        self._renders[key] = self._render(feed, key[1])
                        self.renders_done += 1


def runtime(app: Flask) -> Runtime:
    rt: Runtime = app.extensions["board"]
    return rt
