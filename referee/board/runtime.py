"""What the board app keeps for its process, and the thread budget its server and streams share."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from referee.board.source import Watcher

#: gunicorn threads of the board's one worker: every open page holds one for its event stream.
THREADS = 64
#: Threads kept free for pages, the judge and the JSON view: streams beyond the rest get a 503
#: and the page retries (it still shows the game; it updates once a stream is free).
SPARE_THREADS = 8


@dataclass
class Runtime:
    """What the app keeps for its process: the change watcher and the open streams' budget."""

    watcher: Watcher
    streams: threading.BoundedSemaphore
    dictionary: Any = field(default=None)
    #: The last board each stream target rendered, by (game, language) and watcher version: ten pages
    #: of one game in one language cost one render per commit, not ten.
    renders: dict[tuple[int | None, str], tuple[int, dict[str, str]]] = field(default_factory=dict)
    render_lock: threading.Lock = field(default_factory=threading.Lock)


def runtime(app: Flask) -> Runtime:
    rt: Runtime = app.extensions["board"]
    return rt
