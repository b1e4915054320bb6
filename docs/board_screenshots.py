"""Screenshots of the board and the judge page, at TV and at phone size, for the README.

It plays a short game with the real CLI in a throw-away database, serves it with ``uw-referee board``
and photographs the pages in Debian's headless Chromium (``bash tests/setup_browser.sh`` installs it):

    .venv/bin/python docs/board_screenshots.py      # writes docs/board-tv.png, board-phone.png, judge-*.png
"""
from __future__ import annotations

import base64
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from board_support import Board, chromium, emulate_phone, emulate_screen, uw  # noqa: E402

GAME = [
    ("new", "Cindi", "Paul", "Sue", "Ana", "--first", "Cindi", "--oath", "--last-words"),
    ("play", "look", "--roll", "7"),
    ("play", "champ", "--roll", "3"),
    ("play", "taps", "--roll", "15"),
    ("discard",),
    ("play", "zebra", "--roll", "12"),
    ("play", "quiz", "--roll", "2"),
    ("play", "columns", "--roll", "6"),
]
JUDGE = "/judge?words=taps+apts+london+champ"


def shoot(driver: object, path: Path, full: bool) -> None:
    shot = driver.execute_cdp_cmd("Page.captureScreenshot",  # type: ignore[attr-defined]
                                  {"format": "png", "captureBeyondViewport": full})
    path.write_bytes(base64.b64decode(shot["data"]))
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> None:
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        for step in GAME:
            uw(db, *step)
        with Board(db) as board, chromium() as driver:
            for name, size, full in (("tv", (1920, 1080), False), ("phone", (390, 844), True)):
                if name == "phone":
                    emulate_phone(driver, *size)
                else:
                    emulate_screen(driver, *size)
                driver.get(board.url + "/")
                time.sleep(1.0)  # the event stream connects ("Live" in the corner)
                shoot(driver, out / f"board-{name}.png", full)
                driver.get(board.url + JUDGE)
                shoot(driver, out / f"judge-{name}.png", full)


if __name__ == "__main__":
    main()
