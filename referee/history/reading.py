"""The figures of the games in a store (``referee.store.Store`` or its PostgreSQL twin), through its public reads:
each game's events as stored (``stored``: read and checked against their chain, not replayed), then
``referee.history.stats`` replays them once."""
from __future__ import annotations

from referee.history.kept import Kept, read_records, summary_key
from referee.history.stats import GameFigures, PlayerFigures, game_figures, table_figures

TYPE_CHECKING = False  # typing costs a tenth of a quick stats: its names are for the checkers
if TYPE_CHECKING:
    from typing import Any


def figures_of(store: Any, game_id: int | None) -> tuple[GameFigures, list[Any], list[str]]:
    """One game's figures (``game_id`` None: the most recently active game), with its events and their times."""
    gid, _game, history = store.stored(game_id)
    events = [event for _at, event in history]
    return game_figures(gid, events), events, [at for at, _event in history]


def all_figures(store: Any, only: set[int] | None = None, kept: Kept | None = None) -> list[GameFigures]:
    """Every game's figures, oldest game first (``only``: just the games with those numbers). With ``kept``, the
    figures of a game not written since they were kept are read from there, and the others kept afresh."""
    from referee.store import NoGame

    summaries = sorted((s for s in store.games() if only is None or s.id in only), key=lambda s: s.id)
    known = kept.load() if kept is not None else {}
    keys = [summary_key(summary) for summary in summaries]
    current = [known[s.id][1] if s.id in known and known[s.id][0] == key else None
               for s, key in zip(summaries, keys, strict=True)]
    decoded = iter(read_records([record for record in current if record is not None]))
    found, fresh = [], []
    for summary, key, record in zip(summaries, keys, current, strict=True):
        figures = next(decoded) if record is not None else None
        if figures is None:
            try:
                figures = figures_of(store, summary.id)[0]
            except NoGame:  # deleted since the list was read (a purge): not a game any more
                continue
            fresh.append((summary.id, key, figures))
        found.append(figures)
    if kept is not None and only is None:
        kept.save(fresh, sorted(set(known) - {s.id for s in summaries}))
    return found


def read_table(store: Any, game_id: int | None) -> tuple[list[GameFigures], list[PlayerFigures]]:
    """What ``stats`` shows: the figures of one game (``game_id``) or of every game (those not written since
    kept in ``Kept``), and every player's over them."""
    if game_id is not None:
        games = [figures_of(store, game_id)[0]]
    else:
        kept = Kept(store.path)
        try:
            games = all_figures(store, kept=kept)
        finally:
            kept.close()
    return games, table_figures(games)


__all__ = ["all_figures", "figures_of", "read_table"]
