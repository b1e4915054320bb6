"""How long finished games are kept (``uw-referee purge``, the hosted board): the pure decision of which games are
past their keep time. A game is finished when it has an outcome (its phase is over: someone won); an unfinished
game is never chosen, however old, and neither is a game whose last write is not a time this store wrote."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from referee.store_format import GameSummary

#: Days a hosted board keeps a finished game after its last action (``--keep``, ``UW_BOARD_KEEP_DAYS``).
KEEP_DAYS = 30.0
#: The phase of a game with an outcome (``Phase.OVER``), as the summaries keep it.
FINISHED = "over"


def finished(summary: GameSummary) -> bool:
    """Whether the game has an outcome (a winner)."""
    return summary.phase == FINISHED and summary.winner is not None


def expired(summaries: Iterable[GameSummary], now: datetime, keep_days: float) -> list[int]:
    """The ids of the finished games whose last write is more than ``keep_days`` days before ``now``, in order."""
    cutoff = now - timedelta(days=keep_days)
    chosen = []
    for summary in summaries:
        try:
            updated = datetime.fromisoformat(summary.updated_at)
        except ValueError:
            continue  # not a time the store wrote: kept
        if updated.tzinfo is None:
            updated = updated.replace(tzinfo=UTC)
        if finished(summary) and updated < cutoff:
            chosen.append(summary.id)
    return sorted(chosen)


def older_than(keep_days: float, now: datetime | None = None) -> Callable[[list[GameSummary]], list[int]]:
    """``expired`` with its time and keep time fixed: what ``Store.purge`` asks with."""
    moment = now if now is not None else datetime.now(UTC)
    return lambda summaries: expired(summaries, moment, keep_days)


__all__ = ["FINISHED", "KEEP_DAYS", "expired", "finished", "older_than"]
