"""The TV when a game ends, in headless Chromium at 1920x1080, in English and Spanish: the chart lies whole inside the
first screen (no scrolling to see it), is wide enough to read across a room (its smallest text at least 20 px
high), the winner and the game's best word beside it; the page scrolls not sideways and logs no error. The
committed screenshots (docs/history-tv*.png, made by docs/history_screenshots.py from the same game) are there."""
from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import Board, chromium, console_errors, emulate_phone, emulate_screen
from history_games import showcase_game

from dictionaries.dictionary import Dictionary

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

MEASURE = """
const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, left: r.left, bottom: r.bottom,
                                                                 right: r.right, width: r.width, height: r.height}; };
const svg = document.querySelector('.history-figure svg');
return {
  chart: box(svg),
  texts: Array.from(svg.querySelectorAll('text'), t => box(t).height),
  ending: box(document.querySelector('.history-ending')),
  best: box(document.querySelector('.history-best')),
  bestText: document.querySelector('.history-best').textContent,
  title: svg.querySelector('title').textContent,
  labelled: svg.getAttribute('aria-labelledby'),
  width: document.documentElement.scrollWidth,
  scrollY: window.scrollY,
};
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, dictionary: Dictionary) -> Iterator[Board]:
    db = tmp_path_factory.mktemp("history") / "games.sqlite3"
    showcase_game(db, dictionary)
    with Board(db) as served:
        yield served


@pytest.mark.parametrize(("lang", "best"), [("en", "Best word: RENAME"), ("es", "Mejor palabra: RENAME")])
def test_the_chart_fits_the_tv_at_1920x1080(board: Board, lang: str, best: str) -> None:
    with chromium() as driver:
        emulate_screen(driver, 1920, 1080)
        driver.get(f"{board.url}/?lang={lang}")
        time.sleep(1.0)  # the event stream connects and may redraw the board
        m: dict[str, Any] = driver.execute_script(MEASURE)
        chart = m["chart"]
        assert m["scrollY"] == 0
        assert chart["top"] >= 0 and chart["left"] >= 0, chart
        assert chart["bottom"] <= 1080 and chart["right"] <= 1920, chart  # whole on the first screen
        assert chart["width"] >= 1000 and chart["height"] >= 560, chart   # most of the screen
        assert min(m["texts"]) >= 20, sorted(m["texts"])[:3]              # read from across the room
        for side in (m["ending"], m["best"]):
            assert side["bottom"] <= 1080 and side["right"] <= 1920 and side["left"] >= chart["right"], side
        assert best in m["bestText"] and m["labelled"].endswith("-title history-1-desc")
        assert m["width"] <= 1920
        assert console_errors(driver) == []


def test_on_a_phone_the_chart_scrolls_in_its_own_box(board: Board) -> None:
    """At 390 px the page keeps its width; the chart keeps a width its words can be read at (16 px or more) and
    scrolls sideways inside its figure."""
    with chromium() as driver:
        emulate_phone(driver, 390, 844)
        driver.get(f"{board.url}/games/1")
        time.sleep(1.0)
        m: dict[str, Any] = driver.execute_script(MEASURE)
        assert m["width"] <= 390
        assert m["chart"]["width"] >= 900 and min(m["texts"]) >= 16, (m["chart"], sorted(m["texts"])[:3])
        assert driver.execute_script("return getComputedStyle(document.querySelector('.history-figure')).overflowX")\
            == "auto"


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.parametrize("suffix", ["", "-es"])
def test_the_screenshots_are_committed(suffix: str) -> None:
    assert png_size(ROOT / "docs" / f"history-tv{suffix}.png") == (1920, 1080)
