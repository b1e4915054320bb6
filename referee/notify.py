"""Live updates across processes and hosts: each board process LISTENs on one PostgreSQL connection.

Every store write that commits sends ``NOTIFY uw_referee, '<schema>:<game id>'`` in its transaction (``referee.store_pg``):
the server delivers it to every listening connection once the commit is visible, whichever replica or host made
it. ``Listener`` is the board's change watcher for a PostgreSQL database (the file watcher, ``Watcher`` in
``referee.board.source``, polls SQLite instead): one thread (a greenlet under gevent) waits on the connection's
socket, hands the games heard of to ``on_change`` (the board catches those feeds up and renders them, once per
process), then wakes the streams of those games (each sleeps on an event of its own, ``subscribe``). No viewer
ever asks the database anything, and an idle stream is never woken by a commit of another game.

Notifications that arrive unasked are read from the socket without a round trip (a round trip is a transaction of the
database's). ``poll`` (a page, or an action's answer, that must not show a state older than its request) makes one round trip
on the listening connection: the server sends every notification of a commit that finished before it along with
the answer, so the games it names are caught up before ``poll`` returns. A lost connection (the server restarted,
the network cut) is made again with a pause that grows to ``RETRY_MAX_S``; once back, every game followed is
caught up (``on_change(None)``), since notifications sent meanwhile were lost.
"""
from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee import commits
from referee.store_pg import CHANNEL, CONNECT_OPTIONS, scrubbed

if TYPE_CHECKING:
    from psycopg import Connection

log = logging.getLogger("referee.board")

#: Seconds between two round trips on an idle listening connection: how soon a silent loss of the server
#: (a network cut that sends nothing) is noticed.
IDLE_CHECK_S = 5.0
#: The longest pause between two attempts to reconnect (seconds); the first is 0.1 s, doubled each time.
RETRY_MAX_S = 2.0
#: How long ``poll`` waits for its round trip before it answers with what the process has (seconds).
POLL_WAIT_S = 2.0
#: How long a new listening connection waits for the transactions in flight when it began (seconds: ``_settled``).
SETTLE_S = 1.0


