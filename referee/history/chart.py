"""A game as a picture drawn on the server: an SVG of every player's score after each turn (the target line drawn,
eliminations and departures marked, the winner's line thicker) over each player's pawns, with a title and a
description for screen readers, and the same numbers as an HTML table. No script, no charting library: a few
hundred lines of our own are simpler than bending one to a room-sized, translated, script-free picture.

Drawn for a TV across a room: a 1600x900 view box whose smallest text is 26 units (at 1920 pixels wide, about 30
pixels), lines 5 units wide, each player told apart by colour and by dash pattern (never by colour alone), and
each line named at its end.
"""
from __future__ import annotations

from html import escape

from dictionaries.i18n import _, ngettext
from dictionaries.rules import PAWNS
from referee.history.stats import GameFigures

WIDTH, HEIGHT = 1600, 900
LEFT, RIGHT = 130, 1240          # the plot's left and right edges; the names stand right of it
SCORE_TOP, SCORE_BOTTOM = 70, 545
PAWN_TOP, PAWN_BOTTOM = 655, 800
TEXT, SMALL = 38, 32
#: The most characters of a name written at the end of its line (the whole name is in the line's title).
LABEL = 11
#: Colours that stay apart for colour-blind readers (Okabe and Ito), light enough on the board's dark ground.
COLOURS = ("#E69F00", "#56B4E9", "#2FD3A0", "#F0E442", "#FF7F50", "#CC79A7", "#FFFFFF", "#B0B0B0")
DASHES = ("", "18 8", "4 8", "18 8 4 8", "30 10", "8 8", "2 6", "24 6 6 6")
GROUND, INK, GRID = "#111418", "#F2F2F2", "#3A4048"


