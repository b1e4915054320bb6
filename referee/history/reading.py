"""The figures of the games in a store (``referee.store.Store`` or its PostgreSQL twin), through its public reads:
each game's events as stored (``stored``: read and checked against their chain, not replayed), then
``referee.history.stats`` replays them once."""
from __future__ import annotations

from typing import Any

from referee.history.stats import GameFigures, game_figures


def figures_of(store: Any, game_id: int | None) -> tuple[GameFigures, list[Any], list[str]]:
    """One game's figures (``game_id`` None: the most recently active game), with its events and their times."""
    gid, _game, history = store.stored(game_id)
    events = [event for _at, event in history]
    return game_figures(gid, events), events, [at for at, _event in history]


def all_figures(store: Any, only: set[int] | None = None) -> list[GameFigures]:
    """Every game's figures, oldest game first (``only``: just the games with those numbers)."""
    from referee.store import NoGame

    ids = sorted(summary.id for summary in store.games() if only is None or summary.id in only)
    found = []
    for gid in ids:
        try:
            found.append(figures_of(store, gid)[0])
        except NoGame:  # deleted since the list was read (a purge): not a game any more
            continue
    return found


__all__ = ["all_figures", "figures_of"]
