"""Numbers an operator sets in the environment (``UW_PG_LOCK_TIMEOUT``, ``UW_BOARD_STREAMS``...): read in one
place, so that a malformed or out-of-range value falls back to the default with one warning line in the log,
never a traceback from a command or a board that will not start."""
from __future__ import annotations

import math
import os


def env_int(name: str, default: int, low: int = 0, high: int = 2**31 - 1) -> int:
    """The whole number in environment variable ``name``, from ``low`` to ``high``; else ``default``. (0 often
    means 'no limit': ``--max-per-address 0``, PostgreSQL's timeouts.)"""
    return int(_number(name, default, low, high, whole=True))


def env_float(name: str, default: float, low: float = 0.0, high: float = 10**9) -> float:
    """The number in environment variable ``name``, from ``low`` to ``high`` (a finite one); else ``default``."""
    return _number(name, default, low, high, whole=False)


def _number(name: str, default: float, low: float, high: float, whole: bool) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = math.nan
    if not low <= value <= high:  # (NaN, from a malformed value or 'nan', is never in range)
        import logging  # (only here: the store reads its settings on the quick path of ``uw-referee status``)

        kind = "a whole number" if whole else "a number"
        logging.getLogger("referee.settings").warning("%s=%r is not %s from %s to %s; using %s", name, text, kind, low, high, default)
        return default
    return value


__all__ = ["env_float", "env_int"]
