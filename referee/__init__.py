"""The referee for Unspeakable Words: a pure rules engine, an event store, the game flow as a library,
and its faces (the ``uw-referee`` commands, the ``table`` loop, the live board)."""
from __future__ import annotations

from dictionaries import __version__

__all__ = ["__version__"]
