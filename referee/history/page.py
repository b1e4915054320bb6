"""A game's history as HTML: the section the board shows when a game is over (who won and how, the game's best word,
the chart and its numbers), and the shareable page ``uw-referee export --html`` writes (that section, every
player's figures and the log, in one file with no outside assets). In the language in use; no script."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from dictionaries.i18n import _, language, ngettext, say
from referee.history.chart import svg, table
from referee.history.report import best_of_all
from referee.history.stats import GameFigures, PlayerFigures, Word

TYPE_CHECKING = False  # the engine is loaded for the log only: ``stats`` says its words without it
if TYPE_CHECKING:
    from referee.engine import Event


def ending_sentence(figures: GameFigures) -> str:
    """How the game ended, or that it goes on."""
    if figures.winner is None:
        return ngettext("Still being played, after {n} turn.", "Still being played, after {n} turns.",
                        figures.turns).format(n=figures.turns)
    points = figures.points[-1].scores[figures.players.index(figures.winner)]
    if figures.ending == "last_standing":
        text = ngettext("{winner} won with {points} points as the last player with pawns, after {n} turn.",
                        "{winner} won with {points} points as the last player with pawns, after {n} turns.",
                        figures.turns)
    elif figures.ending == "last_words":
        text = ngettext("{winner} won with {points} points, the highest score after Last Words, after {n} turn.",
                        "{winner} won with {points} points, the highest score after Last Words, after {n} turns.",
                        figures.turns)
    else:
        text = ngettext("{winner} won with {points} points, reaching the target, after {n} turn.",
                        "{winner} won with {points} points, reaching the target, after {n} turns.", figures.turns)
    return text.format(winner=figures.winner, points=points, n=figures.turns)


def best_sentence(word: Word | None) -> str:
    """The best word in a sentence (the word itself in English)."""
    if word is None:
        return _("No word scored yet.")
    return escape(ngettext("Best word: {word}, {n} point, by {player}.", "Best word: {word}, {n} points, by {player}.",
                           word.scored)).format(word=f'<span lang="en" class="word">{escape(word.word)}</span>',
                                        n=word.scored, player=escape(word.player))


def section(figures: GameFigures, stylesheet: str | None = None, records: str | None = None) -> str:
    """The history of one game as an HTML fragment: a heading, how it ended, its best word, the chart and a
    disclosure with the chart's numbers (``stylesheet``: a link to the board's own CSS for it; ``records``: a link
    to the table's records)."""
    ident = f"history-{figures.game}"
    link = f'<link rel="stylesheet" href="{escape(stylesheet)}">' if stylesheet else ""
    label = escape(_("The table's records"))
    more = f'<p class="history-records"><a href="{escape(records)}">{label}</a></p>' if records else ""
    heading, numbers = escape(_("How the game went")), escape(_("The numbers behind the chart"))
    return (f'{link}<section class="history" aria-labelledby="{ident}-heading">'
            f'<h2 id="{ident}-heading">{heading}</h2>'
            f'<div class="history-facts"><p class="history-ending">{escape(ending_sentence(figures))}</p>'
            f'<p class="history-best">{best_sentence(figures.best)}</p></div>'
            f'<figure class="history-figure">{svg(figures, ident)}</figure>'
            f'<details class="history-details"><summary>{numbers}</summary>'
            f'{table(figures)}</details>{more}</section>')


def _rate(figures: PlayerFigures) -> str:
    if not figures.checks:
        return "–"
    return _("{passed} of {rolled} (expected {expected:.2f})").format(
        passed=figures.passed, rolled=figures.checks, expected=figures.expected)