def _nice(most: float, ticks: int) -> int:
    """A round step that divides 0..most into at most ``ticks`` steps."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000):
        if most / step <= ticks:
            return step
    return int(most // ticks) + 1


def _x(turn: int, turns: int) -> float:
    return LEFT + (RIGHT - LEFT) * (turn / max(turns, 1))


def _spread(wanted: list[tuple[float, int]], gap: float, low: float, high: float) -> dict[int, float]:
    """Label heights near the wanted ones, at least ``gap`` apart, within low..high (the ends' names)."""
    placed: dict[int, float] = {}
    last = low - gap
    for y, key in sorted(wanted):
        y = max(y, last + gap)
        placed[key] = y
        last = y
    overflow = last - high
    if overflow > 0:
        placed = {k: max(low, y - overflow) for k, y in placed.items()}
    return placed


def description(figures: GameFigures) -> str:
    """The picture in words, for a screen reader: who played, how many turns, the target, how it ended, who went
    out and when."""
    last = figures.points[-1]
    parts = [ngettext("Each player's score and pawns after each of {n} turn.",
                      "Each player's score and pawns after each of {n} turns.", figures.turns).format(n=figures.turns),
             _("The target is {target} points.").format(target=figures.target)]
    finals = ", ".join(f"{name} {score}" for name, score in zip(figures.players, last.scores, strict=True))
    parts.append(_("Final scores: {scores}.").format(scores=finals))
    if figures.winner is not None:
        parts.append(_("{winner} won.").format(winner=figures.winner))
    else:
        parts.append(_("The game is still being played."))
    for index, seat in figures.eliminations:
        parts.append(_("{player} lost the last pawn at turn {turn}.").format(
            player=figures.players[seat], turn=figures.points[index].turn))
    for index, seat in figures.departures:
        parts.append(_("{player} left the game at turn {turn}.").format(
            player=figures.players[seat], turn=figures.points[index].turn))
    return " ".join(parts)


def svg(figures: GameFigures, ident: str = "chart") -> str:
    """The chart as an inline ``<svg>`` element (``ident`` names its title and description for ``aria``)."""
    points, turns, players = figures.points, max(figures.turns, 1), figures.players
    top_score = max([figures.target, *(max(p.scores) for p in points)])
    step = _nice(top_score, 5)
    ceiling = -(-top_score // step) * step
    ceiling = max(ceiling, step)

    def y(score: float) -> float:
        return SCORE_BOTTOM - (SCORE_BOTTOM - SCORE_TOP) * (score / ceiling)

    def yp(pawns: float) -> float:
        return PAWN_BOTTOM - (PAWN_BOTTOM - PAWN_TOP) * (pawns / PAWNS)

    title = _("Game {id}: scores and pawns, turn by turn").format(id=figures.game)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="history-chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-labelledby="{ident}-title {ident}-desc" font-family="system-ui, sans-serif">',
           f'<title id="{ident}-title">{escape(title)}</title>',
           f'<desc id="{ident}-desc">{escape(description(figures))}</desc>',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{GROUND}"/>']
    # the grids and axes
    out.append(f'<g font-size="{SMALL}" fill="{INK}" stroke="none">')
    for tick in range(0, ceiling + 1, step):
        out.append(f'<line x1="{LEFT}" x2="{RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="{GRID}" '
                   f'stroke-width="2"/><text x="{LEFT - 14}" y="{y(tick) + 9:.1f}" text-anchor="end">{tick}</text>')
    for pawns in range(0, PAWNS + 1):
        out.append(f'<line x1="{LEFT}" x2="{RIGHT}" y1="{yp(pawns):.1f}" y2="{yp(pawns):.1f}" stroke="{GRID}" '
                   f'stroke-width="1"/>')
        if pawns in (0, PAWNS):
            out.append(f'<text x="{LEFT - 14}" y="{yp(pawns) + 11:.1f}" text-anchor="end">{pawns}</text>')
    turn_step = _nice(turns, 10)
    for tick in range(0, turns + 1, turn_step):
        out.append(f'<text x="{_x(tick, turns):.1f}" y="{PAWN_BOTTOM + 42}" text-anchor="middle">{tick}</text>')
    score, pawns_word, turn = escape(_("Score")), escape(_("Pawns")), escape(_("Turn"))
    out.append(f'<text x="{LEFT}" y="{SCORE_TOP - 22}" font-size="{TEXT}">{score}</text>')
    out.append(f'<text x="{LEFT}" y="{PAWN_TOP - 22}" font-size="{TEXT}">{pawns_word}</text>')
    out.append(f'<text x="{(LEFT + RIGHT) / 2:.0f}" y="{HEIGHT - 14}" text-anchor="middle" font-size="{TEXT}">'
               f'{turn}</text>')
    out.append("</g>")
    # the target line
    target = escape(ngettext("target: {n} point", "target: {n} points", figures.target).format(n=figures.target))
    out.append(f'<g><line x1="{LEFT}" x2="{RIGHT}" y1="{y(figures.target):.1f}" y2="{y(figures.target):.1f}" '
               f'stroke="{INK}" stroke-width="3" stroke-dasharray="14 10"/>'
               f'<text x="{RIGHT}" y="{y(figures.target) - 12:.1f}" text-anchor="end" font-size="{SMALL}" '
               f'fill="{INK}">{target}</text></g>')
    # each player's lines, the winner's last so that it lies on top
    order = sorted(range(len(players)), key=lambda s: players[s] == figures.winner)
    ends = _spread([(y(points[-1].scores[s]), s) for s in range(len(players))], TEXT + 4, SCORE_TOP, SCORE_BOTTOM)
    for seat in order:
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        width = 9 if players[seat] == figures.winner else 5
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        line = " ".join(f"{_x(p.turn, turns):.1f},{y(p.scores[seat]):.1f}" for p in points)
        pawn_points = []
        for p in points:  # the pawns while the player is in the game
            pawn_points.append(f"{_x(p.turn, turns):.1f},{yp(p.pawns[seat]) - seat * 3:.1f}")
            if p.out[seat]:
                break
        name = escape(players[seat])
        out.append(f'<g class="player" stroke="{colour}" fill="none" stroke-width="{width}"{dashed} '
                   f'stroke-linejoin="round"><title>{name}</title>'
                   f'<polyline points="{line}"/><polyline points="{" ".join(pawn_points)}" stroke-width="4"/></g>')
        short = players[seat] if len(players[seat]) <= LABEL else players[seat][:LABEL - 1] + "…"
        label = escape(short) + (" ★" if players[seat] == figures.winner else "")
        out.append(f'<text x="{RIGHT + 16}" y="{ends[seat] + 13:.1f}" font-size="{TEXT}" fill="{colour}">'
                   f'{label} {points[-1].scores[seat]}</text>')
    # the marks: a cross where a player lost the last pawn, a ring where one left
    for marks, shape in ((figures.eliminations, "cross"), (figures.departures, "ring")):
        for index, seat in marks:
            p = points[index]
            cx, cy = _x(p.turn, turns), y(p.scores[seat])
            said = (_("{player} lost the last pawn at turn {turn}") if shape == "cross"
                    else _("{player} left the game at turn {turn}")).format(player=players[seat], turn=p.turn)
            colour = COLOURS[seat % len(COLOURS)]
            if shape == "cross":
                mark = (f'<path d="M{cx - 16:.1f},{cy - 16:.1f} l32,32 m0,-32 l-32,32" stroke="{GROUND}" '
                        f'stroke-width="12"/><path d="M{cx - 16:.1f},{cy - 16:.1f} l32,32 m0,-32 l-32,32" '
                        f'stroke="{colour}" stroke-width="6"/>')
            else:
                mark = (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="15" fill="{GROUND}" stroke="{colour}" '
                        f'stroke-width="6"/>')
            out.append(f'<g class="mark {shape}"><title>{escape(said)}</title>{mark}</g>')
    # the key to the marks
    key = [(_("out of pawns"), "cross")] if figures.eliminations else []
    key += [(_("left the game"), "ring")] if figures.departures else []
    x: float = RIGHT - 10
    for words, shape in reversed(key):
        out.append(f'<text x="{x}" y="{PAWN_TOP - 22}" text-anchor="end" font-size="{SMALL}" fill="{INK}">'
                   f'{"✕" if shape == "cross" else "○"} {escape(words)}</text>')
        x -= 40 + SMALL * 0.55 * len(words)
    out.append("</svg>")
    return "".join(out)


def table(figures: GameFigures) -> str:
    """The numbers behind the chart: one row per turn (who played, what), each player's score and pawns."""
    head = "".join(f'<th scope="col">{escape(name)}</th>' for name in figures.players)
    rows = []
    for p in figures.points:
        who = escape(p.player or "")
        what = escape(p.word) if p.word else (_("discard") if p.player else "")
        cells = "".join(
            "<td>" + escape(ngettext("{score} ({pawns} pawn)", "{score} ({pawns} pawns)", p.pawns[s]).format(
                score=p.scores[s], pawns=p.pawns[s])) + (" ✕" if p.out[s] else "") + "</td>"
            for s in range(len(figures.players)))
        rows.append(f'<tr><th scope="row">{p.turn}</th><td>{who}</td><td lang="en">{what}</td>{cells}</tr>')
    caption = escape(_("Score (pawns) after each turn; ✕: out of the game"))
    turn, player, word = escape(_("Turn")), escape(_("Player")), escape(_("Word"))
    return (f'<table class="history-numbers"><caption>{caption}</caption><thead><tr>'
            f'<th scope="col">{turn}</th><th scope="col">{player}</th>'
            f'<th scope="col">{word}</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


__all__ = ["description", "svg", "table"]
