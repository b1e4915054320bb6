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
