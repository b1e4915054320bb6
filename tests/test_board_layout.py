"""The board's layout for the room, in headless Chromium: at 1920x1080 with 3, 6 and 8 players the
banner, every player card, the last actions and the words used lie inside the first 1080 px, scores
are at least 64 px, a score never parts from its target, and no name breaks inside a word; at 390x844
the page keeps one column. In English and Spanish. The committed screenshots (docs/board-*.png, made
by docs/board_screenshots.py from the same games) are checked to be there at those sizes."""
from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import LAYOUT_PLAYERS, Board, console_errors, emulate_phone, emulate_screen, layout_game

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: What the page measures of itself: each box's bottom, the scores' size, how each name's words sit.
MEASURE = """
const box = e => e.getBoundingClientRect();
const lines = node => {  // the distinct lines a text node's glyphs lie on
  const range = document.createRange(); range.selectNodeContents(node);
  return new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size;
};
const cards = Array.from(document.querySelectorAll('.player'));
return {
  banner: box(document.getElementById('waiting')).bottom,
  cards: cards.map(c => box(c).bottom),
  lefts: cards.map(c => Math.round(box(c).left)),
  recent: box(document.querySelector('.recent-panel')).bottom,
  words: box(document.querySelector('.words-panel')).bottom,
  points: Array.from(document.querySelectorAll('.points'), p => parseFloat(getComputedStyle(p).fontSize)),
  scores: Array.from(document.querySelectorAll('.score'), s => {
    const p = box(s.querySelector('.points')), o = box(s.querySelector('.of'));
    return {oneLine: o.top < p.bottom && o.bottom > p.top, clipped: s.scrollWidth > s.clientWidth + 1};
  }),
  names: cards.map(c => {
    const name = c.querySelector('.name');
    return {title: name.title, words: Array.from(name.querySelectorAll('.w'), w => ({
      text: w.textContent, lines: lines(w.firstChild), cut: w.scrollWidth > w.clientWidth + 1}))};
  }),
  width: document.documentElement.scrollWidth,
};
"""


@pytest.fixture(scope="module")
def boards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, Board]]:
    """One board per game of LAYOUT_PLAYERS, served by the real command."""
    tmp = tmp_path_factory.mktemp("layout")
    served: dict[int, Board] = {}
    try:
        for count, players in LAYOUT_PLAYERS.items():
            db = tmp / f"games-{count}.sqlite3"
            layout_game(db, players)
            served[count] = Board(db)
        yield served
    finally:
        for board in served.values():
            board.stop()


def measure(driver: Any, url: str) -> dict[str, Any]:
    driver.get(url)
    deadline = time.monotonic() + 10
    while driver.find_element("id", "live").get_attribute("data-state") != "live":
        assert time.monotonic() < deadline, "the page never went live"
        time.sleep(0.05)
    found: dict[str, Any] = driver.execute_script(MEASURE)
    return found


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("count", sorted(LAYOUT_PLAYERS))
def test_a_tv_shows_the_whole_game_above_the_fold(browser: Any, boards: dict[int, Board], count: int,
                                                 lang: str) -> None:
    emulate_screen(browser, 1920, 1080)
    console_errors(browser)
    m = measure(browser, f"{boards[count].url}/?lang={lang}")
    assert len(m["cards"]) == count
    for what, bottom in [("banner", m["banner"]), ("last actions", m["recent"]), ("words used", m["words"]),
                         *((f"card {i + 1}", b) for i, b in enumerate(m["cards"]))]:
        assert bottom <= 1080, f"{what} ends at {bottom:.0f} px, below the fold"
    assert min(m["points"]) >= 64, f"scores of {m['points']} px"
    assert all(s["oneLine"] and not s["clipped"] for s in m["scores"]), m["scores"]
    for name, player in zip(m["names"], LAYOUT_PLAYERS[count], strict=True):
        assert name["title"] == player and [w["text"] for w in name["words"]] == player.split()
        for word in name["words"]:
            assert word["lines"] == 1, f"{word['text']!r} of {player!r} breaks inside the word"
    assert m["width"] <= 1920 and console_errors(browser) == []


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_phone_keeps_one_column(browser: Any, boards: dict[int, Board], lang: str) -> None:
    emulate_phone(browser, 390, 844)
    m = measure(browser, f"{boards[8].url}/?lang={lang}")
    assert len(set(m["lefts"])) == 1, f"cards side by side at {m['lefts']}"
    assert m["width"] <= 390
    for name in m["names"]:
        assert all(w["lines"] == 1 for w in name["words"]), name


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.parametrize("lang", ["", "-es"])
def test_the_screenshots_are_committed(lang: str) -> None:
    for count in LAYOUT_PLAYERS:
        assert png_size(ROOT / "docs" / f"board-tv-{count}{lang}.png") == (1920, 1080)
    width, height = png_size(ROOT / "docs" / f"board-phone{lang}.png")
    assert width == 390 * 2 and height >= 844 * 2  # the whole page at the phone's device pixel ratio


# -- the TV of a board that lets the phones play (--players) ------------------------------------------