class Listener:
    """The change watcher of a board on PostgreSQL (see the module). Same face as ``Watcher``: ``version``,
    ``stopping``, ``start``, ``stop``, ``wait`` and ``poll``; ``on_change`` gets the set of game ids heard of,
    or None for "any game may have changed" (after a reconnection)."""

    def __init__(self, url: str, on_change: Callable[[set[int] | None], None] | None = None,
                 on_own: Callable[[list[commits.Written]], None] | None = None) -> None:
        self.url = url
        self.on_change = on_change
        self.on_own = on_own  # this process's commits, as written (``referee.commits``), while it listens
        self._unfollow: Callable[[], None] | None = None
        self.version = 0
        self.connected = False  # the listening connection is up (the board's health check reads it)
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # streams of "the current game": every commit wakes them
        # Each game's version and the condition its streams sleep on (sharing the one lock): a commit wakes the
        # streams of its own game only, so a thousand tables' viewers do not all wake for each action.
        self._games: dict[int, tuple[list[int], threading.Condition]] = {}
        # The streams' own events, by game (None: the streams of "the current game", woken by every commit).
        self._wakes: dict[int | None, set[threading.Event]] = {}
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._rounds = threading.Condition()
        self._started = 0   # round trips begun on the listening connection
        self._done = 0      # round trips whose notifications were handled
        self._heard: set[int] = set()
        self._pid = 0  # the listening connection's backend (``referee.commits.listening``)
        self._schema = ""  # the listening connection's schema: notifications of other schemas are not ours

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                if self.on_own is not None:
                    self._unfollow = commits.follow(self.url, self.on_own)
                self._thread = threading.Thread(target=self._run, name="board-listener", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Wake every stream so it ends (the server is stopping), and the listening thread."""
        self.stopping.set()
        with self._start_lock:
            if self._unfollow is not None:
                self._unfollow()
                self._unfollow = None
        self._wake()
        with self._lock:
            self._changed.notify_all()
            for _version, condition in self._games.values():
                condition.notify_all()
            for wakes in self._wakes.values():
                for wake in wakes:
                    wake.set()
        with self._rounds:
            self._rounds.notify_all()

    def join(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the listening thread to close its connection after ``stop``."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _entry(self, game: int) -> tuple[list[int], threading.Condition]:
        """The game's version and condition (called with the lock held)."""
        entry = self._games.get(game)
        if entry is None:
            entry = self._games[game] = ([0], threading.Condition(self._lock))
        return entry

    def version_of(self, game: int | None) -> int:
        """The version a stream of ``game`` (None: the current game, whichever it is) waits to see change."""
        if game is None:
            return self.version
        with self._lock:
            return self._entry(game)[0][0]

    def subscribe(self, game: int | None, wake: threading.Event) -> Callable[[], None]:
        """Set ``wake`` after each commit of ``game`` (None: every commit) is caught up, and when the server stops;
        the function returned ends it (a stream's way to sleep until its game changes, with nothing on a timer)."""
        self.start()
        with self._lock:
            self._wakes.setdefault(game, set()).add(wake)

        def unsubscribe() -> None:
            with self._lock:
                found = self._wakes.get(game)
                if found is not None:
                    found.discard(wake)
                    if not found:
                        del self._wakes[game]

        return unsubscribe

    def wait(self, seen: int, timeout: float, game: int | None = None) -> int:
        """Block until the version of ``game`` (every commit's when None) differs from ``seen``, the timeout
        passes or the server stops."""
        self.start()
        with self._lock:
            version, condition = ([self.version], self._changed) if game is None else self._entry(game)
            if game is None:
                condition.wait_for(lambda: self.version != seen or self.stopping.is_set(), timeout)
                return self.version
            condition.wait_for(lambda: version[0] != seen or self.stopping.is_set(), timeout)
            return version[0]

    def poll(self) -> int:
        """Catch up with every commit that finished before this call (one round trip; see the module)."""
        self.start()
        with self._rounds:
            ticket = self._started + 1
        self._wake()
        with self._rounds:
            self._rounds.wait_for(lambda: self._done >= ticket or self.stopping.is_set() or not self.connected,
                                  POLL_WAIT_S)
        return self.version

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except OSError:
            pass  # the pipe is full: the listener is already woken

    def _drain(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _bump(self, games: set[int] | None) -> None:
        if self.on_change is not None:
            try:
                self.on_change(games)
            except Exception:
                log.exception("the board could not render a change")
        self.woken(games)

    def woken(self, games: set[int] | None) -> None:
        """Wake the streams of ``games`` (None: of every game), once the board has caught them up: after a commit
        heard of, or one this process made (``referee.commits``)."""
        with self._lock:
            self.version += 1
            self._changed.notify_all()
            for game in self._games if games is None else games:
                version, condition = self._entry(game)
                version[0] += 1
                condition.notify_all()
            for key in list(self._wakes) if games is None else [None, *games]:
                for wake in self._wakes.get(key, ()):
                    wake.set()

    def _note(self, notify: Any) -> None:
        """psycopg's notify handler: remember the game of our schema (handled after the round trip that brought it)."""
        self._noted(notify.channel, notify.payload)

    def _noted(self, channel: str, payload: str) -> None:
        """A notification: ``<schema>:<game>``, or ``<schema>:<game>:<origin>`` from a store of a process that tells
        its own boards itself (``referee.commits``): this process's own are left to that."""
        head, _, last = payload.rpartition(":")
        if not last.isdigit():
            if last == commits.origin() and self.on_own is not None:
                return  # this process's write: its boards took it as written (or are about to)
            head, _, last = head.rpartition(":")
        if channel == CHANNEL and head == self._schema and last.isdigit():
            self._heard.add(int(last))

    def _handle(self) -> None:
        """Catch up the games heard of and wake their streams."""
        heard, self._heard = self._heard, set()
        if heard:
            self._bump(heard)

    def _arrived(self, conn: Connection[Any]) -> None:
        """The notifications the server sent unasked (its socket became readable), handled without a round trip:
        the board catches their games up and wakes their streams; a closed connection raises (and is made again)."""
        pgconn = conn.pgconn
        pgconn.consume_input()
        while (notify := pgconn.notifies()) is not None:
            self._noted(notify.relname.decode(), notify.extra.decode())
        self._handle()

    def _connect(self) -> Connection[Any]:
        import psycopg

        conn = psycopg.connect(self.url, autocommit=True, application_name=commits.LISTENER_NAME,
                               **CONNECT_OPTIONS)
        row = conn.execute(b"SELECT current_schema(), pg_backend_pid()").fetchone()
        self._schema = str(row[0]) if row is not None else ""
        conn.add_notify_handler(self._note)
        conn.execute(f"LISTEN {CHANNEL}".encode())
        if row is not None and self.on_own is not None:  # (told this process's writes: no NOTIFY needed for it)
            self._pid = int(row[1])
            commits.listening(self._pid, self.url)
        return conn

    def _settled(self, conn: Connection[Any]) -> None:
        """Wait (at most ``SETTLE_S``) until every write transaction in flight on this database when this connection
        began listening has ended: a write of this process may have looked for listeners before this one was there,
        and sent no NOTIFY (``referee.commits``); the games caught up after this see it."""
        flight = conn.execute(b"SELECT array_agg(pid), array_agg(backend_xid::text) FROM pg_stat_activity WHERE "
                              b"datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()"
                              ).fetchone()
        ends = time.monotonic() + SETTLE_S
        while flight and flight[0] and time.monotonic() < ends and not self.stopping.is_set():
            self.stopping.wait(0.05)
            row = conn.execute(b"SELECT count(*) FROM pg_stat_activity a JOIN unnest(%s::int[], %s::text[]) f(pid, x) "
                               b"ON a.pid = f.pid AND a.backend_xid::text = f.x", flight).fetchone()
            if row is None or not row[0]:
                return

    def _round(self, conn: Connection[Any]) -> None:
        """One round trip: every notification that arrived is handed to ``_note``; then the games are caught up
        and the streams woken, and the round counted done (which ``poll`` waits for)."""
        with self._rounds:
            self._started += 1
            number = self._started
        conn.execute(b"SELECT 1")
        self._handle()
        with self._rounds:
            self._done = number
            self._rounds.notify_all()

    def _run(self) -> None:
        pause = 0.1
        first = True
        while not self.stopping.is_set():
            try:
                conn = self._connect()
            except Exception as exc:
                if self.connected or first:
                    log.warning("the board cannot listen for changes: %s", scrubbed(str(exc), self.url))
                self.connected, first = False, False
                with self._rounds:
                    self._rounds.notify_all()  # a poll does not wait for a connection that is not there
                self.stopping.wait(pause)
                pause = min(RETRY_MAX_S, pause * 2)
                continue
            if not first:
                log.warning("the board listens for changes again")
            first = False
            try:
                self._settled(conn)
                self._bump(None)  # notifications sent before (or while away) were never heard: catch every game up
                self.connected, pause = True, 0.1
                self._listen(conn)
            except Exception as exc:
                if not self.stopping.is_set():
                    log.warning("the board lost its connection for changes: %s", scrubbed(str(exc), self.url))
                self.connected = False
            finally:
                commits.listening(self._pid, None)
                try:
                    conn.close()
                except Exception:
                    pass

    def _listen(self, conn: Connection[Any]) -> None:
        # poll, not select: a board with a thousand streams open gives this connection a descriptor past select's
        # 1,024, where select fails ("filedescriptor out of range") and the board would reconnect in a loop.
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        asked = True
        while not self.stopping.is_set():
            if asked:  # a poll asked (or the connection was idle for IDLE_CHECK_S): one round trip
                self._round(conn)
            else:  # notifications came: no round trip (each would be a transaction of the database's)
                self._arrived(conn)
            ready = poller.poll(IDLE_CHECK_S * 1000)
            asked = not ready or any(fd == self._wake_r for fd, _event in ready)
            if ready and asked:
                self._drain()


__all__ = ["Listener"]
