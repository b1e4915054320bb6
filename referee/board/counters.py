"""Hits per key in sliding windows, kept by one board process for its rate limits (``referee.board.seats``), in a
bounded memory: at most ``most_keys`` keys, the least recently counted forgotten first. Keys come from clients
(an address, a token's digest), so a client minting new ones costs each hit O(1) and can only push out the
counters nobody has counted for longest; the limits replicas must share are also counted in the database."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque


class Counters:
    """Each key's hits within its window, the least recently counted keys forgotten past ``most_keys``."""

    def __init__(self, most_keys: int) -> None:
        self.most_keys = most_keys
        self.keys: OrderedDict[str, deque[float]] = OrderedDict()
        self.lock = threading.Lock()

    def count(self, key: str, most: int, seconds: float) -> bool:
        """Count one hit of ``key``; True (not counted) when it already has ``most`` within ``seconds``."""
        now = time.monotonic()
        with self.lock:
            hits = self.keys.get(key)
            if hits is None:
                hits = self.keys[key] = deque()
                while len(self.keys) > self.most_keys:
                    self.keys.popitem(last=False)
            else:
                self.keys.move_to_end(key)
            while hits and hits[0] <= now - seconds:
                hits.popleft()
            if len(hits) >= most:
                return True
            hits.append(now)
            return False

    def take_back(self, key: str) -> None:
        """Uncount ``key``'s latest hit (a try that turned out not to count)."""
        with self.lock:
            hits = self.keys.get(key)
            if hits:
                hits.pop()

    def over(self, key: str, most: int, seconds: float) -> bool:
        """True when ``key`` already has ``most`` hits within ``seconds`` (counts nothing)."""
        now = time.monotonic()
        with self.lock:
            return sum(1 for t in self.keys.get(key, ()) if t > now - seconds) >= most


__all__ = ["Counters"]
