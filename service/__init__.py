"""Unspeakable Words: the word logic (deck, dictionary, verdicts, rack search) and the HTTP service.

The word logic here imports neither Flask nor Click, so the referee's CLI stays light.
"""
from __future__ import annotations

__version__ = "0.1.0"