def figures_table(figures: GameFigures) -> str:
    """Every player's figures in the game, one row each."""
    head = [_("Player"), _("Score"), _("Pawns"), _("Words"), _("Points per word"), _("Best word"),
            _("Longest word"), _("Sanity checks passed"), _("Pawns lost"), _("Pawns regained")]
    rows = []
    last = figures.points[-1]
    for seat, p in enumerate(figures.seats):
        best = f'<span lang="en">{escape(p.best.word)}</span> ({p.best.scored})' if p.best else "–"
        longest = f'<span lang="en">{escape(p.longest.word)}</span>' if p.longest else "–"
        average = f"{p.average:.1f}" if p.average is not None else "–"
        cells = [str(last.scores[seat]), str(last.pawns[seat]), str(p.words), average, best, longest,
                 escape(_rate(p)), str(p.pawns_lost), str(p.pawns_regained)]
        rows.append(f'<tr><th scope="row">{escape(p.name)}</th>' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    heads = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    caption = escape(_("Each player in this game"))
    return (f'<table class="figures"><caption>{caption}</caption>'
            f'<thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def log_list(events: Sequence[Event], stamps: Sequence[str]) -> str:
    """The game's log as ``uw-referee log`` tells it: each action numbered, with its time and what it did."""
    from referee.engine import Game, action_starts

    told = Game.told(list(events))
    starts = set(action_starts(list(events)))
    items, number = [], 0
    for seq in range(1, len(events)):
        if seq in starts:
            number += 1
        words = " ".join(say(note) for note in told[seq])
        if not words:
            continue
        mark = str(number) if seq in starts else ""
        items.append(f'<li><span class="n">{mark}</span> <time datetime="{escape(stamps[seq])}">'
                     f'{escape(stamps[seq][:19].replace("T", " "))}</time> {escape(words)}</li>')
    return f'<ul class="log">{"".join(items)}</ul>'


def records_title(game: int) -> str:
    return _("Records of game {game}'s table").format(game=game)


def _word_cell(word: Word | None) -> str:
    if word is None:
        return "–"
    return (f'<span lang="en">{escape(word.word)}</span> '
            + escape(ngettext("({n} point, game {game})", "({n} points, game {game})", word.scored).format(
                n=word.scored, game=word.game)))


def _ending_cell(g: GameFigures) -> str:
    if g.winner is None:
        return _("in play")
    words = {"target": _("reached the target"), "last_standing": _("last player with pawns"),
             "last_words": _("highest score after Last Words")}
    return _("{winner}: {how}").format(winner=g.winner, how=words.get(g.ending or "", g.ending or ""))


def records_section(games: Sequence[GameFigures], players: Sequence[PlayerFigures],
                    stylesheet: str | None = None) -> str:
    """The records over those games: a line of totals and the best word of all, a row per player (names matched
    whatever their case), a row per game."""
    from referee.history.stats import best_of

    link = f'<link rel="stylesheet" href="{escape(stylesheet)}">' if stylesheet else ""
    heading = escape(_("Records"))
    if not games:
        nothing = escape(_("No games yet."))
        return f'{link}<section class="records"><h2>{heading}</h2><p>{nothing}</p></section>'
    over = sum(1 for g in games if g.over)
    best = best_of(games)
    totals = ngettext("{n} game: {over} over, {in_play} in play.", "{n} games: {over} over, {in_play} in play.",
                      len(games)).format(n=len(games), over=over, in_play=len(games) - over)
    head = [_("Player"), _("Games"), _("Won"), _("Lost"), _("In play"), _("Best word"), _("Longest word"),
            _("Points per word"), _("Sanity checks passed"), _("Pawns lost"), _("Pawns regained"), _("Eliminated")]
    rows = []
    for p in players:
        cells = [str(p.games), str(p.won), str(p.lost), str(p.in_play), _word_cell(p.best), _word_cell(p.longest),
                 f"{p.average:.1f}" if p.average is not None else "–", escape(_rate(p)), str(p.pawns_lost),
                 str(p.pawns_regained), str(p.eliminated)]
        rows.append(f'<tr><th scope="row">{escape(p.name)}</th>' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    game_head = [_("Game"), _("Players"), _("Turns"), _("Won by"), _("Best word")]
    game_rows = []
    for g in reversed(games):
        game_rows.append(f'<tr><th scope="row">{g.game}</th><td>{escape(", ".join(g.players))}</td>'
                         f'<td>{g.turns}</td><td>{escape(_ending_cell(g))}</td><td>{_word_cell(g.best)}</td></tr>')
    heads = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    game_heads = "".join(f'<th scope="col">{escape(h)}</th>' for h in game_head)
    best_line = f'<p class="records-best">{escape(best_of_all(best))}</p>' if best else ""
    by_player, by_game = escape(_("Each player, most games won first")), escape(_("Each game, the latest first"))
    return (f'{link}<section class="records" aria-labelledby="records-heading">'
            f'<h2 id="records-heading">{heading}</h2><p>{escape(totals)}</p>{best_line}'
            f'<div class="scroll"><table class="records-players"><caption>{by_player}'
            f'</caption><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<div class="scroll"><table class="records-games"><caption>{by_game}'
            f'</caption><thead><tr>{game_heads}</tr></thead><tbody>{"".join(game_rows)}</tbody></table></div>'
            f'</section>')


#: The shareable page's own style: the board's dark colours, readable on a phone and a laptop, printable.
STYLE = """
body{margin:0;padding:1rem 1.5rem 3rem;background:#111418;color:#f2f2f2;font:1.1rem/1.5 system-ui,sans-serif}
h1{font-size:2rem;margin:.2rem 0}h2{font-size:1.4rem;margin:1.6rem 0 .4rem;color:#f5c542}
.history-facts p{font-size:1.3rem;margin:.3rem 0}.word{font-weight:700}
svg{display:block;width:100%;max-width:1200px;height:auto}
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.25rem .6rem;border-bottom:1px solid #3a4048;text-align:left}
caption{text-align:left;color:#bbb;padding:.3rem 0}.scroll{overflow-x:auto}
.log{list-style:none;padding-left:0}.log time{color:#bbb;font-size:.9rem}.log .n{display:inline-block;min-width:2.5ch;color:#f5c542}
summary{cursor:pointer;color:#f5c542}
@media print{body{background:#fff;color:#000}h2,.log .n,summary{color:#000}}
"""


def document(figures: GameFigures, events: Sequence[Event], stamps: Sequence[str]) -> str:
    """The shareable page of a game: one HTML file, its style inside, no script and no outside asset."""
    title = _("Game {id}: {players}").format(id=figures.game, players=", ".join(figures.players))
    scores, log = escape(_("Scores")), escape(_("The log"))
    return ("<!doctype html>\n"
            f'<html lang="{escape(language())}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" '
            f'content="dark light"><title>{escape(title)} · Unspeakable Words</title><style>{STYLE}</style></head>'
            f'<body><main><h1>{escape(title)}</h1>{section(figures)}'
            f'<h2>{scores}</h2><div class="scroll">{figures_table(figures)}</div>'
            f'<h2>{log}</h2>{log_list(events, stamps)}</main></body></html>\n')


def export_html(store: object, game_id: int | None) -> str:
    """``uw-referee export --html``: the shareable page of the game (``game_id`` None: the most recently active)."""
    from referee.history.reading import figures_of

    figures, events, stamps = figures_of(store, game_id)
    return document(figures, events, stamps)


__all__ = ["best_sentence", "document", "ending_sentence", "export_html", "figures_table", "log_list", "records_section",
           "records_title", "section"]