#: 20 actions: every game of PLAYERS_COUNTS has played this many words (target 1000: nobody wins).
TWENTY = ("look champ taps zebra quilt columns river orange mouse dragon table chair green house water light stone "
          "bread cloud plant").split()
PLAYERS_COUNTS = (3, 4, 5, 6, 7, 8)
#: A long address (a proxy's) that must wrap in the join box: only after a slash.
PUBLIC_URL = "http://192.168.100.200:65535/a-rather-long-proxy-path/unspeakable-words/"

#: Each box the TV shows, whether it is shown, and where the join link's lines break.
BOXES = """
const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right,
                                                               bottom: r.bottom}; };
const shown = e => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const named = [['banner', document.getElementById('waiting')], ['last actions', document.querySelector('.recent-panel')],
  ['words used', document.querySelector('.words-panel')], ['the table', document.querySelector('.table-panel')],
  ['join box', document.querySelector('.join')],
  ...Array.from(document.querySelectorAll('.player'), (c, i) => ['card ' + (i + 1), c])];
const recent = document.querySelector('.recent-panel');
const table = document.querySelector('.table-panel');
const url = document.getElementById('join-url');
const chars = [];
const walker = document.createTreeWalker(url, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  for (let i = 0; i < node.length; i++) {
    const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
    const rects = range.getClientRects();
    if (rects.length) { chars.push([node.data[i], Math.round(rects[0].top)]); }
  }
}
return {
  boxes: named.filter(([, e]) => shown(e)).map(([name, e]) => [name, box(e)]),
  tableShown: shown(table), tableWhole: table.scrollHeight <= table.clientHeight + 1,
  tableDisplayed: getComputedStyle(table).display !== 'none',
  entries: Array.from(recent.querySelectorAll('li'), li => li.getBoundingClientRect().bottom <= box(recent).bottom + 1),
  url: chars.map(c => c[0]).join(''),
  breaksAfter: chars.slice(1).flatMap((c, i) => c[1] > chars[i][1] ? [chars[i][0]] : []),
  urlOverflows: url.scrollWidth > url.clientWidth + 1,
  points: Array.from(document.querySelectorAll('.points'), p => parseFloat(getComputedStyle(p).fontSize)),
};
"""


@pytest.fixture(scope="module")
def player_boards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, Board]]:
    """A --players board per count of players, each game 20 actions in, its join link a long public address."""
    from cli_support import run

    tmp = tmp_path_factory.mktemp("players-layout")
    served: dict[int, Board] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("UW_BOARD_PUBLIC_URL", PUBLIC_URL)
        try:
            for count in PLAYERS_COUNTS:
                db = tmp / f"games-{count}.sqlite3"
                players = LAYOUT_PLAYERS[8][:count]
                deck = ["--deck", "double"] if count > 6 else []
                run(db, "new", *players, "--first", players[0], "--target", "1000", "--no-card-accounting", *deck,
                    check=True)
                for word in TWENTY:
                    run(db, "play", word, "--roll", "20", check=True)
                served[count] = Board(db, "--players")
            yield served
        finally:
            for board in served.values():
                board.stop()


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share (0 when they only touch)."""
    width = min(a["right"], b["right"]) - max(a["left"], b["left"])
    height = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, width) * max(0.0, height)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("height", [1080, 937])
@pytest.mark.parametrize("count", PLAYERS_COUNTS)
def test_a_tv_with_the_join_box_fits_and_nothing_overlaps(browser: Any, player_boards: dict[int, Board], count: int,
                                                         height: int, lang: str) -> None:
    emulate_screen(browser, 1920, height)  # 937: a TV browser that keeps its own bar on a 1080 screen
    console_errors(browser)
    measure(browser, f"{player_boards[count].url}/?lang={lang}")
    m = browser.execute_script(BOXES)
    boxes = dict(m["boxes"])
    assert "join box" in boxes and len([n for n in boxes if n.startswith("card ")]) == count
    for name, b in boxes.items():
        assert b["left"] >= 0 and b["top"] >= 0 and b["right"] <= 1920 and b["bottom"] <= height, (
            f"{name} lies outside the {height} px screen: {b}")
    names = sorted(boxes)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert overlap(boxes[first], boxes[second]) == 0, f"{first} and {second} overlap: {boxes}"
    # The table's facts are shown whole, or left out on purpose: always with 7 or 8 players (the cards need the room).
    if count > 6:
        assert not m["tableDisplayed"]
    else:
        assert not m["tableShown"] or m["tableWhole"], "the table's facts are shown cut"
    assert sum(m["entries"][:3]) == 3, f"the newest last actions are not all in view: {m['entries']}"
    assert m["url"] == f"{PUBLIC_URL}games/1/join"
    assert m["breaksAfter"] and set(m["breaksAfter"]) == {"/"}, f"the link breaks after {m['breaksAfter']}"
    assert not m["urlOverflows"]
    assert min(m["points"]) >= (64 if height == 1080 else 56), m["points"]
    assert console_errors(browser) == []
