"""The referee for Unspeakable Words: a pure rules engine, an event store, and the ``uw-referee`` CLI."""
from __future__ import annotations

from dictionaries import __version__

__all__ = ["__version__"]
